package check

import "github.com/turnstile-sim/turnstile/wire"

// Check: engine_result_images (rules.go). A public operation needs both
// halves: the engine profile qualifies it, the Runtime claims what it
// installed (runtime-harness 服务 profile 对公共组合进行资格认定，Runtime 宣称
// 已安装的组合; Runtime 注册不会授予 Core 资格). For a function result
// carrying images the Runtime's half is decision_sent_lawful's (the Turn's
// admitted function_result_images); this is the profile's half, judged
// against the catalog Core runs (EnginePolicy's declared facts) on every
// SubmitFunctionResult with images the API client got an answer to, with
// the Session's kind as the client asked for it (FunctionResultAnswered),
// and on the function results Core sends. A refusal other than as
// unqualified for function_result_images (the Turn's declaration, the
// interaction's state) is not judged: which half Core checks first is not
// documented.
//
// A restarted Core's catalog may drop the kind or narrow its placements
// (engine_profile.go in sim/world), never change a kept kind's
// operations, so the catalog of the moment judges either record.

// CheckEngineResultImages names the rule (rules.go).
const CheckEngineResultImages = "engine_result_images"

// MarkResultImagesUnqualified: Core refused a function result with images
// because the profile does not qualify them.
const MarkResultImagesUnqualified = Mark("result_images_unqualified_refused")

// FunctionResultAnswered records Core's answer to a function result with
// images the API client submitted on a Turn of a Session with spec:
// refusal "" when accepted, else the engine refusal class (EngineUnknown,
// EngineUnqualified+op, …) or any other text for a refusal of another
// kind.
func (l *Ledger) FunctionResultAnswered(at int64, turn string, spec SessionSpec, refusal string) {
	if !l.engine.set {
		return
	}
	const unq = EngineUnqualified + "function_result_images"
	if refusal == unq {
		l.reach(MarkResultImagesUnqualified)
	}
	p := l.engine.profiles[spec.Kind]
	switch {
	case p == nil:
	case refusal == "" && !p.FunctionResultImages:
		l.violate(at, CheckEngineResultImages, "Core accepted a function result with images on turn %s of a %s Session, whose engine profile does not qualify function_result_images",
			turn, spec.Kind)
	case refusal == unq && p.FunctionResultImages:
		l.violate(at, CheckEngineResultImages, "Core refused a function result with images on turn %s as %q, but the engine profile of %s qualifies function_result_images",
			turn, refusal, spec.Kind)
	}
}

// engineResultImagesSent judges a function result Core sends (run: its
// Envelope ID).
func (l *Ledger) engineResultImagesSent(at int64, run string, p wire.FunctionResult) {
	if !l.engine.set {
		return
	}
	s := l.frames.sessions[l.frames.runs[run]]
	if !hasImages(wire.MessageInput{{Content: p.Content}}) || s == nil {
		return
	}
	if prof := l.engine.profiles[s.spec.Kind]; prof != nil && !prof.FunctionResultImages {
		l.violate(at, CheckEngineResultImages, "Core sent a function result with images for call %s on Run %s of a %s Session, whose engine profile does not qualify function_result_images",
			p.CallID, run, s.spec.Kind)
	}
}

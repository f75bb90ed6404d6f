package coremachine

import (
	"fmt"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
	"github.com/turnstile-sim/turnstile/wire"
)

// DefaultKind is the Harness kind of the scenario's Session (§7).
const DefaultKind = "contract"

// api makes one public API call; the Session is created by the first
// submit-turn (kind contract, no execution environment).
func (r *Runner) API(st scenarios.Step) {
	switch st.Action {
	case "submit-turn":
		if r.session == "" {
			kind := st.Args["kind"]
			if kind == "" {
				kind = DefaultKind
			}
			res := r.callAPI(core.CreateSession{Call: r.call(), Agent: core.AgentConfig{
				Kind: kind, Model: "model", Environment: core.EnvNone,
			}})
			if res == nil || res.Err != nil {
				return
			}
			r.session = res.SessionID
		}
		res := r.callAPI(core.SubmitTurn{Call: r.call(), Session: r.session, Input: wire.TextInput(st.Args["text"])})
		if res != nil && res.Err == nil {
			r.turns = append(r.turns, res.TurnID)
		}
	case "steer":
		if id, ok := r.turnArg(st.Args); ok {
			r.callAPI(core.SteerInput{Call: r.call(), Turn: id, Input: wire.TextInput(st.Args["text"])})
		}
	case "cancel":
		if id, ok := r.turnArg(st.Args); ok {
			r.callAPI(core.CancelTurn{Call: r.call(), Turn: id})
		}
	case "answer-permission", "answer-choice", "function-result":
		r.answer(st)
	case "quiesce", "resume":
		r.fence(st)
	case "prepare-environment":
		r.prepare(st)
	case "read-directory", "read-file", "write-file", "export":
		r.workspace(st)
	}
}

// prepare starts an Environment preparation on the scripted Runtime's
// device.
func (r *Runner) prepare(st scenarios.Step) {
	ev, err := coreapi.Prepare(st, Device)
	if err != nil {
		r.Failf("%v", err)
		return
	}
	res := r.stepAPI(ev(r.call()))
	if res == nil {
		return
	}
	if err := coreapi.CheckRefusal(st, res.Err); err != nil {
		r.Failf("%v", err)
	}
	if res.Err == nil {
		r.prep = res.PreparationID
	}
}

// corePreparation checks Core's record of the latest preparation.
func (r *Runner) CorePreparation(args map[string]string) {
	var rec *core.EnvironmentPreparationRecord
	if r.prep != "" {
		if res := r.stepAPI(core.ReadPreparation{Call: r.call(), ID: r.prep}); res != nil {
			rec = res.Preparation
		}
	}
	line, errs := coreapi.CheckPreparation(args, rec)
	for _, err := range errs {
		r.Failf("%v", err)
	}
	r.Note(line)
}

// fence quiesces the scripted Runtime's device or resumes the latest
// suspension.
func (r *Runner) fence(st scenarios.Step) {
	ev, err := coreapi.Fence(st, Device, r.suspend)
	if err != nil {
		r.Failf("%v", err)
		return
	}
	res := r.stepAPI(ev(r.call()))
	if res == nil {
		return
	}
	if err := coreapi.CheckRefusal(st, res.Err); err != nil {
		r.Failf("%v", err)
	}
	if st.Action == "quiesce" && res.Err == nil {
		r.suspend = res.SuspendID
	}
}

// coreSuspension checks Core's record of the latest suspension.
func (r *Runner) CoreSuspension(args map[string]string) {
	var rec *core.SuspensionRecord
	if r.suspend != "" {
		if res := r.stepAPI(core.ReadSuspension{Call: r.call(), SuspendID: r.suspend}); res != nil {
			rec = res.Suspension
		}
	}
	line, errs := coreapi.CheckSuspension(args, rec)
	for _, err := range errs {
		r.Failf("%v", err)
	}
	r.Note(line)
}

// stepAPI steps an API event, prints it and returns its result.
func (r *Runner) stepAPI(e core.Event) *core.APIResult {
	effects := r.m.Step(r.now, e)
	r.Note("> " + e.Describe())
	var res *core.APIResult
	for _, f := range effects {
		r.apply(f, false)
		if v, ok := f.(core.APIResult); ok {
			res = &v
		}
	}
	if res == nil {
		r.Failf("no API result for %s", e.Describe())
	}
	return res
}

// answer makes an answer call; refused= names the refusal it must get.
func (r *Runner) answer(st scenarios.Step) {
	id, ok := r.turnArg(st.Args)
	if !ok {
		return
	}
	ev, err := coreapi.Answer(st, id)
	if err != nil {
		r.Failf("%v", err)
		return
	}
	res := r.stepAPI(ev(r.call()))
	if res == nil {
		return
	}
	if err := coreapi.CheckRefusal(st, res.Err); err != nil {
		r.Failf("%v", err)
	}
}

// coreInteraction checks Core's record of one interaction of a Turn.
func (r *Runner) CoreInteraction(args map[string]string) {
	id, ok := r.turnArg(args)
	if !ok {
		return
	}
	v, found := r.m.Turn(id)
	if !found {
		r.Failf("Turn %s unknown to Core", id)
		return
	}
	all, ids := coreapi.Views(v.Interactions)
	line, errs := scenarios.CheckInteraction(args, all, ids)
	for _, err := range errs {
		r.Failf("Turn %s: %v", id, err)
	}
	r.Note(line)
}

// callAPI steps an API event and returns its APIResult; an error result
// is an assertion failure (scenarios make only valid calls).
func (r *Runner) callAPI(ev core.Event) *core.APIResult {
	effects := r.m.Step(r.now, ev)
	r.Note("> " + ev.Describe())
	var res *core.APIResult
	for _, e := range effects {
		r.apply(e, false)
		if v, ok := e.(core.APIResult); ok {
			res = &v
		}
	}
	if res == nil {
		r.Failf("no API result for %s", ev.Describe())
	} else if res.Err != nil {
		r.Failf("API call refused: %v", res.Err)
	}
	return res
}

// turnArg resolves turn=<n> (1-based submit order; default the latest).
func (r *Runner) turnArg(args map[string]string) (string, bool) {
	if len(r.turns) == 0 {
		r.Failf("no Turn submitted yet")
		return "", false
	}
	n := len(r.turns)
	if s, ok := args["turn"]; ok {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > len(r.turns) {
			r.Failf("turn=%s: %d Turns submitted", s, len(r.turns))
			return "", false
		}
		n = v
	}
	return r.turns[n-1], true
}

// coreState checks the Turn projection against the listed fields.
func (r *Runner) CoreState(args map[string]string) {
	id, ok := r.turnArg(args)
	if !ok {
		return
	}
	v, found := r.m.Turn(id)
	if !found {
		r.Failf("Turn %s unknown to Core", id)
		return
	}
	inputs := ""
	for i, in := range v.Inputs {
		if i > 0 {
			inputs += ","
		}
		inputs += string(in.State)
	}
	have := map[string]string{
		"state": string(v.State), "cursor": strconv.Itoa(v.InputCursor), "code": v.ErrorCode,
		"engine_code": v.EngineErrorCode, "engine_status": strconv.Itoa(v.EngineHTTPStatus),
		"content": v.Content, "attempt": strconv.Itoa(v.Attempt), "inputs": inputs,
		"usage": usageText(v.Usage),
	}
	line := "core-state turn=" + id
	for _, k := range []string{"state", "cursor", "code", "engine_code", "engine_status", "content", "attempt", "inputs", "usage"} {
		want, listed := args[k]
		if !listed {
			continue
		}
		line += fmt.Sprintf(" %s=%s", k, have[k])
		if have[k] != want {
			r.Failf("Turn %s: %s=%q, want %q", id, k, have[k], want)
		}
	}
	r.Note(line)
}

// usageText renders token usage as in/out/total, "-" when unknown.
func usageText(u *wire.Usage) string {
	if u == nil || u.Tokens == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d/%d", u.Tokens.InputTokens, u.Tokens.OutputTokens, u.Tokens.TotalTokens)
}

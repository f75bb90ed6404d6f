package world

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// The Harness's interaction ground truth, into the ledger.

func (r ledgerRecorder) InteractionAsked(at int64, device, run, kind, key string) {
	r.u.led.InteractionAsked(at, device, run, kind, key)
	r.u.count("InteractionAsked")
}

func (r ledgerRecorder) DecisionCalled(at int64, device, run, key string, misrouted bool) {
	r.u.led.DecisionCalled(at, device, run, key, misrouted)
	r.u.count("DecisionCalled")
}

func (r ledgerRecorder) DecisionAnswered(at int64, device, run, key string, applied bool) {
	r.u.led.DecisionAnswered(at, device, run, key, applied)
	r.u.count("DecisionAnswered")
}

func (r ledgerRecorder) DecisionRefusedUnsupported(at int64, device, run, key string) {
	r.u.led.DecisionRefusedUnsupported(at, device, run, key)
	r.u.count("DecisionRefusedUnsupported")
}

// observeInteractionRecords reports every interaction record Core writes
// whose status or delivery changed.
func (u *universe) observeInteractionRecords(old, rec core.TurnRecord) {
	at := u.lt(u.w.Now())
	for i, r := range rec.Interactions {
		if i < len(old.Interactions) && old.Interactions[i].Status == r.Status && old.Interactions[i].DeliveryID == r.DeliveryID {
			continue
		}
		u.led.CoreInteraction(at, rec.ID, r.ID, string(r.Status), r.DeliveryID)
		u.count("CoreInteraction")
	}
}

// observeSubagentRecords reports Core's list of a Turn's subagent
// observations whenever its durable record of them changes.
func (u *universe) observeSubagentRecords(at int64, old, rec core.TurnRecord) {
	same := len(old.Subagents) == len(rec.Subagents)
	for i := 0; same && i < len(rec.Subagents); i++ {
		same = old.Subagents[i].RunID == rec.Subagents[i].RunID && string(old.Subagents[i].Frame) == string(rec.Subagents[i].Frame)
	}
	if same {
		return
	}
	entries := make([]check.SubagentEntry, len(rec.Subagents))
	for i, s := range rec.Subagents {
		entries[i] = check.SubagentEntry{Run: s.RunID, Frame: s.Frame}
	}
	u.led.CoreSubagents(at, rec.ID, entries)
	u.count("CoreSubagents")
}

// wAnswers is the workload's interaction answering, on its own stream so
// that the rest of the workload draws what it drew before.
type wAnswers struct {
	r       *rand.Rand
	busy    map[string]bool // turn/interaction: an answer call is out
	retried map[string]int  // turn/interaction: answers sent
	shape   *rand.Rand      // answers Core must refuse or judge by the declaration
}

func (wl *workload) answers() *wAnswers {
	if wl.ans == nil {
		wl.ans = &wAnswers{r: wl.u.w.Rand("workload-interactions"), busy: map[string]bool{}, retried: map[string]int{},
			shape: wl.u.w.Rand("workload-answer-shapes")}
	}
	return wl.ans
}

// answerInteractions answers what a read of t shows pending, and answers
// again (at most twice more) what Core recorded unknown: the same
// decision, or under a conflict draw a different one. Answers go even
// while a cancel is pending: the Runtime decides whether it still admits
// them.
func (wl *workload) answerInteractions(now time.Time, t *wTurn, v *core.TurnView) {
	a := wl.answers()
	for _, ix := range v.Interactions {
		k := t.id + "/" + ix.ID
		if a.busy[k] || a.retried[k] > 2 {
			continue
		}
		if ix.Status != core.InteractionPending && ix.Status != core.InteractionUnknown &&
			!(ix.Status == core.InteractionRefused && ix.ErrorCode == wire.AckNotReady) {
			continue
		}
		a.busy[k] = true
		conflict := ix.Status == core.InteractionUnknown && a.r.IntN(4) == 0
		ev := wl.answerFor(t, ix, conflict)
		wl.after(now, time.Duration(50+a.r.IntN(1500))*time.Millisecond, func(now time.Time) {
			a.retried[k]++
			wl.call(now, ev, func(now time.Time, r core.APIResult) {
				a.busy[k] = false
				wl.resultAnswered(now, t, ev, r)
			}, func(time.Time) { a.busy[k] = false })
		})
	}
}

// answerFor builds the answer: permissions approved unless conflicting,
// user choices answered by question ID (the second question only, or
// cancelled, now and then), function results with text.
func (wl *workload) answerFor(t *wTurn, ix core.InteractionView, conflict bool) core.Event {
	a := wl.answers()
	switch ix.Kind {
	case core.InteractionPermission:
		return core.AnswerPermission{Turn: t.id, Interaction: ix.ID, Approved: !conflict, Message: "sim"}
	case core.InteractionUserChoice:
		if conflict || a.r.IntN(6) == 0 {
			return core.AnswerUserChoice{Turn: t.id, Interaction: ix.ID, Cancelled: true, Reason: "sim"}
		}
		ans := []wire.QuestionAnswer{{QuestionID: "q2", Answers: []string{"s"}}}
		if a.r.IntN(2) == 0 {
			ans = append(ans, wire.QuestionAnswer{QuestionID: "q1", Answers: []string{}})
		}
		switch a.shape.IntN(10) {
		case 0: // cancelled with answers: Core must refuse it
			return core.AnswerUserChoice{Turn: t.id, Interaction: ix.ID, Cancelled: true, Answers: ans}
		case 1: // a question the prompt did not ask: the Runtime refuses it
			ans = []wire.QuestionAnswer{{QuestionID: "q-unasked", Answers: []string{"s"}}}
		}
		return core.AnswerUserChoice{Turn: t.id, Interaction: ix.ID, Answers: ans}
	}
	content := []wire.InputContent{wire.TextPart("result")}
	if a.shape.IntN(4) == 0 {
		// judged by the function_result_images the Turn was admitted with
		// and by the engine profile's qualification of them
		content = append(content, wire.ImagePart("https://example.com/result.png"))
	}
	return core.SubmitFunctionResult{Turn: t.id, CallID: ix.ID, Success: !conflict, Content: content}
}

// resultAnswered reports Core's answer to a function result carrying
// images, with the Session's kind as the client asked for it
// (engine_result_images): accepted, the engine refusal class, or another
// refusal's text.
func (wl *workload) resultAnswered(now time.Time, t *wTurn, ev core.Event, r core.APIResult) {
	res, ok := ev.(core.SubmitFunctionResult)
	if !ok || !slices.ContainsFunc(res.Content, func(p wire.InputContent) bool { return p.Type == wire.ContentInputImage }) {
		return
	}
	refusal := ""
	if r.Err != nil {
		refusal = "refused: " + r.Err.Error()
		if class, ok := engineRefusal(r.Err); ok {
			refusal = class
		}
	}
	wl.u.led.FunctionResultAnswered(wl.u.lt(now), t.id, wl.u.sessionSpec(t.sess.agent), refusal)
}

// withInteractionCall names an interaction API event's call, or returns
// nil for another event.
func withInteractionCall(ev core.Event, call core.CallID) core.Event {
	switch x := ev.(type) {
	case core.AnswerPermission:
		x.Call = call
		return x
	case core.AnswerUserChoice:
		x.Call = call
		return x
	case core.SubmitFunctionResult:
		x.Call = call
		return x
	}
	return nil
}

// afterCancel reads a Turn just cancelled and submits the results of its
// pending function calls at once: a client racing its own cancel. The
// Runtime, not Core, decides whether the Turn still admits them.
func (wl *workload) afterCancel(now time.Time, t *wTurn) {
	wl.call(now, core.ReadTurn{Turn: t.id}, func(now time.Time, r core.APIResult) {
		v, _ := r.Value.(*core.TurnView)
		if v == nil {
			return
		}
		a := wl.answers()
		for _, ix := range v.Interactions {
			k := t.id + "/" + ix.ID
			if ix.Kind != core.InteractionFunction || ix.Status != core.InteractionPending || a.busy[k] {
				continue
			}
			a.busy[k] = true
			a.retried[k]++
			ev := wl.answerFor(t, ix, false)
			wl.call(now, ev, func(now time.Time, r core.APIResult) {
				a.busy[k] = false
				wl.resultAnswered(now, t, ev, r)
			}, func(time.Time) { a.busy[k] = false })
		}
	}, func(time.Time) {})
}

// checkDecisionLinearizability names the end check of the decision model.
const checkDecisionLinearizability = "decision_linearizability"

// linearizeDecisionsAtEnd checks every interaction's decision history
// against the porcupine decision model (linearize.DecisionModel).
func (u *universe) linearizeDecisionsAtEnd(v *sim.View) error {
	if viol, bad := u.led.LinearizeDecisions(u.lt(v.Now())); bad {
		return errorString(viol.Message)
	}
	return nil
}

package coreside

import (
	"context"
	"fmt"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
	"github.com/turnstile-sim/turnstile/wire"
)

func (r *Runner) call(ev func(core.CallID) core.Event) (core.APIResult, bool) {
	rep, err := r.s.Call(context.Background(), server.Request{Event: ev})
	if err != nil {
		r.Failf("API call: %v", err)
		return core.APIResult{}, false
	}
	if rep.Result.Err != nil {
		r.Failf("API call refused: %v", rep.Result.Err)
		return rep.Result, false
	}
	return rep.Result, true
}

func (r *Runner) API(st scenarios.Step) {
	defer r.received() // let Core's reaction reach the socket
	switch st.Action {
	case "submit-turn":
		if r.session == "" {
			kind := st.Args["kind"]
			if kind == "" {
				kind = "contract"
			}
			res, ok := r.call(func(c core.CallID) core.Event {
				return core.CreateSession{Call: c, Agent: core.AgentConfig{Kind: kind, Model: "model", Environment: core.EnvNone}}
			})
			if !ok {
				return
			}
			r.session = res.SessionID
		}
		if res, ok := r.call(func(c core.CallID) core.Event {
			return core.SubmitTurn{Call: c, Session: r.session, Input: wire.TextInput(st.Args["text"])}
		}); ok {
			r.turns = append(r.turns, res.TurnID)
		}
	case "steer":
		if id, ok := r.turnArg(st.Args); ok {
			r.call(func(c core.CallID) core.Event {
				return core.SteerInput{Call: c, Turn: id, Input: wire.TextInput(st.Args["text"])}
			})
		}
	case "cancel":
		if id, ok := r.turnArg(st.Args); ok {
			r.call(func(c core.CallID) core.Event { return core.CancelTurn{Call: c, Turn: id} })
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
	rep, err := r.s.Call(context.Background(), server.Request{Event: ev})
	if err != nil {
		r.Failf("API call: %v", err)
		return
	}
	if err := coreapi.CheckRefusal(st, rep.Result.Err); err != nil {
		r.Failf("%v", err)
	}
	if rep.Result.Err == nil {
		r.prep = rep.Result.PreparationID
	}
}

// corePreparation checks Core's record of the latest preparation.
func (r *Runner) CorePreparation(args map[string]string) {
	var rec *core.EnvironmentPreparationRecord
	if r.prep != "" {
		rep, err := r.s.Call(context.Background(), server.Request{Event: func(c core.CallID) core.Event {
			return core.ReadPreparation{Call: c, ID: r.prep}
		}})
		if err != nil {
			r.Failf("API call: %v", err)
			return
		}
		rec = rep.Result.Preparation
	}
	_, errs := coreapi.CheckPreparation(args, rec)
	for _, err := range errs {
		r.Failf("%v", err)
	}
}

// fence quiesces the scripted Runtime's device or resumes the latest
// suspension.
func (r *Runner) fence(st scenarios.Step) {
	ev, err := coreapi.Fence(st, Device, r.suspend)
	if err != nil {
		r.Failf("%v", err)
		return
	}
	rep, err := r.s.Call(context.Background(), server.Request{Event: ev})
	if err != nil {
		r.Failf("API call: %v", err)
		return
	}
	if err := coreapi.CheckRefusal(st, rep.Result.Err); err != nil {
		r.Failf("%v", err)
	}
	if st.Action == "quiesce" && rep.Result.Err == nil {
		r.suspend = rep.Result.SuspendID
	}
}

// coreSuspension checks Core's record of the latest suspension.
func (r *Runner) CoreSuspension(args map[string]string) {
	var rec *core.SuspensionRecord
	if r.suspend != "" {
		rep, err := r.s.Call(context.Background(), server.Request{Event: func(c core.CallID) core.Event {
			return core.ReadSuspension{Call: c, SuspendID: r.suspend}
		}})
		if err != nil {
			r.Failf("API call: %v", err)
			return
		}
		rec = rep.Result.Suspension
	}
	_, errs := coreapi.CheckSuspension(args, rec)
	for _, err := range errs {
		r.Failf("%v", err)
	}
}

// answer makes an answer call through the server; refused= names the
// refusal it must get.
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
	rep, err := r.s.Call(context.Background(), server.Request{Event: ev})
	if err != nil {
		r.Failf("API call: %v", err)
		return
	}
	if err := coreapi.CheckRefusal(st, rep.Result.Err); err != nil {
		r.Failf("%v", err)
	}
}

// coreInteraction checks Core's record of one interaction of a Turn.
func (r *Runner) CoreInteraction(args map[string]string) {
	id, ok := r.turnArg(args)
	if !ok {
		return
	}
	var v core.TurnView
	var found bool
	if err := r.s.Query(context.Background(), func(view server.View) { v, found = view.Machine().Turn(id) }); err != nil || !found {
		r.Failf("Turn %s: not readable (%v)", id, err)
		return
	}
	all, ids := coreapi.Views(v.Interactions)
	_, errs := scenarios.CheckInteraction(args, all, ids)
	for _, err := range errs {
		r.Failf("Turn %s: %v", id, err)
	}
}

func (r *Runner) turnArg(args map[string]string) (string, bool) {
	n := len(r.turns)
	if s, ok := args["turn"]; ok {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > len(r.turns) {
			r.Failf("turn=%s: %d Turns submitted", s, len(r.turns))
			return "", false
		}
		n = v
	}
	if n == 0 {
		r.Failf("no Turn submitted yet")
		return "", false
	}
	return r.turns[n-1], true
}

func (r *Runner) CoreState(args map[string]string) {
	id, ok := r.turnArg(args)
	if !ok {
		return
	}
	var v core.TurnView
	var found bool
	if err := r.s.Query(context.Background(), func(view server.View) { v, found = view.Machine().Turn(id) }); err != nil || !found {
		r.Failf("Turn %s: not readable (%v)", id, err)
		return
	}
	inputs := ""
	for i, in := range v.Inputs {
		if i > 0 {
			inputs += ","
		}
		inputs += string(in.State)
	}
	usage := "-"
	if v.Usage != nil && v.Usage.Tokens != nil {
		usage = fmt.Sprintf("%d/%d/%d", v.Usage.Tokens.InputTokens, v.Usage.Tokens.OutputTokens, v.Usage.Tokens.TotalTokens)
	}
	have := map[string]string{
		"state": string(v.State), "cursor": strconv.Itoa(v.InputCursor), "code": v.ErrorCode,
		"engine_code": v.EngineErrorCode, "engine_status": strconv.Itoa(v.EngineHTTPStatus),
		"content": v.Content, "attempt": strconv.Itoa(v.Attempt), "inputs": inputs, "usage": usage,
	}
	for _, k := range []string{"state", "cursor", "code", "engine_code", "engine_status", "content", "attempt", "inputs", "usage"} {
		if want, listed := args[k]; listed && have[k] != want {
			r.Failf("Turn %s: %s=%q, want %q", id, k, have[k], want)
		}
	}
}

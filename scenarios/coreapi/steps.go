package coreapi

import (
	"fmt"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// DefaultKind is the Harness kind of the scenario's Session (§7).
const DefaultKind = "contract"

// Core is a Core reached in process: core.Machine stepped directly, or
// core/server's loop over it.
type Core interface {
	// Call makes one API call and returns its result; an error is a call
	// that got none.
	Call(ev func(core.CallID) core.Event) (*core.APIResult, error)
	// Turn reads Core's view of a Turn.
	Turn(id string) (v core.TurnView, found bool, err error)
	// StartWorkspace makes a workspace call, whose answer comes once the
	// Runtime's work settled.
	StartWorkspace(ev func(core.CallID) core.Event)
	// WorkspaceAnswer is the latest workspace call's answer: called false
	// when none was made, a nil result while it is pending.
	WorkspaceAnswer() (res *core.APIResult, called bool, err error)
}

// Steps plays the steps only Core has (api and the core-* assertions)
// on a Core in process, for a scenarios.CoreDriver that embeds it. It
// keeps what the scenario created: the Session, its Turns, the latest
// suspension and preparation.
type Steps struct {
	log     *scenarios.Log
	c       Core
	device  string // the scripted Runtime's device
	session string
	turns   []string
	suspend string // the latest suspension Core minted
	prep    string // the latest Environment preparation
}

// NewSteps returns the steps of Core c, reported on log; device is the
// scripted Runtime's.
func NewSteps(log *scenarios.Log, c Core, device string) *Steps {
	return &Steps{log: log, c: c, device: device}
}

// call makes an API call that must succeed (scenarios make only valid
// calls unless they name a refusal).
func (s *Steps) call(ev func(core.CallID) core.Event) (*core.APIResult, bool) {
	res, err := s.c.Call(ev)
	switch {
	case err != nil:
		s.log.Failf("%v", err)
		return nil, false
	case res.Err != nil:
		s.log.Failf("API call refused: %v", res.Err)
		return res, false
	}
	return res, true
}

// refusable makes an API call whose refusal the step may name
// (refused=).
func (s *Steps) refusable(st scenarios.Step, ev func(core.CallID) core.Event, err error) *core.APIResult {
	if err != nil {
		s.log.Failf("%v", err)
		return nil
	}
	res, err := s.c.Call(ev)
	if err != nil {
		s.log.Failf("%v", err)
		return nil
	}
	if err := CheckRefusal(st, res.Err); err != nil {
		s.log.Failf("%v", err)
	}
	if res.Err != nil {
		return nil
	}
	return res
}

// createSession creates the scenario's Session on its first call.
func (s *Steps) createSession(agent core.AgentConfig) bool {
	if s.session != "" {
		return true
	}
	res, ok := s.call(func(c core.CallID) core.Event { return core.CreateSession{Call: c, Agent: agent} })
	if ok {
		s.session = res.Value.(core.SessionCreated).Session
	}
	return ok
}

// API makes one public API call; the Session is created by the first
// submit-turn (kind= or contract, no execution environment) or
// workspace call (the step's Environment).
func (s *Steps) API(st scenarios.Step) {
	switch st.Action {
	case "submit-turn":
		kind := st.Args["kind"]
		if kind == "" {
			kind = DefaultKind
		}
		if !s.createSession(core.AgentConfig{Kind: kind, Model: "model", Environment: core.EnvNone}) {
			return
		}
		if res, ok := s.call(func(c core.CallID) core.Event {
			return core.SubmitTurn{Call: c, Session: s.session, Input: wire.TextInput(st.Args["text"])}
		}); ok {
			s.turns = append(s.turns, res.Value.(core.TurnSubmitted).Turn)
		}
	case "steer":
		if id, ok := s.turnArg(st.Args); ok {
			s.call(func(c core.CallID) core.Event {
				return core.SteerInput{Call: c, Turn: id, Input: wire.TextInput(st.Args["text"])}
			})
		}
	case "cancel":
		if id, ok := s.turnArg(st.Args); ok {
			s.call(func(c core.CallID) core.Event { return core.CancelTurn{Call: c, Turn: id} })
		}
	case "answer-permission", "answer-choice", "function-result":
		if id, ok := s.turnArg(st.Args); ok {
			ev, err := Answer(st, id)
			s.refusable(st, ev, err)
		}
	case "quiesce", "resume":
		ev, err := Fence(st, s.device, s.suspend)
		if res := s.refusable(st, ev, err); res != nil && st.Action == "quiesce" {
			v, _ := res.Value.(core.SuspendRef)
			s.suspend = v.Suspend
		}
	case "prepare-environment":
		ev, err := Prepare(st, s.device)
		if res := s.refusable(st, ev, err); res != nil {
			v, _ := res.Value.(core.PreparationStarted)
			s.prep = v.Preparation
		}
	case "read-directory", "read-file", "write-file", "export":
		if !s.createSession(WorkspaceSession(st, DefaultKind)) {
			return
		}
		ev, err := Workspace(st, s.session)
		if err != nil {
			s.log.Failf("%v", err)
			return
		}
		s.c.StartWorkspace(ev)
	}
}

// turnArg resolves turn=<n> (1-based submit order; default the latest).
func (s *Steps) turnArg(args map[string]string) (string, bool) {
	if len(s.turns) == 0 {
		s.log.Failf("no Turn submitted yet")
		return "", false
	}
	n := len(s.turns)
	if a, ok := args["turn"]; ok {
		v, err := strconv.Atoi(a)
		if err != nil || v < 1 || v > len(s.turns) {
			s.log.Failf("turn=%s: %d Turns submitted", a, len(s.turns))
			return "", false
		}
		n = v
	}
	return s.turns[n-1], true
}

// turn reads the Turn a step names.
func (s *Steps) turn(args map[string]string) (string, core.TurnView, bool) {
	id, ok := s.turnArg(args)
	if !ok {
		return "", core.TurnView{}, false
	}
	v, found, err := s.c.Turn(id)
	switch {
	case err != nil:
		s.log.Failf("Turn %s: not readable (%v)", id, err)
	case !found:
		s.log.Failf("Turn %s unknown to Core", id)
	}
	return id, v, err == nil && found
}

// report fails each error and adds the step's line to the transcript.
func (s *Steps) report(line string, errs []error) {
	for _, err := range errs {
		s.log.Failf("%v", err)
	}
	s.log.Note(line)
}

// CoreState checks Core's projection of a Turn against the listed
// fields.
func (s *Steps) CoreState(args map[string]string) {
	id, v, ok := s.turn(args)
	if !ok {
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
	keys := []string{"state", "cursor", "code", "engine_code", "engine_status", "content", "attempt", "inputs", "usage"}
	s.report(compareFields(line, "Turn "+id, keys, args, have))
}

// usageText renders token usage as in/out/total, "-" when unknown.
func usageText(u *wire.Usage) string {
	if u == nil || u.Tokens == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d/%d", u.Tokens.InputTokens, u.Tokens.OutputTokens, u.Tokens.TotalTokens)
}

// CoreInteraction checks Core's record of one interaction of a Turn.
func (s *Steps) CoreInteraction(args map[string]string) {
	id, v, ok := s.turn(args)
	if !ok {
		return
	}
	all, ids := Views(v.Interactions)
	line, errs := scenarios.CheckInteraction(args, all, ids)
	for i, err := range errs {
		errs[i] = fmt.Errorf("Turn %s: %w", id, err)
	}
	s.report(line, errs)
}

// CoreSuspension checks Core's record of the latest suspension.
func (s *Steps) CoreSuspension(args map[string]string) {
	var rec *core.SuspensionRecord
	if s.suspend != "" {
		res, err := s.c.Call(func(c core.CallID) core.Event { return core.ReadSuspension{Call: c, SuspendID: s.suspend} })
		if err != nil {
			s.log.Failf("%v", err)
			return
		}
		rec, _ = res.Value.(*core.SuspensionRecord)
	}
	s.report(CheckSuspension(args, rec))
}

// CorePreparation checks Core's record of the latest preparation.
func (s *Steps) CorePreparation(args map[string]string) {
	var rec *core.EnvironmentPreparationRecord
	if s.prep != "" {
		res, err := s.c.Call(func(c core.CallID) core.Event { return core.ReadPreparation{Call: c, ID: s.prep} })
		if err != nil {
			s.log.Failf("%v", err)
			return
		}
		rec, _ = res.Value.(*core.EnvironmentPreparationRecord)
	}
	s.report(CheckPreparation(args, rec))
}

// CoreWorkspace checks the answer of the latest workspace call
// (outcome=pending while there is none).
func (s *Steps) CoreWorkspace(args map[string]string) {
	res, called, err := s.c.WorkspaceAnswer()
	have := Pending
	switch {
	case !called:
		s.log.Failf("core-workspace: no workspace call was made")
		return
	case err != nil:
		s.log.Failf("core-workspace: API call: %v", err)
		return
	case res == nil:
	case res.Err != nil:
		s.log.Failf("core-workspace: the call was refused: %v", res.Err)
		return
	case res.Value == nil:
		s.log.Failf("core-workspace: the answer carries no workspace result")
		return
	default:
		have = WorkspaceFields(res.Value.(*core.WorkspaceResult))
	}
	s.report(CheckWorkspace(args, have))
}

// Package coreapi plays the steps only Core has (api, core-*) for every
// Core driver (Steps) over an API: Events in process, HTTP in
// scenarios/conform. Both answer in core/api's views and
// core.WorkspaceResult, so Steps compares the members once.
package coreapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// API is Core as a driver reaches it for the steps only Core has. An
// error is the step's failure; a *Refused, a refusal a step may expect.
type API interface {
	// CreateSession: with no environment, or self-hosted on environment;
	// multiAgent enables the Agent's multi_agent (subagent observations).
	CreateSession(kind, environment string, multiAgent bool) (string, error)
	Submit(session, text string) (turn string, err error)
	Steer(session, turn, text string) error
	Cancel(session, turn string) error
	// Answer answers with the step's decoded body: a PermissionBody,
	// an api.UserChoiceAnswer or a FunctionResultBody.
	Answer(st scenarios.Step, session, turn string, body any) error
	Quiesce(environment string) (suspend string, err error)
	Resume(suspend string, rollback bool) error
	Prepare(st scenarios.Step) (prep string, err error)
	StartWorkspace(st scenarios.Step, session string) error // answered later

	// Turn reads Core's operator view of a Turn; unshown lists the
	// members (by JSON name) this Core's view leaves out.
	Turn(id string) (t api.TurnJSON, unshown []string, err error)
	Suspension(id string) (api.SuspensionJSON, error)
	// Preparation reads prep, or the latest of session.
	Preparation(prep, session string) (api.PreparationJSON, error)
	// WorkspaceAnswer reads the latest workspace call's answer (nil: none
	// yet; called: a call was made); pending: the step expects none.
	WorkspaceAnswer(pending bool) (w *core.WorkspaceResult, called bool, err error)
}

// Refused is a call Core refused with a public error code.
type Refused struct {
	Code string
	Call string // "API call", "POST <path>"
	Err  error
}

func (r *Refused) Error() string { return fmt.Sprintf("%s refused: %v", r.Call, r.Err) }

// Steps plays the steps only Core has for a CoreDriver that embeds it,
// keeping the Session, its Turns, the latest suspension and preparation.
type Steps struct {
	log *scenarios.Log
	api API
	// Retry: how long a difference is read again, every 20ms (a Core
	// reached from outside may show a frame's effect a moment late).
	Retry time.Duration
	// NotChecked takes each listed member Core's view does not show.
	NotChecked func(format string, args ...any)
	session    string
	others     map[string]string // session=<name> of a workspace call → its own Session
	turns      []string
	suspend    string
	prep       string
}

// NewSteps returns the steps of Core a, reported on log.
func NewSteps(log *scenarios.Log, a API) *Steps { return &Steps{log: log, api: a} }

// Session is the scenario's Session ("": none yet) and whether it
// submitted a Turn.
func (s *Steps) Session() (string, bool) { return s.session, len(s.turns) > 0 }

// failed fails the step with err, if any.
func (s *Steps) failed(err error) bool {
	if err != nil {
		s.log.Failf("%v", err)
	}
	return err != nil
}

// answerBody decodes an answer step's body.
func answerBody(st scenarios.Step) (any, error) {
	switch st.Action {
	case "answer-permission":
		var b PermissionBody
		if err := strict(st.Input, &b); err != nil || b.Approved == nil {
			return nil, fmt.Errorf("api %s: body %s: want {\"approved\":bool,…} (%v)", st.Action, st.Input, err)
		}
		return b, nil
	case "answer-choice":
		var b api.UserChoiceAnswer
		if err := strict(st.Input, &b); err != nil {
			return nil, fmt.Errorf("api %s: body %s: %v", st.Action, st.Input, err)
		}
		return b, nil
	}
	var b FunctionResultBody
	if err := strict(st.Input, &b); err != nil || b.Success == nil || b.Content == nil {
		return nil, fmt.Errorf("api %s: body %s: want {\"success\":bool,\"content\":[…]} (%v)", st.Action, st.Input, err)
	}
	return b, nil
}

// ErrNoPreparation: Core keeps no preparation the step could mean.
var ErrNoPreparation = errors.New("core-preparation: Core has no Environment preparation")

// refusable checks a call's error against refused=; ok: as the step said.
func (s *Steps) refusable(st scenarios.Step, err error) bool {
	want := st.Args["refused"]
	var ref *Refused
	switch {
	case err != nil && (!errors.As(err, &ref) || want == ""):
		s.log.Failf("%v", err)
	case want != "" && err == nil:
		s.log.Failf("api %s: accepted, want it refused %s", st.Action, want)
	case want != "" && ref.Code != want:
		s.log.Failf("api %s: refused %q (%v), want %s", st.Action, ref.Code, ref.Err, want)
	default:
		return true
	}
	return false
}

func (s *Steps) createSession(kind, environment string, multiAgent bool) bool {
	if s.session != "" {
		return true
	}
	id, err := s.api.CreateSession(kind, environment, multiAgent)
	s.session = id
	return !s.failed(err)
}

// API makes one api call (the first submit or workspace call creates
// the Session).
func (s *Steps) API(st scenarios.Step) {
	switch st.Action {
	case "submit-turn":
		if s.createSession(cmp.Or(st.Args["kind"], scenarios.ContractKind), "", st.Args["multi_agent"] == "true") {
			if id, err := s.api.Submit(s.session, st.Args["text"]); !s.failed(err) {
				s.turns = append(s.turns, id)
			}
		}
	case "steer":
		if id, ok := s.turnArg(st.Args); ok {
			s.failed(s.api.Steer(s.session, id, st.Args["text"]))
		}
	case "cancel":
		if id, ok := s.turnArg(st.Args); ok {
			s.failed(s.api.Cancel(s.session, id))
		}
	case "answer-permission", "answer-choice", "function-result":
		if id, ok := s.turnArg(st.Args); ok {
			if body, err := answerBody(st); !s.failed(err) {
				s.refusable(st, s.api.Answer(st, s.session, id, body))
			}
		}
	case "quiesce":
		if id, err := s.api.Quiesce(st.Args["environment"]); s.refusable(st, err) && err == nil {
			s.suspend = id
		}
	case "resume":
		if s.suspend == "" {
			s.log.Failf("api resume: nothing was quiesced")
			return
		}
		s.refusable(st, s.api.Resume(s.suspend, st.Args["rollback"] == "true"))
	case "prepare-environment":
		if id, err := s.api.Prepare(st); s.refusable(st, err) && err == nil {
			s.prep = id
		}
	case "read-directory", "read-file", "write-file", "export":
		session, ok := s.workspaceSession(st)
		if !ok || s.failed(s.api.StartWorkspace(st, session)) || st.Args["refused"] == "" {
			return
		}
		// a refusal is answered at once: nothing reaches a Runtime
		_, _, err := s.api.WorkspaceAnswer(false)
		s.refusable(st, err)
	}
}

// workspaceSession is the Session a workspace call names: the
// scenario's, or with session=<name> a Session of its own, created at its
// first call like the scenario's.
func (s *Steps) workspaceSession(st scenarios.Step) (string, bool) {
	name := st.Args["session"]
	if name == "" {
		return s.session, s.createSession(scenarios.ContractKind, st.Args["environment"], false)
	}
	if id := s.others[name]; id != "" {
		return id, true
	}
	id, err := s.api.CreateSession(scenarios.ContractKind, st.Args["environment"], false)
	if s.failed(err) {
		return "", false
	}
	if s.others == nil {
		s.others = map[string]string{}
	}
	s.others[name] = id
	return id, true
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

// check reads and compares until nothing differs or Retry passed, then
// reports the line and each difference.
func (s *Steps) check(try func() (string, []error)) {
	deadline := time.Now().Add(s.Retry)
	for {
		line, errs := try()
		if len(errs) == 0 || s.Retry == 0 || time.Now().After(deadline) {
			s.report(line, errs)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// CoreState checks Core's view of a Turn (an unshown member: not checked).
func (s *Steps) CoreState(args map[string]string) {
	id, ok := s.turnArg(args)
	if !ok {
		return
	}
	var unshown []string
	s.check(func() (string, []error) {
		t, hidden, err := s.api.Turn(id)
		if err != nil {
			return "", []error{err}
		}
		have := turnFields(t)
		unshown = nil
		for _, k := range scenarios.KindCoreState.Members() {
			want, listed := args[k]
			if name := strings.Replace(k, "cursor", "input_cursor", 1); listed && slices.Contains(hidden, name) {
				unshown, have[k] = append(unshown, k+"="+want), want
			}
		}
		return compareFields("core-state turn="+id, "Turn "+id, scenarios.KindCoreState, args, have)
	})
	for _, u := range unshown {
		s.NotChecked("core-state %s: Core's view of the Turn does not show it", u)
	}
}

// turnFields are the members core-state compares, from Core's view.
func turnFields(t api.TurnJSON) map[string]string {
	var inputs []string
	for _, in := range t.Inputs {
		inputs = append(inputs, in.State)
	}
	usage := "-"
	if u := t.Usage; u != nil && u.Tokens != nil {
		usage = fmt.Sprintf("%d/%d/%d", u.Tokens.InputTokens, u.Tokens.OutputTokens, u.Tokens.TotalTokens)
	}
	engine := api.EngineError{}
	if t.EngineError != nil {
		engine = *t.EngineError
	}
	return map[string]string{
		"state": t.State, "cursor": strconv.Itoa(t.InputCursor), "code": t.ErrorCode, "engine_code": engine.Code,
		"engine_status": strconv.Itoa(engine.HTTPStatus), "content": t.Content, "attempt": strconv.Itoa(t.Attempt),
		"inputs": strings.Join(inputs, ","), "usage": usage,
	}
}

// CoreInteraction checks Core's record of one interaction of a Turn.
func (s *Steps) CoreInteraction(args map[string]string) {
	turn, ok := s.turnArg(args)
	if !ok {
		return
	}
	id := args["id"]
	s.check(func() (string, []error) {
		t, hidden, err := s.api.Turn(turn)
		switch {
		case err != nil:
			return "", []error{err}
		case slices.Contains(hidden, "interactions"):
			s.NotChecked("core-interaction id=%s: Core's view of the Turn does not show interactions", id)
			return "", nil
		}
		var ids []string
		for _, x := range t.Interactions {
			if x.ID == id {
				have := map[string]string{"kind": x.Kind, "status": x.Status, "code": x.ErrorCode, "attempts": strconv.Itoa(x.Attempts)}
				return compareFields("core-interaction id="+id, "Turn "+turn+": interaction "+id, scenarios.KindCoreInteraction, args, have)
			}
			ids = append(ids, x.ID)
		}
		return "core-interaction id=" + id, []error{fmt.Errorf("Turn %s: interaction %s: Core has no record of it (it has %q)", turn, id, ids)}
	})
}

// CoreSubagents checks Core's record of a Turn's subagent observations:
// their count and, in order, each one's type (without "subagent_"),
// native_id and, when set, turn_id and item_id, ':'-joined.
func (s *Steps) CoreSubagents(args map[string]string) {
	turn, ok := s.turnArg(args)
	if !ok {
		return
	}
	s.check(func() (string, []error) {
		t, hidden, err := s.api.Turn(turn)
		switch {
		case err != nil:
			return "", []error{err}
		case slices.Contains(hidden, "subagents"):
			s.NotChecked("core-subagents: Core's view of the Turn does not show subagents")
			return "", nil
		}
		var obs []string
		for _, x := range t.Subagents {
			o := strings.TrimPrefix(x.Type, "subagent_") + ":" + x.NativeID
			for _, id := range []string{x.TurnID, x.ItemID} {
				if id != "" {
					o += ":" + id
				}
			}
			obs = append(obs, o)
		}
		have := map[string]string{"count": strconv.Itoa(len(t.Subagents)), "observations": strings.Join(obs, ",")}
		return compareFields("core-subagents", "Turn "+turn+": subagents", scenarios.KindCoreSubagents, args, have)
	})
}

// CoreSuspension checks Core's record of the latest suspension.
func (s *Steps) CoreSuspension(args map[string]string) {
	if s.suspend == "" {
		s.log.Failf("core-suspension: nothing was quiesced")
		return
	}
	s.check(func() (string, []error) {
		r, err := s.api.Suspension(s.suspend)
		if err != nil {
			return "", []error{err}
		}
		have := map[string]string{"state": r.State, "code": r.ErrorCode, "rollback": strconv.FormatBool(r.Rollback), "attempts": strconv.Itoa(r.Attempts)}
		return compareFields("core-suspension "+s.suspend, "suspension "+s.suspend, scenarios.KindCoreSuspension, args, have)
	})
}

// CorePreparation checks Core's record of the latest preparation.
func (s *Steps) CorePreparation(args map[string]string) {
	p, err := s.api.Preparation(s.prep, s.session)
	if s.failed(err) {
		return
	}
	var states []string
	code := ""
	for _, st := range p.Steps {
		states = append(states, st.State)
		code = cmp.Or(code, st.ErrorCode)
	}
	have := map[string]string{"state": p.State, "steps": strings.Join(states, ","), "code": code}
	s.report(compareFields("core-preparation "+p.ID, "preparation "+p.ID, scenarios.KindCorePreparation, args, have))
}

// CoreWorkspace checks the answer of the latest workspace call.
func (s *Steps) CoreWorkspace(args map[string]string) {
	w, called, err := s.api.WorkspaceAnswer(args["outcome"] == "pending")
	switch {
	case !called:
		s.log.Failf("core-workspace: no workspace call was made")
		return
	case err != nil:
		s.log.Failf("core-workspace: %v", err)
		return
	case w == nil:
		w = &core.WorkspaceResult{Outcome: "pending"}
	}
	var entries []string
	for _, e := range w.Entries {
		if e.Kind == "directory" {
			e.Name += "/"
		}
		entries = append(entries, e.Name)
	}
	have := map[string]string{"outcome": w.Outcome, "code": w.Code, "entries": strings.Join(entries, ","), "data": string(w.Data),
		"truncated": strconv.FormatBool(w.Truncated || w.EntriesTruncated), "archive": strconv.Itoa(len(w.Archive))}
	s.report(compareFields("core-workspace", "workspace answer", scenarios.KindCoreWorkspace, args, have))
}

// report fails the step with each error and notes its line, if any.
func (s *Steps) report(line string, errs []error) {
	for _, err := range errs {
		s.log.Failf("%v", err)
	}
	if line != "" {
		s.log.Note(line)
	}
}

// compareFields compares the members args lists with have, in kind's
// order: line gains each as Core has it, a difference is an error.
func compareFields(line, subject string, kind scenarios.Kind, args, have map[string]string) (string, []error) {
	var errs []error
	for _, k := range kind.Members() {
		want, listed := args[k]
		if !listed {
			continue
		}
		line += fmt.Sprintf(" %s=%s", k, have[k])
		if have[k] != want {
			errs = append(errs, fmt.Errorf("%s: %s=%q, want %q", subject, k, have[k], want))
		}
	}
	return line, errs
}

// PermissionBody is an answer-permission step's body.
type PermissionBody struct {
	Approved     *bool           `json:"approved"`
	Message      string          `json:"message,omitempty"`
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"`
}

// FunctionResultBody is a function-result step's body.
type FunctionResultBody struct {
	Success *bool               `json:"success"`
	Content []wire.InputContent `json:"content"`
}

// strict decodes a step's JSON body into v, refusing unknown members.
func strict(s string, v any) error {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// Core is a Core in process (core.Machine, or core/server's loop); its
// methods are API's in core's terms.
type Core interface {
	Call(ev func(core.CallID) core.Event) (*core.APIResult, error)
	Turn(id string) (v core.TurnView, found bool, err error)
	StartWorkspace(ev func(core.CallID) core.Event)
	WorkspaceAnswer() (res *core.APIResult, called bool, err error)
}

// Events is the API of c as core.Machine events; device: the Runtime's.
func Events(c Core, device string) API { return events{c, device} }

type events struct {
	c      Core
	device string
}

type event = func(core.CallID) core.Event

func (e events) call(ev event) (*core.APIResult, error) {
	res, err := e.c.Call(ev)
	if err == nil && res.Err != nil {
		code, _, _ := api.ErrorCode(res.Err)
		return res, &Refused{Code: code, Call: "API call", Err: res.Err}
	}
	return res, err
}

func (e events) do(ev event) error { _, err := e.call(ev); return err }

// id makes a call and returns the ID its result carries.
func (e events) id(ev event, id func(*core.APIResult) string) (string, error) {
	res, err := e.call(ev)
	if err != nil {
		return "", err
	}
	return id(res), nil
}

func (e events) CreateSession(kind, environment string, multiAgent bool) (string, error) {
	agent := core.AgentConfig{Kind: kind, Model: "model", Environment: core.EnvNone, MultiAgent: multiAgent}
	if environment != "" {
		agent.Environment, agent.EnvironmentID = core.EnvSelfHosted, environment
	}
	return e.id(func(c core.CallID) core.Event { return core.CreateSession{Call: c, Agent: agent} },
		func(r *core.APIResult) string { v, _ := r.Value.(core.SessionCreated); return v.Session })
}

func (e events) Submit(session, text string) (string, error) {
	return e.id(func(c core.CallID) core.Event {
		return core.SubmitTurn{Call: c, Session: session, Input: wire.TextInput(text)}
	}, func(r *core.APIResult) string { v, _ := r.Value.(core.TurnSubmitted); return v.Turn })
}

func (e events) Steer(_, turn, text string) error {
	return e.do(func(c core.CallID) core.Event {
		return core.SteerInput{Call: c, Turn: turn, Input: wire.TextInput(text)}
	})
}

func (e events) Cancel(_, turn string) error {
	return e.do(func(c core.CallID) core.Event { return core.CancelTurn{Call: c, Turn: turn} })
}

func (e events) Answer(st scenarios.Step, _, turn string, body any) error {
	return e.do(func(c core.CallID) core.Event {
		switch b := body.(type) {
		case PermissionBody:
			return core.AnswerPermission{Call: c, Turn: turn, Interaction: st.Args["interaction"], Approved: *b.Approved,
				Message: b.Message, UpdatedInput: b.UpdatedInput}
		case api.UserChoiceAnswer:
			return core.AnswerUserChoice{Call: c, Turn: turn, Interaction: st.Args["interaction"], Answers: b.Answers,
				Cancelled: b.Cancelled, Reason: b.Reason}
		}
		b := body.(FunctionResultBody)
		return core.SubmitFunctionResult{Call: c, Turn: turn, CallID: st.Args["call"], Success: *b.Success, Content: b.Content}
	})
}

func (e events) Quiesce(environment string) (string, error) {
	return e.id(func(c core.CallID) core.Event {
		return core.QuiesceEnvironment{Call: c, Device: e.device, EnvironmentID: environment}
	}, func(r *core.APIResult) string { v, _ := r.Value.(core.SuspendRef); return v.Suspend })
}

func (e events) Resume(suspend string, rollback bool) error {
	return e.do(func(c core.CallID) core.Event {
		return core.ResumeEnvironment{Call: c, SuspendID: suspend, Rollback: rollback}
	})
}

// Prepare prepares the step's Environment on the device.
func (e events) Prepare(st scenarios.Step) (string, error) {
	var hs []wire.RuntimePrepare
	if err := json.Unmarshal([]byte(st.Input), &hs); err != nil {
		return "", fmt.Errorf("api prepare-environment: steps %s: %v", st.Input, err)
	}
	steps := make([]core.PrepareStep, len(hs))
	for i, h := range hs {
		body := h.Data
		h.Data = nil
		steps[i] = core.PrepareStep{Header: h, Body: body}
	}
	return e.id(func(c core.CallID) core.Event {
		return core.PrepareEnvironment{Call: c, Device: e.device, EnvironmentID: st.Args["environment"],
			SessionID: st.Args["session"], Steps: steps}
	}, func(r *core.APIResult) string { v, _ := r.Value.(core.PreparationStarted); return v.Preparation })
}

// Workspace call defaults (wire-reference §3.9).
const (
	defaultMaxEntries = 1024
	defaultMaxBytes   = 1 << 20
)

func (e events) StartWorkspace(st scenarios.Step, session string) error {
	e.c.StartWorkspace(func(c core.CallID) core.Event {
		switch st.Action {
		case "export":
			return core.ExportWorkspace{Call: c, Session: session}
		case "write-file":
			return core.WriteWorkspace{Call: c, Session: session, Path: st.Args["path"], Data: []byte(st.Input)}
		}
		r := core.ReadWorkspace{Call: c, Session: session, Path: st.Args["path"], Directory: st.Action == "read-directory"}
		n, _ := strconv.Atoi(cmp.Or(st.Args["max_entries"], st.Args["max_bytes"])) // a call takes the one of its kind
		if r.Directory {
			r.MaxEntries = cmp.Or(n, defaultMaxEntries)
		} else {
			r.MaxBytes = cmp.Or(n, defaultMaxBytes)
		}
		return r
	})
	return nil
}

// Turn is Core's operator view of the Turn as core/api renders it.
func (e events) Turn(id string) (api.TurnJSON, []string, error) {
	v, found, err := e.c.Turn(id)
	switch {
	case err != nil:
		return api.TurnJSON{}, nil, fmt.Errorf("Turn %s: not readable (%v)", id, err)
	case !found:
		return api.TurnJSON{}, nil, fmt.Errorf("Turn %s unknown to Core", id)
	}
	t := api.TurnJSON{State: string(v.State), Attempt: v.Attempt, ErrorCode: v.ErrorCode, Usage: v.Usage, Content: v.Content,
		InputCursor: v.InputCursor, EngineError: &api.EngineError{Code: v.EngineErrorCode, HTTPStatus: v.EngineHTTPStatus}}
	for _, in := range v.Inputs {
		t.Inputs = append(t.Inputs, api.InputJSON{State: string(in.State)})
	}
	for _, x := range v.Interactions {
		t.Interactions = append(t.Interactions, api.InteractionJSON{ID: x.ID, Kind: string(x.Kind), Status: string(x.Status),
			ErrorCode: x.ErrorCode, Attempts: x.Attempts})
	}
	for _, x := range v.Subagents {
		t.Subagents = append(t.Subagents, api.SubagentJSON{RunID: x.RunID, Type: x.Type, NativeID: x.NativeID, TurnID: x.TurnID,
			ItemID: x.ItemID, Status: x.Status, Frame: x.Frame})
	}
	return t, nil, nil
}

func (e events) Suspension(id string) (api.SuspensionJSON, error) {
	res, err := e.c.Call(func(c core.CallID) core.Event { return core.ReadSuspension{Call: c, SuspendID: id} })
	if err != nil {
		return api.SuspensionJSON{}, err
	}
	rec, _ := res.Value.(*core.SuspensionRecord)
	if rec == nil {
		return api.SuspensionJSON{}, fmt.Errorf("core-suspension: Core has no suspension record")
	}
	return api.SuspensionJSON{State: string(rec.State), ErrorCode: rec.ErrorCode, Rollback: rec.Rollback, Attempts: rec.Attempts}, nil
}

func (e events) Preparation(id, _ string) (api.PreparationJSON, error) {
	var rec *core.EnvironmentPreparationRecord
	if id != "" {
		res, err := e.c.Call(func(c core.CallID) core.Event { return core.ReadPreparation{Call: c, ID: id} })
		if err != nil {
			return api.PreparationJSON{}, err
		}
		rec, _ = res.Value.(*core.EnvironmentPreparationRecord)
	}
	if rec == nil {
		return api.PreparationJSON{}, ErrNoPreparation
	}
	p := api.PreparationJSON{ID: rec.ID, State: string(rec.State)}
	for _, s := range rec.Steps {
		p.Steps = append(p.Steps, api.PreparationStepJSON{State: string(s.State), ErrorCode: s.ErrorCode})
	}
	return p, nil
}

func (e events) WorkspaceAnswer(bool) (*core.WorkspaceResult, bool, error) {
	res, called, err := e.c.WorkspaceAnswer()
	switch {
	case err != nil:
		return nil, called, fmt.Errorf("API call: %v", err)
	case res == nil:
		return nil, called, nil
	case res.Err != nil:
		code, _, _ := api.ErrorCode(res.Err)
		return nil, true, &Refused{Code: code, Call: "API call", Err: res.Err}
	}
	w, ok := res.Value.(*core.WorkspaceResult)
	if !ok || w == nil {
		return nil, true, fmt.Errorf("the answer carries no workspace result")
	}
	return w, true, nil
}

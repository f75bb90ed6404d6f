// Package coreapi plays the steps only Core has (api and the core-*
// assertions) for every Core driver (Steps), over an API: Events for the
// machine driver (scenarios/machine), HTTP for scenarios/conform (a
// Core in its own process, or in process in conform's tests). It also
// holds what those share: the answer bodies and the workspace answer's
// members.
package coreapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

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

// Strict decodes a step's JSON body into v, refusing unknown members.
func Strict(s string, v any) error {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// Core is a Core reached in process: core.Machine stepped directly, or
// core/server's loop over it.
type Core interface {
	// Call makes one API call and returns its result; an error is a call
	// that got none.
	Call(ev func(core.CallID) core.Event) (*core.APIResult, error)
	Turn(id string) (v core.TurnView, found bool, err error)
	// StartWorkspace makes a workspace call, whose answer comes once the
	// Runtime's work settled.
	StartWorkspace(ev func(core.CallID) core.Event)
	// WorkspaceAnswer is the latest workspace call's answer: called false
	// when none was made, a nil result while it is pending.
	WorkspaceAnswer() (res *core.APIResult, called bool, err error)
}

// Events is the API of a Core in process, as events of core.Machine;
// device is the scripted Runtime's.
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

func (e events) CreateSession(kind, environment string) (string, error) {
	agent := core.AgentConfig{Kind: kind, Model: "model", Environment: core.EnvNone}
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

// Prepare prepares the step's Environment on the device: the input is a
// JSON array of runtime_prepare begin headers whose data member is the
// step's body.
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
	DefaultMaxEntries = 1024
	DefaultMaxBytes   = 1 << 20
)

func (e events) StartWorkspace(st scenarios.Step, session string) error {
	limit := func(s string, def int) int {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
		return def
	}
	var ev event
	switch st.Action {
	case "read-directory", "read-file":
		r := core.ReadWorkspace{Session: session, Path: st.Args["path"], Directory: st.Action == "read-directory"}
		if r.Directory {
			r.MaxEntries = limit(st.Args["max_entries"], DefaultMaxEntries)
		} else {
			r.MaxBytes = limit(st.Args["max_bytes"], DefaultMaxBytes)
		}
		ev = func(c core.CallID) core.Event { r.Call = c; return r }
	case "export":
		x := core.ExportWorkspace{Session: session}
		ev = func(c core.CallID) core.Event { x.Call = c; return x }
	default:
		w := core.WriteWorkspace{Session: session, Path: st.Args["path"], Data: []byte(st.Input)}
		ev = func(c core.CallID) core.Event { w.Call = c; return w }
	}
	e.c.StartWorkspace(ev)
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
		return nil, true, fmt.Errorf("the call was refused: %v", res.Err)
	}
	w, ok := res.Value.(*core.WorkspaceResult)
	if !ok || w == nil {
		return nil, true, fmt.Errorf("the answer carries no workspace result")
	}
	return w, true, nil
}

// Package coreapi turns a scenario's answer calls (answer-permission,
// answer-choice, function-result) into core.Machine API events, checks an
// API result against the step's refused= argument, and checks the
// core-interaction assertion against Core's interaction views. Steps
// plays api and the core-* assertions for the two Core drivers in
// process (scenarios/machine and scenarios/coreside) over either's Core; the conform command makes the same calls over HTTP: a
// permission answer and a function result as /v1 input events, a
// user-choice answer on the operator route.
package coreapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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

// Answer returns the event of an answer call on Turn turn, decoded from
// the step's body (PermissionBody, api.UserChoiceAnswer or
// FunctionResultBody; conform maps them onto /v1 input events and the
// operator's user-choice route).
func Answer(st scenarios.Step, turn string) (func(core.CallID) core.Event, error) {
	switch st.Action {
	case "answer-permission":
		var b PermissionBody
		if err := decode(st.Input, &b); err != nil || b.Approved == nil {
			return nil, fmt.Errorf("api %s: body %s: want {\"approved\":bool,…} (%v)", st.Action, st.Input, err)
		}
		return func(c core.CallID) core.Event {
			return core.AnswerPermission{Call: c, Turn: turn, Interaction: st.Args["interaction"], Approved: *b.Approved,
				Message: b.Message, UpdatedInput: b.UpdatedInput}
		}, nil
	case "answer-choice":
		var b api.UserChoiceAnswer
		if err := decode(st.Input, &b); err != nil {
			return nil, fmt.Errorf("api %s: body %s: %v", st.Action, st.Input, err)
		}
		return func(c core.CallID) core.Event {
			return core.AnswerUserChoice{Call: c, Turn: turn, Interaction: st.Args["interaction"], Answers: b.Answers,
				Cancelled: b.Cancelled, Reason: b.Reason}
		}, nil
	case "function-result":
		var b FunctionResultBody
		if err := decode(st.Input, &b); err != nil || b.Success == nil || b.Content == nil {
			return nil, fmt.Errorf("api %s: body %s: want {\"success\":bool,\"content\":[…]} (%v)", st.Action, st.Input, err)
		}
		return func(c core.CallID) core.Event {
			return core.SubmitFunctionResult{Call: c, Turn: turn, CallID: st.Args["call"], Success: *b.Success, Content: b.Content}
		}, nil
	}
	return nil, fmt.Errorf("api %s: not an answer call", st.Action)
}

func decode(s string, v any) error {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// CheckRefusal compares the result of a call with the step's refused=
// argument: without it the call must succeed; with it the call must be
// refused with that public error code.
func CheckRefusal(st scenarios.Step, err error) error {
	want := st.Args["refused"]
	code, _, _ := api.ErrorCode(err)
	switch {
	case want == "" && err != nil:
		return fmt.Errorf("API call refused: %v", err)
	case want != "" && err == nil:
		return fmt.Errorf("api %s: accepted, want it refused %s", st.Action, want)
	case want != "" && code != want:
		return fmt.Errorf("api %s: refused %q (%v), want %s", st.Action, code, err, want)
	}
	return nil
}

// InteractionFields are the members core-interaction asserts, as the
// public API's Turn shows them.
func InteractionFields(v core.InteractionView) map[string]string {
	return map[string]string{"kind": string(v.Kind), "status": string(v.Status), "code": v.ErrorCode,
		"attempts": strconv.Itoa(v.Attempts)}
}

// Views splits interaction views into fields and IDs for
// scenarios.CheckInteraction.
func Views(vs []core.InteractionView) ([]map[string]string, []string) {
	var all []map[string]string
	var ids []string
	for _, v := range vs {
		all, ids = append(all, InteractionFields(v)), append(ids, v.ID)
	}
	return all, ids
}

// Fence returns the event of a quiesce (of the device, for the step's
// environment) or a resume (of suspension suspend, the latest).
func Fence(st scenarios.Step, device, suspend string) (func(core.CallID) core.Event, error) {
	switch st.Action {
	case "quiesce":
		return func(c core.CallID) core.Event {
			return core.QuiesceEnvironment{Call: c, Device: device, EnvironmentID: st.Args["environment"]}
		}, nil
	case "resume":
		if suspend == "" {
			return nil, fmt.Errorf("api resume: nothing was quiesced")
		}
		return func(c core.CallID) core.Event {
			return core.ResumeEnvironment{Call: c, SuspendID: suspend, Rollback: st.Args["rollback"] == "true"}
		}, nil
	}
	return nil, fmt.Errorf("api %s: not a fencing call", st.Action)
}

// CheckSuspension checks the core-suspension arguments against a
// suspension record; it returns the line the machine runner prints.
func CheckSuspension(args map[string]string, rec *core.SuspensionRecord) (string, []error) {
	if rec == nil {
		return "core-suspension", []error{fmt.Errorf("core-suspension: Core has no suspension record")}
	}
	have := map[string]string{"state": string(rec.State), "code": rec.ErrorCode,
		"rollback": strconv.FormatBool(rec.Rollback), "attempts": strconv.Itoa(rec.Attempts)}
	line := "core-suspension " + rec.ID
	return compareFields(line, "suspension "+rec.ID, []string{"state", "code", "rollback", "attempts"}, args, have)
}

// Prepare returns the event of an Environment preparation on the device:
// the step's input is a JSON array of runtime_prepare begin headers whose
// data member is the step's body.
func Prepare(st scenarios.Step, device string) (func(core.CallID) core.Event, error) {
	var hs []wire.RuntimePrepare
	if err := json.Unmarshal([]byte(st.Input), &hs); err != nil {
		return nil, fmt.Errorf("api prepare-environment: steps %s: %v", st.Input, err)
	}
	steps := make([]core.PrepareStep, len(hs))
	for i, h := range hs {
		body := h.Data
		h.Data = nil
		steps[i] = core.PrepareStep{Header: h, Body: body}
	}
	return func(c core.CallID) core.Event {
		return core.PrepareEnvironment{Call: c, Device: device, EnvironmentID: st.Args["environment"],
			SessionID: st.Args["session"], Steps: steps}
	}, nil
}

// CheckPreparation checks the core-preparation arguments (state, steps:
// every step's state joined by commas, code: the first step's error
// code) against a preparation record.
func CheckPreparation(args map[string]string, rec *core.EnvironmentPreparationRecord) (string, []error) {
	if rec == nil {
		return "core-preparation", []error{fmt.Errorf("core-preparation: Core has no Environment preparation")}
	}
	var states []string
	code := ""
	for _, s := range rec.Steps {
		states = append(states, string(s.State))
		if code == "" {
			code = s.ErrorCode
		}
	}
	return CheckPreparationFields(args, rec.ID, string(rec.State), states, code)
}

// CheckPreparationFields checks a core-preparation step's state=, steps=
// (the steps' states, comma-separated) and code= (the first step's error
// code) against preparation id as some view of Core shows it.
func CheckPreparationFields(args map[string]string, id, state string, steps []string, code string) (string, []error) {
	have := map[string]string{"state": state, "steps": strings.Join(steps, ","), "code": code}
	line := "core-preparation " + id
	return compareFields(line, "preparation "+id, []string{"state", "steps", "code"}, args, have)
}

// compareFields compares the listed members of args with have, in the
// order of keys: the step's transcript line gains each listed member as
// Core has it, and each difference is an error about subject.
func compareFields(line, subject string, keys []string, args, have map[string]string) (string, []error) {
	var errs []error
	for _, k := range keys {
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

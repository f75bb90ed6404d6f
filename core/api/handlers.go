package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// AgentRequest is a Session's agent configuration.
type AgentRequest struct {
	Kind                           string          `json:"kind"`
	Model                          string          `json:"model"`
	SystemPrompt                   string          `json:"system_prompt,omitempty"`
	ModelProvider                  string          `json:"model_provider,omitempty"`
	HarnessConfig                  json.RawMessage `json:"harness_config,omitempty"`
	TextVerbosity                  string          `json:"text_verbosity,omitempty"`
	OutputSchema                   json.RawMessage `json:"output_schema,omitempty"`
	MultiAgent                     bool            `json:"multi_agent,omitempty"`
	DisableProgrammaticToolCalling bool            `json:"disable_programmatic_tool_calling,omitempty"`
	FunctionResultImages           bool            `json:"function_result_images,omitempty"`
	// FunctionTools and MCPServers take the wire shapes of FunctionTool and
	// MCPHTTPServer (wire-reference §3.8, §3.14); a server without
	// connection_origin gets the default of the Environment type. An
	// explicit empty mcp_servers decodes to an empty, non-nil list, which
	// Core sends as mcp_http_servers: []; absent or null leaves it nil.
	FunctionTools []wire.FunctionTool  `json:"function_tools,omitempty"`
	MCPServers    []wire.MCPHTTPServer `json:"mcp_servers,omitempty"`
}

// CreateSessionRequest is the body of POST /api/v1/sessions.
type CreateSessionRequest struct {
	Agent       AgentRequest `json:"agent"`
	Environment struct {
		Type string `json:"type"`
		ID   string `json:"id,omitempty"`
		// Definition is what every connection installs before the
		// Session's work runs there (see EnvironmentDefinitionRequest).
		Definition *EnvironmentDefinitionRequest `json:"definition,omitempty"`
	} `json:"environment"`
}

// InputRequest is the body of a Turn submission or a steered input: either
// a MessageInput or, as a shorthand, one text.
type InputRequest struct {
	Input wire.MessageInput `json:"input,omitempty"`
	Text  *string           `json:"text,omitempty"`
}

func (in InputRequest) message() (wire.MessageInput, error) {
	switch {
	case in.Text != nil && in.Input != nil:
		return nil, &badRequest{code: CodeInvalidInput, detail: "give input or text, not both"}
	case in.Text != nil:
		return wire.TextInput(*in.Text), nil
	case in.Input == nil:
		return nil, &badRequest{code: CodeInvalidInput, detail: "input or text required"}
	}
	return in.Input, nil
}

func (a *API) createSession(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	var req CreateSessionRequest
	if err == nil {
		err = decodeStrict(body, &req)
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	ag := core.AgentConfig{
		Kind: req.Agent.Kind, Model: req.Agent.Model, SystemPrompt: req.Agent.SystemPrompt,
		ModelProvider: req.Agent.ModelProvider, TextVerbosity: req.Agent.TextVerbosity,
		Environment: core.EnvironmentKind(req.Environment.Type), EnvironmentID: req.Environment.ID,
		MultiAgent: req.Agent.MultiAgent, DisableProgrammaticToolCalling: req.Agent.DisableProgrammaticToolCalling,
		FunctionResultImages: req.Agent.FunctionResultImages,
		FunctionTools:        req.Agent.FunctionTools, MCPServers: req.Agent.MCPServers,
	}
	if len(req.Agent.HarnessConfig) > 0 {
		if req.Agent.HarnessConfig[0] != '{' {
			a.failErr(w, &badRequest{code: CodeInvalidConfig, detail: "harness_config must be an object"})
			return
		}
		ag.HarnessConfig = req.Agent.HarnessConfig
	}
	if len(req.Agent.OutputSchema) > 0 {
		ag.OutputSchema = req.Agent.OutputSchema
	}
	if ag.Definition, err = req.Environment.Definition.definition(); err != nil {
		a.failErr(w, err)
		return
	}
	a.post(w, r, body, func(c core.CallID) core.Event { return core.CreateSession{Call: c, Agent: ag} },
		func(res core.APIResult) (int, any) {
			return http.StatusCreated, map[string]string{"session_id": res.SessionID}
		})
}

func (a *API) readInput(w http.ResponseWriter, r *http.Request) ([]byte, wire.MessageInput, bool) {
	body, err := readBody(w, r)
	var req InputRequest
	if err == nil {
		err = decodeStrict(body, &req)
	}
	var in wire.MessageInput
	if err == nil {
		in, err = req.message()
	}
	if err != nil {
		a.failErr(w, err)
		return nil, nil, false
	}
	return body, in, true
}

func (a *API) submitTurn(w http.ResponseWriter, r *http.Request) {
	body, in, ok := a.readInput(w, r)
	if !ok {
		return
	}
	sid := r.PathValue("session")
	a.post(w, r, body, func(c core.CallID) core.Event { return core.SubmitTurn{Call: c, Session: sid, Input: in} },
		func(res core.APIResult) (int, any) {
			return http.StatusCreated, map[string]string{"turn_id": res.TurnID}
		})
}

func (a *API) steer(w http.ResponseWriter, r *http.Request) {
	body, in, ok := a.readInput(w, r)
	if !ok {
		return
	}
	tid := r.PathValue("turn")
	a.post(w, r, body, func(c core.CallID) core.Event { return core.SteerInput{Call: c, Turn: tid, Input: in} },
		func(res core.APIResult) (int, any) {
			return http.StatusCreated, map[string]string{"input_id": res.InputID}
		})
}

func (a *API) cancel(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	if err == nil && len(body) > 0 {
		var empty struct{}
		err = decodeStrict(body, &empty)
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	tid := r.PathValue("turn")
	a.post(w, r, body, func(c core.CallID) core.Event { return core.CancelTurn{Call: c, Turn: tid} },
		func(core.APIResult) (int, any) { return http.StatusAccepted, map[string]string{"turn_id": tid} })
}

// TurnJSON is a Turn's public projection.
type TurnJSON struct {
	ID          string       `json:"id"`
	SessionID   string       `json:"session_id"`
	State       string       `json:"state"`
	RunID       string       `json:"run_id,omitempty"`
	Attempt     int          `json:"attempt"`
	ErrorCode   string       `json:"error_code,omitempty"`
	ErrorDetail string       `json:"error_detail,omitempty"`
	EngineError *EngineError `json:"engine_error,omitempty"`
	Usage       *wire.Usage  `json:"usage,omitempty"`
	Content     string       `json:"content"`
	Cancel      string       `json:"cancel,omitempty"`
	InputCursor int          `json:"input_cursor"`
	Inputs      []InputJSON  `json:"inputs"`
	Events      uint64       `json:"events"`
	// Interactions are the Run's permission requests, user choices and
	// function calls with their outcome (interaction.go).
	Interactions []InteractionJSON `json:"interactions"`
}

// EngineError is the engine error projection of a Turn that failed with
// engine_failed.
type EngineError struct {
	Code       string `json:"code,omitempty"`
	HTTPStatus int    `json:"http_status,omitempty"`
}

// InputJSON is an active input with its receipt state.
type InputJSON struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	ErrorCode string `json:"error_code,omitempty"`
}

func turnJSON(v core.TurnView) TurnJSON {
	t := TurnJSON{ID: v.ID, SessionID: v.Session, State: string(v.State), RunID: v.RunID, Attempt: v.Attempt,
		ErrorCode: v.ErrorCode, ErrorDetail: v.ErrorDetail, Usage: v.Usage, Content: v.Content,
		Cancel: string(v.Cancel), InputCursor: v.InputCursor, Inputs: []InputJSON{}, Events: v.Events,
		Interactions: interactionsJSON(v.Interactions)}
	if v.ErrorCode == core.CodeEngineFailed {
		t.EngineError = &EngineError{Code: v.EngineErrorCode, HTTPStatus: v.EngineHTTPStatus}
	}
	for _, in := range v.Inputs {
		t.Inputs = append(t.Inputs, InputJSON{ID: in.ID, State: string(in.State), ErrorCode: in.ErrorCode})
	}
	return t
}

func (a *API) getTurn(w http.ResponseWriter, r *http.Request) {
	tid := r.PathValue("turn")
	rep, err := a.s.Call(r.Context(), server.Request{Event: func(c core.CallID) core.Event { return core.ReadTurn{Call: c, Turn: tid} }})
	if err == nil {
		err = rep.Result.Err
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, turnJSON(*rep.Result.Turn))
}

// TurnPage is one page of a Session's Turns, in submission order.
// NextAfter, when set, is the `after` cursor of the next page.
type TurnPage struct {
	Turns     []TurnJSON  `json:"turns"`
	NextAfter string      `json:"next_after,omitempty"`
	Session   SessionJSON `json:"session"`
}

// SessionJSON is the Session's recoverability (core.SessionState).
type SessionJSON struct {
	RecoveryRequired bool   `json:"recovery_required"`
	Usable           bool   `json:"usable"`
	UnusableReason   string `json:"unusable_reason,omitempty"`
}

// listQuery reads the `limit` and `after` query parameters: limit, when
// given, is a positive decimal integer (its upper bound is the machine's);
// after, when given, is a Turn ID.
func listQuery(r *http.Request) (core.ListTurns, error) {
	q := r.URL.Query()
	var ev core.ListTurns
	if vs, ok := q["limit"]; ok {
		n, err := strconv.Atoi(vs[0])
		if err != nil || n < 1 || len(vs) > 1 {
			return ev, &badRequest{code: CodeBadLimit, detail: "limit must be one positive integer"}
		}
		ev.Limit = n
	}
	if vs, ok := q["after"]; ok {
		if vs[0] == "" || len(vs) > 1 {
			return ev, &badRequest{code: CodeBadCursor, detail: "after must be one Turn ID"}
		}
		ev.After = vs[0]
	}
	return ev, nil
}

func (a *API) listTurns(w http.ResponseWriter, r *http.Request) {
	ev, err := listQuery(r)
	if err != nil {
		a.failErr(w, err)
		return
	}
	ev.Session = r.PathValue("session")
	rep, err := a.s.Call(r.Context(), server.Request{Event: func(c core.CallID) core.Event { ev.Call = c; return ev }})
	if err == nil {
		err = rep.Result.Err
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	page := TurnPage{Turns: make([]TurnJSON, 0, len(rep.Result.Turns)), NextAfter: rep.Result.NextAfter,
		Session: SessionJSON{Usable: true}}
	if st := rep.Result.Session; st != nil {
		page.Session = SessionJSON{RecoveryRequired: st.RecoveryRequired, Usable: st.Unrecoverable == "", UnusableReason: st.Unrecoverable}
	}
	for _, v := range rep.Result.Turns {
		page.Turns = append(page.Turns, turnJSON(v))
	}
	writeJSON(w, http.StatusOK, page)
}

// DeviceJSON describes a registered device.
type DeviceJSON struct {
	ID              string                    `json:"id"`
	Revoked         bool                      `json:"revoked"`
	Connected       bool                      `json:"connected"`
	LastHeartbeatAt *time.Time                `json:"last_heartbeat_at,omitempty"`
	DaemonVersion   string                    `json:"daemon_version,omitempty"`
	ActiveRequests  int                       `json:"active_requests"`
	Kinds           []wire.SupportedAgentKind `json:"kinds"`
}

func (a *API) listDevices(w http.ResponseWriter, r *http.Request) {
	var out []DeviceJSON
	var lerr error
	err := a.s.Query(r.Context(), func(v server.View) {
		recs, err := v.Backend().Devices()
		if err != nil {
			lerr = err
			return
		}
		conns := map[string]core.ConnID{}
		for _, d := range v.Machine().Devices() {
			conns[d.Device] = d.Conn
		}
		for _, rec := range recs {
			d := DeviceJSON{ID: rec.ID, Revoked: rec.Revoked, Kinds: []wire.SupportedAgentKind{}}
			if c := conns[rec.ID]; c != 0 {
				d.Connected = true
				if hb := v.Heartbeat(c); hb != nil {
					at := hb.At.UTC()
					d.LastHeartbeatAt, d.DaemonVersion, d.ActiveRequests = &at, hb.DaemonVersion, hb.Active
					d.Kinds = append(d.Kinds, hb.Kinds...)
				}
			}
			out = append(out, d)
		}
	})
	if err == nil {
		err = lerr
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	if out == nil {
		out = []DeviceJSON{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"devices": out})
}

package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// TurnJSON is Core's operator view of a Turn (GET /core/v1/turns/{turn}):
// its Run, attempt, input receipts and interaction outcomes, which the
// Agents API Turn has no form for.
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
	// Subagents are the Run's subagent observations Core accepted, in
	// arrival order: each with the frame as the Runtime reported it.
	Subagents []SubagentJSON `json:"subagents"`
}

// SubagentJSON is one subagent observation of a Turn's Run.
type SubagentJSON struct {
	RunID    string          `json:"run_id"`
	Type     string          `json:"type"`
	NativeID string          `json:"native_id"`
	TurnID   string          `json:"turn_id,omitempty"`
	ItemID   string          `json:"item_id,omitempty"`
	Status   string          `json:"status,omitempty"`
	Frame    json.RawMessage `json:"frame"`
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
		Interactions: interactionsJSON(v.Interactions), Subagents: []SubagentJSON{}}
	if v.ErrorCode == core.CodeEngineFailed {
		t.EngineError = &EngineError{Code: v.EngineErrorCode, HTTPStatus: v.EngineHTTPStatus}
	}
	for _, sa := range v.Subagents {
		t.Subagents = append(t.Subagents, SubagentJSON{RunID: sa.RunID, Type: sa.Type, NativeID: sa.NativeID,
			TurnID: sa.TurnID, ItemID: sa.ItemID, Status: sa.Status, Frame: json.RawMessage(sa.Frame)})
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
	writeJSON(w, http.StatusOK, turnJSON(*rep.Result.Value.(*core.TurnView)))
}

// DeviceJSON describes a registered device.
type DeviceJSON struct {
	ID              string                    `json:"id"`
	Revoked         bool                      `json:"revoked"`
	CreatedAt       time.Time                 `json:"created_at"`
	RevokedAt       *time.Time                `json:"revoked_at,omitempty"`
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
			d := DeviceJSON{ID: rec.ID, Revoked: rec.Revoked, CreatedAt: rec.CreatedAt.UTC(), Kinds: []wire.SupportedAgentKind{}}
			if rec.Revoked {
				at := rec.RevokedAt.UTC()
				d.RevokedAt = &at
			}
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

package api

import (
	"encoding/json"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// TurnObject is the SDK's Turn. Core keeps no clock in its records:
// created_at is when /v1 submitted the Turn (the Session's creation for
// a Turn submitted otherwise); started_at and completed_at are null.
type TurnObject struct {
	ID          string           `json:"id"`
	Object      string           `json:"object"`
	AgentID     *string          `json:"agent_id"`
	SessionID   string           `json:"session_id"`
	CreatedAt   int64            `json:"created_at"`
	StartedAt   *int64           `json:"started_at"`
	CompletedAt *int64           `json:"completed_at"`
	Status      string           `json:"status"`
	Error       *TurnErrorJSON   `json:"error"`
	SubagentID  *string          `json:"subagent_id"`
	Usage       *UsageJSON       `json:"usage"`
	XAgentsCore *TurnXAgentsCore `json:"x_agents_core,omitempty"`
}

// TurnErrorJSON is a failed Turn's error: code is the SDK's
// (server_error for engine_failed, internal_error otherwise); Core's own
// code and, for engine_failed only, the engine error are in x_agents_core.
type TurnErrorJSON struct {
	Code        string          `json:"code"`
	Message     string          `json:"message"`
	XAgentsCore TurnErrorDetail `json:"x_agents_core"`
}

// TurnErrorDetail is Core's failure code and the engine error projection.
type TurnErrorDetail struct {
	ErrorCode   string       `json:"error_code"`
	EngineError *EngineError `json:"engine_error,omitempty"`
}

// TurnXAgentsCore carries Core's Turn state and cancel state.
type TurnXAgentsCore struct {
	State  string `json:"state"`
	Cancel string `json:"cancel,omitempty"`
}

// turnStatus maps the machine's state: queued and starting are queued,
// running is in_progress, or waiting while a function result or a
// permission decision is pending.
func turnStatus(rec core.TurnRecord) string {
	switch rec.State {
	case core.TurnQueued, core.TurnStarting:
		return "queued"
	case core.TurnRunning:
		for _, ix := range rec.Interactions {
			if ix.RunID == rec.RunID && (ix.Status == core.InteractionPending || ix.Status == core.InteractionRefused) &&
				ix.Kind != core.InteractionUserChoice {
				return "waiting"
			}
		}
		return "in_progress"
	}
	return string(rec.State)
}

// turnObject projects a Turn; created is when /v1 submitted it (0: the
// Session's creation time).
func turnObject(rec core.TurnRecord, v core.TurnView, srec sessionRecord, created int64) TurnObject {
	t := TurnObject{ID: rec.ID, Object: "agent.session.turn", AgentID: srec.AgentID, SessionID: rec.Session,
		CreatedAt: srec.CreatedAt, Status: turnStatus(rec), Usage: usageJSON(rec.Usage),
		XAgentsCore: &TurnXAgentsCore{State: string(rec.State), Cancel: string(rec.Cancel)}}
	if created != 0 {
		t.CreatedAt = created
	}
	if rec.State == core.TurnFailed {
		e := &TurnErrorJSON{Code: "internal_error", Message: rec.ErrorDetail, XAgentsCore: TurnErrorDetail{ErrorCode: rec.ErrorCode}}
		if rec.ErrorCode == core.CodeEngineFailed {
			e.Code = "server_error"
			e.XAgentsCore.EngineError = &EngineError{Code: v.EngineErrorCode, HTTPStatus: v.EngineHTTPStatus}
		}
		if e.Message == "" {
			e.Message = rec.ErrorCode
		}
		t.Error = e
	}
	return t
}

// ItemJSON is a Session item: a message (user input, steered input or
// assistant output), a function call or a function call output.
type ItemJSON struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	TurnID    string          `json:"turn_id"`
	Status    string          `json:"status"`
	Role      string          `json:"role,omitempty"`
	Phase     *string         `json:"phase,omitempty"`
	Content   []ContentJSON   `json:"content,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Output    []ContentJSON   `json:"output,omitempty"`
	Error     *string         `json:"error,omitempty"`
	// XAgentsCore is an input's receipt: its input ID (0 is the Turn's
	// own input), state and error code.
	XAgentsCore *ItemReceipt `json:"x_agents_core,omitempty"`
}

// ContentJSON is a content part: input_text, input_image or output_text.
type ContentJSON struct {
	Type     string  `json:"type"`
	Text     *string `json:"text,omitempty"`
	ImageURL *string `json:"image_url,omitempty"`
}

// ItemReceipt is the receipt state of an input.
type ItemReceipt struct {
	InputID   string `json:"input_id"`
	State     string `json:"state"`
	ErrorCode string `json:"error_code,omitempty"`
}

func inputContent(in wire.MessageInput) []ContentJSON {
	out := []ContentJSON{}
	for _, m := range in {
		for _, c := range m.Content {
			out = append(out, ContentJSON{Type: c.Type, Text: c.Text, ImageURL: c.ImageURL})
		}
	}
	return out
}

func parts(cs []wire.InputContent) []ContentJSON {
	out := []ContentJSON{}
	for _, c := range cs {
		out = append(out, ContentJSON{Type: c.Type, Text: c.Text, ImageURL: c.ImageURL})
	}
	return out
}

// inputStatus: an accepted input is completed; one refused or never
// delivered is incomplete; one whose outcome is unknown, or still on its
// way, is in_progress (unknown stays unknown: its state says which).
func inputStatus(s core.InputState) string {
	switch s {
	case core.InputAccepted:
		return "completed"
	case core.InputFailed, core.InputNotDelivered:
		return "incomplete"
	}
	return "in_progress"
}

// turnItems derives a Turn's items from its persisted records: its
// input, every steered input with its receipt, each function call and
// the result sent for it, then the assistant's output messages (or the
// final content when the Runtime reported none). The order of inputs
// against outputs is not recorded; inputs come first.
func turnItems(rec core.TurnRecord, inputs []core.InputRecord, events []core.RunEvent) []ItemJSON {
	out := []ItemJSON{{ID: rec.ID + "_input_0", Type: "message", TurnID: rec.ID, Status: "completed", Role: "user",
		Content: inputContent(rec.Input), XAgentsCore: &ItemReceipt{InputID: "0", State: "accepted"}}}
	for _, in := range inputs {
		out = append(out, ItemJSON{ID: rec.ID + "_input_" + in.ID, Type: "message", TurnID: rec.ID, Status: inputStatus(in.State),
			Role: "user", Content: inputContent(in.Input), XAgentsCore: &ItemReceipt{InputID: in.ID, State: string(in.State), ErrorCode: in.ErrorCode}})
	}
	for _, ix := range rec.Interactions {
		if ix.Kind != core.InteractionFunction {
			continue
		}
		st := "in_progress"
		if ix.Status != core.InteractionPending && ix.Status != core.InteractionRefused {
			st = "completed"
		}
		out = append(out, ItemJSON{ID: rec.ID + "_call_" + ix.ID, Type: "function_call", TurnID: rec.ID, Status: st,
			CallID: ix.ID, Name: ix.Name, Arguments: rawOr(ix.Arguments, `{}`)})
		if ix.Result != nil {
			o := ItemJSON{ID: rec.ID + "_output_" + ix.ID, Type: "function_call_output", TurnID: rec.ID, CallID: ix.ID,
				Status: "completed", Output: parts(ix.Result.Content)}
			if !ix.Result.Success {
				o.Status = "failed"
			}
			out = append(out, o)
		}
	}
	for _, ev := range events {
		if m, ok := ev.Payload.(wire.OutputMessage); ok && m.Text != nil {
			out = append(out, assistantItem(rec.ID, m.ID, *m.Text, m.Status, m.Phase))
		}
	}
	if !hasOutputMessages(events) {
		if text, ok := finalContent(rec); ok {
			out = append(out, assistantItem(rec.ID, messageID(rec.ID), text, "completed", ""))
		}
	}
	return out
}

func finalContent(rec core.TurnRecord) (string, bool) {
	switch {
	case rec.State == core.TurnCancelled && rec.CancelOutcome != nil && rec.CancelOutcome.Content != "":
		return rec.CancelOutcome.Content, true
	case rec.Done != nil && rec.Done.Content != "":
		return rec.Done.Content, true
	}
	return "", false
}

func messageID(tid string) string { return "msg_" + tid }

func assistantItem(tid, id, text, status, phase string) ItemJSON {
	if id == "" {
		id = messageID(tid)
	}
	switch status {
	case "completed", "in_progress", "incomplete":
	default:
		status = "completed"
	}
	it := ItemJSON{ID: id, Type: "message", TurnID: tid, Status: status, Role: "assistant",
		Content: []ContentJSON{{Type: "output_text", Text: &text}}}
	if phase != "" {
		it.Phase = &phase
	}
	return it
}

// turnHistory is what the items of a Turn are derived from.
type turnHistory struct {
	rec    core.TurnRecord
	view   core.TurnView
	inputs []core.InputRecord
	events []core.RunEvent
}

// readTurnHistory reads a Turn of Session sid on the loop; ok is false
// when the Turn is not the Session's.
func readTurnHistory(v server.View, sid, tid string) (turnHistory, bool) {
	rec, ok := v.Backend().Turn(tid)
	if !ok || rec.Session != sid {
		return turnHistory{}, false
	}
	view, _ := v.Machine().Turn(tid)
	return turnHistory{rec: rec, view: view, inputs: v.Backend().Inputs(tid), events: v.Backend().Events(tid)}, true
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

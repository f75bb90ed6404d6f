package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// Session input event types (AgentSessionInputParam).
const (
	InputMessage     = "agent.session.input.message"
	InputCancel      = "agent.session.input.cancel"
	InputToolResult  = "agent.session.input.tool_result"
	InputMCPApproval = "agent.session.input.mcp_approval_request_result"
	InputComputerUse = "agent.session.input.computer_use_approval_request_result"
)

// sessionInput is one event of POST /v1/agents/sessions/{id}/events, all
// types' members together (each type's own are checked).
type sessionInput struct {
	Type      string          `json:"type"`
	Input     json.RawMessage `json:"input"`
	CallID    *string         `json:"call_id"`
	TurnID    *string         `json:"turn_id"`
	Success   *bool           `json:"success"`
	Error     *string         `json:"error"`
	Output    json.RawMessage `json:"output"`
	RequestID *string         `json:"request_id"`
	Response  json.RawMessage `json:"response"`
}

// Receipt tells what one input event did: the Turn it started or the
// input it steered into (input_id, whose receipt shows in the Turn's
// items), the Turn whose cancel or answer it delivered (delivery_id).
type Receipt struct {
	Type       string `json:"type"`
	Action     string `json:"action"` // turn_started, steered, cancel_requested, function_result, permission_decision
	TurnID     string `json:"turn_id"`
	InputID    string `json:"input_id,omitempty"`
	DeliveryID string `json:"delivery_id,omitempty"`
}

// EventsReceipt is the answer of POST .../events (the SDK reads no body;
// the receipts are Core's).
type EventsReceipt struct {
	Object   string    `json:"object"`
	Receipts []Receipt `json:"receipts"`
}

// checkedInput is an input event checked before anything runs.
type checkedInput struct {
	typ     string
	message wire.MessageInput
	callID  string
	turnID  string
	success bool
	content []wire.InputContent
	request string
	approve bool
	reason  string
}

func checkInput(i int, in sessionInput) (checkedInput, error) {
	p := "events[" + strconv.Itoa(i) + "]"
	c := checkedInput{typ: in.Type}
	only := func(ok bool) error {
		if !ok {
			return badParam(CodeUnknownField, p, "%s: a member of another event type", p)
		}
		return nil
	}
	msgMembers := in.Input != nil
	toolMembers := in.CallID != nil || in.TurnID != nil || in.Success != nil || in.Error != nil || in.Output != nil
	approvalMembers := in.RequestID != nil || in.Response != nil
	switch in.Type {
	case InputMessage:
		if err := only(!toolMembers && !approvalMembers); err != nil {
			return c, err
		}
		if in.Input == nil || isNull(in.Input) {
			return c, badParam(CodeInvalidInput, p+".input", "a message event needs input")
		}
		var err error
		c.message, err = messageParams(in.Input, p+".input")
		return c, err
	case InputCancel:
		return c, only(!msgMembers && !toolMembers && !approvalMembers)
	case InputToolResult:
		if err := only(!msgMembers && !approvalMembers); err != nil {
			return c, err
		}
		if in.CallID == nil || *in.CallID == "" || in.TurnID == nil || *in.TurnID == "" || in.Success == nil {
			return c, badParam(CodeInvalidInput, p, "a tool result needs call_id, turn_id and success")
		}
		c.callID, c.turnID, c.success = *in.CallID, *in.TurnID, *in.Success
		if in.Output != nil && !isNull(in.Output) {
			var s string
			if json.Unmarshal(in.Output, &s) == nil {
				c.content = []wire.InputContent{wire.TextPart(s)}
			} else {
				var content []wire.InputContent // its own: c stays on the stack
				if err := sub(in.Output, p+".output", &content); err != nil {
					return c, err
				}
				c.content = content
				for j, part := range c.content {
					if err := part.Validate(); err != nil {
						return c, badParam(CodeInvalidInput, fmt.Sprintf("%s.output[%d]", p, j), "%v", err)
					}
				}
			}
		}
		if in.Error != nil && *in.Error != "" {
			if c.success {
				return c, badParam(CodeInvalidInput, p+".error", "a successful result carries no error")
			}
			c.content = append(c.content, wire.TextPart(*in.Error))
		}
		if c.content == nil {
			c.content = []wire.InputContent{}
		}
		return c, nil
	case InputMCPApproval:
		if err := only(!msgMembers && !toolMembers); err != nil {
			return c, err
		}
		var resp struct {
			Decision string `json:"decision"`
			Type     string `json:"type"`
		}
		if in.RequestID == nil || *in.RequestID == "" || in.Response == nil {
			return c, badParam(CodeInvalidInput, p, "an approval result needs request_id and response")
		}
		if err := sub(in.Response, p+".response", &resp); err != nil {
			return c, err
		}
		if resp.Type != "mcp_tool_call" {
			return c, badParam(CodeInvalidInput, p+".response.type", "response type must be mcp_tool_call")
		}
		switch resp.Decision {
		case "approve":
			c.approve = true
		case "deny":
		case "cancel":
			c.reason = "cancelled"
		default:
			return c, badParam(CodeInvalidInput, p+".response.decision", "decision must be approve, deny or cancel")
		}
		c.request = *in.RequestID
		return c, nil
	case InputComputerUse:
		return c, badParam(CodeNotSupported, p+".type", "Core has no computer use")
	}
	return c, badParam(CodeInvalidValue, p+".type", "unknown event type %q", in.Type)
}

// storedReceipt is the durable answer of one idempotent input event.
type storedReceipt struct {
	Fingerprint string         `json:"fp"`
	Status      int            `json:"status"`
	Receipt     *Receipt       `json:"receipt,omitempty"`
	Error       *V1ErrorDetail `json:"error,omitempty"`
}

// v1Refusal is a machine refusal carried as a /v1 error.
type v1Refusal struct {
	status int
	detail V1ErrorDetail
}

func (e *v1Refusal) Error() string { return e.detail.Message }

func machineRefusal(err error) *v1Refusal {
	for _, m := range machineErrors {
		if errors.Is(err, m.err) {
			return &v1Refusal{m.status, V1ErrorDetail{Message: err.Error(), Type: typeFor(m.status), Code: strOrNil(m.code)}}
		}
	}
	return nil
}

// call runs one machine call for an input event. With an idempotency key
// the answer is stored in the call's own commit and a retry gets it back;
// fp gives the body's fingerprint (read only with a key).
func (a *API) call(ctx context.Context, key string, fp func() []byte, ev func(core.CallID) core.Event, receipt func(core.APIResult) Receipt) (Receipt, error) {
	return a.callAt(ctx, key, fp, func(_ server.View, c core.CallID) core.Event { return ev(c) }, receipt)
}

// callAt is call with the event built on the loop from the committed
// state; a nil event (the Session is not there) is 404 unknown_session.
func (a *API) callAt(ctx context.Context, key string, fp func() []byte, ev func(server.View, core.CallID) core.Event, receipt func(core.APIResult) Receipt) (Receipt, error) {
	req := server.Request{EventAt: ev}
	fingerprint := "" // only a call with a key stores and compares one
	if key != "" {
		sum := sha256.Sum256(fp())
		fingerprint = hex.EncodeToString(sum[:])
		req.IdempotencyKey = key
		req.Answer = func(res core.APIResult) []byte {
			sr := storedReceipt{Fingerprint: fingerprint, Status: http.StatusOK}
			if res.Err != nil {
				if rf := machineRefusal(res.Err); rf != nil {
					sr.Status, sr.Error = rf.status, &rf.detail
				} else {
					sr.Status, sr.Error = 500, &V1ErrorDetail{Message: "internal error", Type: TypeServer, Code: strOrNil(CodeInternal)}
				}
			} else {
				r := receipt(res)
				sr.Receipt = &r
			}
			b, _ := json.Marshal(sr)
			return b
		}
	}
	rep, err := a.s.Call(ctx, req)
	if err != nil {
		return Receipt{}, err
	}
	if rep.Skipped {
		return Receipt{}, notFound(CodeUnknownSessionV1, "session_id", "no session")
	}
	if key == "" {
		if rep.Result.Err != nil {
			return Receipt{}, rep.Result.Err
		}
		return receipt(rep.Result), nil
	}
	var sr storedReceipt
	if err := json.Unmarshal(rep.Stored, &sr); err != nil {
		return Receipt{}, err
	}
	if rep.Replayed && sr.Fingerprint != fingerprint {
		return Receipt{}, &v1Bad{status: http.StatusUnprocessableEntity, code: CodeIdempotencyConflict, msg: "Idempotency-Key reused with a different body"}
	}
	if sr.Error != nil {
		return Receipt{}, &v1Refusal{sr.Status, *sr.Error}
	}
	return *sr.Receipt, nil
}

// messageFingerprint is the idempotency fingerprint of a message event,
// the same whether it started a Turn or steered one: a retry that finds
// the Turn its first attempt started still running replays that answer.
func messageFingerprint(in wire.MessageInput) []byte {
	fp, _ := json.Marshal(in)
	return append([]byte("message "), fp...)
}

// startTurn submits a Turn to the Session and records its creation time.
func (a *API) startTurn(ctx context.Context, sid string, in wire.MessageInput, key string) (Receipt, error) {
	r, err := a.call(ctx, key, func() []byte { return messageFingerprint(in) }, func(c core.CallID) core.Event { return core.SubmitTurn{Call: c, Session: sid, Input: in} },
		func(res core.APIResult) Receipt {
			return Receipt{Type: InputMessage, Action: "turn_started", TurnID: res.Value.(core.TurnSubmitted).Turn, InputID: "0"}
		})
	if err == nil {
		a.noteTurn(ctx, sid, r.TurnID)
	}
	return r, err
}

// noteTurn records when /v1 submitted a Turn (best effort: a Turn
// without the record reports its Session's creation time).
func (a *API) noteTurn(ctx context.Context, sid, tid string) {
	if _, ok := a.turnCreated(ctx, tid); ok {
		return // a replayed submission
	}
	at := time.Now().Unix()
	b := appendTurnRecord(make([]byte, 0, 48+len(sid)), turnRecordJSON{Session: sid, CreatedAt: at})
	if err := a.res.PutResource(ctx, kindTurn, tid, b); err != nil {
		a.log.Warn("turn creation time not recorded", "turn", tid, "err", err)
		return
	}
	a.turnTimes.put(tid, at)
}

func (a *API) postSessionEvents(w http.ResponseWriter, r *http.Request) {
	var p struct {
		Events []sessionInput `json:"events"`
	}
	b, err := readV1Body(w, r)
	if err == nil {
		var ok bool
		if p.Events, ok = decodeEventsPlain(b); !ok {
			p.Events = nil
			err = decodeStrict(b, &p)
		}
	}
	if err == nil && len(p.Events) == 0 {
		err = badParam(CodeInvalidInput, "events", "events must hold at least one event")
	}
	var one [1]checkedInput // the usual single event, on the stack
	checked := one[:0]
	for i, in := range p.Events {
		if err != nil {
			break
		}
		var c checkedInput
		c, err = checkInput(i, in)
		checked = append(checked, c)
	}
	sid := r.PathValue("session")
	var st sessionState
	if err == nil {
		// A message reads the Session on the loop as it is delivered;
		// other events read it here (an unknown Session is 404 first).
		if checked[0].typ == InputMessage {
			err = a.sessionLive(r.Context(), sid)
		} else {
			st, err = a.sessionStateOnly(r.Context(), sid)
		}
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	out := EventsReceipt{Object: "agent.session.events.receipt", Receipts: []Receipt{}}
	for i, c := range checked {
		k := ""
		if key != "" {
			k = fmt.Sprintf("POST %s %s #%d", r.URL.Path, key, i)
		}
		var fresh *sessionState // the first event reuses the state read above
		if i == 0 && c.typ != InputMessage {
			fresh = &st
		}
		rc, err := a.applyInput(r.Context(), sid, c, k, p.Events[i], fresh)
		if err != nil {
			if i > 0 {
				err = fmt.Errorf("events[%d] (events before it were applied): %w", i, err)
			}
			a.failInput(w, err, fmt.Sprintf("events[%d]", i))
			return
		}
		out.Receipts = append(out.Receipts, rc)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bp := receiptBufs.Get().(*[]byte)
	*bp = append(appendEventsReceipt((*bp)[:0], &out), '\n')
	_, _ = w.Write(*bp) // copied into the response's buffer
	receiptBufs.Put(bp)
}

// receiptBufs are the buffers POST .../events renders its answer into.
var receiptBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// appendEventsReceipt appends r as json.Marshal renders it.
func appendEventsReceipt(b []byte, r *EventsReceipt) []byte {
	b = appendJSONString(append(b, `{"object":`...), r.Object)
	b = append(b, `,"receipts":`...)
	if r.Receipts == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i, rc := range r.Receipts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(append(b, `{"type":`...), rc.Type)
		b = appendJSONString(append(b, `,"action":`...), rc.Action)
		b = appendJSONString(append(b, `,"turn_id":`...), rc.TurnID)
		if rc.InputID != "" {
			b = appendJSONString(append(b, `,"input_id":`...), rc.InputID)
		}
		if rc.DeliveryID != "" {
			b = appendJSONString(append(b, `,"delivery_id":`...), rc.DeliveryID)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// failInput answers a refused input event naming it.
func (a *API) failInput(w http.ResponseWriter, err error, param string) {
	var rf *v1Refusal
	if errors.As(err, &rf) {
		d := rf.detail
		if d.Param == nil {
			d.Param = &param
		}
		if rf.status != http.StatusTooManyRequests && rf.status < 500 {
			w.Header().Set("X-Should-Retry", "false")
		}
		writeJSON(w, rf.status, V1Error{d})
		return
	}
	if rf := machineRefusal(err); rf != nil {
		failV1(w, rf.status, "", *rf.detail.Code, param, err.Error())
		return
	}
	a.failV1Err(w, err)
}

// applyInput runs one checked input event; st, when given, is the
// Session's state read just before (else it is read here).
func (a *API) applyInput(ctx context.Context, sid string, c checkedInput, key string, raw sessionInput, st0 *sessionState) (Receipt, error) {
	state := func() (sessionState, error) {
		if st0 != nil {
			return *st0, nil
		}
		return a.sessionStateOnly(ctx, sid)
	}
	fp := func() []byte { b, _ := json.Marshal(raw); return b }
	switch c.typ {
	case InputMessage:
		r, err := a.message(ctx, sid, c.message, key)
		// Only a replayed steer is refused turn_terminal here: the first
		// attempt of key found its Turn ended and started the next one
		// under the derived key.
		if key == "" || !turnTerminal(err) {
			return r, err
		}
		return a.startTurn(ctx, sid, c.message, key+" next")
	case InputCancel:
		st, err := state()
		if err != nil {
			return Receipt{}, err
		}
		t, ok := st.active()
		if !ok {
			if st.count == 0 {
				return Receipt{}, &v1Bad{status: http.StatusConflict, code: CodeNoTurn, msg: "the session has no turn to cancel"}
			}
			t = st.turns[len(st.turns)-1] // the last Turn: the machine answers turn_terminal
		}
		return a.call(ctx, key, fp, func(cl core.CallID) core.Event { return core.CancelTurn{Call: cl, Turn: t.ID} },
			func(core.APIResult) Receipt {
				return Receipt{Type: InputCancel, Action: "cancel_requested", TurnID: t.ID}
			})
	case InputToolResult:
		if err := a.turnOfSession(ctx, sid, c.turnID); err != nil {
			return Receipt{}, err
		}
		return a.call(ctx, key, fp, func(cl core.CallID) core.Event {
			return core.SubmitFunctionResult{Call: cl, Turn: c.turnID, CallID: c.callID, Success: c.success, Content: c.content}
		}, func(res core.APIResult) Receipt {
			return Receipt{Type: InputToolResult, Action: "function_result", TurnID: c.turnID, DeliveryID: res.Value.(core.DecisionDelivered).Delivery}
		})
	case InputMCPApproval:
		st, err := a.sessionState(ctx, sid, turnsAll)
		if err != nil {
			return Receipt{}, err
		}
		tid := ""
		for i := len(st.recs) - 1; i >= 0 && tid == ""; i-- {
			for _, ix := range st.recs[i].Interactions {
				if ix.Kind == core.InteractionPermission && ix.ID == c.request {
					tid = st.recs[i].ID
				}
			}
		}
		if tid == "" {
			return Receipt{}, notFound(CodeUnknownInteraction, "", "no permission request %q in this session", c.request)
		}
		return a.call(ctx, key, fp, func(cl core.CallID) core.Event {
			return core.AnswerPermission{Call: cl, Turn: tid, Interaction: c.request, Approved: c.approve, Message: c.reason}
		}, func(res core.APIResult) Receipt {
			return Receipt{Type: InputMCPApproval, Action: "permission_decision", TurnID: tid, DeliveryID: res.Value.(core.DecisionDelivered).Delivery}
		})
	}
	return Receipt{}, fmt.Errorf("unhandled input %q", c.typ)
}

// message delivers a message event in one loop call: it steers into the
// Session's unfinished Turn, or starts the next Turn when all are
// finished (decided on the loop, from the committed state).
func (a *API) message(ctx context.Context, sid string, in wire.MessageInput, key string) (Receipt, error) {
	// A delete waits for this message: the Session is live until the
	// message is delivered.
	a.gone.gate.RLock()
	defer a.gone.gate.RUnlock()
	if err := a.sessionLive(ctx, sid); err != nil {
		return Receipt{}, err
	}
	steered := "" // the Turn the message steered into
	r, err := a.callAt(ctx, key, func() []byte { return messageFingerprint(in) }, func(v server.View, cl core.CallID) core.Event {
		tid, busy, ok := a.activeTurn(v, sid)
		if !ok {
			return nil
		}
		if busy {
			steered = tid
			return core.SteerInput{Call: cl, Turn: tid, Input: in}
		}
		return core.SubmitTurn{Call: cl, Session: sid, Input: in}
	}, func(res core.APIResult) Receipt {
		if steered != "" {
			return Receipt{Type: InputMessage, Action: "steered", TurnID: steered, InputID: res.Value.(core.InputSteered).Input}
		}
		return Receipt{Type: InputMessage, Action: "turn_started", TurnID: res.Value.(core.TurnSubmitted).Turn, InputID: "0"}
	})
	if err != nil {
		var vb *v1Bad
		if errors.As(err, &vb) && vb.code == CodeUnknownSessionV1 {
			err = notFound(CodeUnknownSessionV1, "session_id", "no session %q", sid)
		}
		return r, err
	}
	if r.Action == "turn_started" {
		a.noteTurn(ctx, sid, r.TurnID)
	}
	return r, nil
}

// turnTerminal reports a turn_terminal refusal, answered or replayed.
func turnTerminal(err error) bool {
	return errors.Is(err, core.ErrTurnTerminal) || isRefusal(err, CodeTurnTerminal)
}

func isRefusal(err error, code string) bool {
	var rf *v1Refusal
	return errors.As(err, &rf) && rf.detail.Code != nil && *rf.detail.Code == code
}

// turnOfSession: tid is a Turn of Session sid (404 unknown_turn
// otherwise).
func (a *API) turnOfSession(ctx context.Context, sid, tid string) error {
	ok := false
	if err := a.s.Query(ctx, func(v server.View) {
		rec, found := v.Backend().Turn(tid)
		ok = found && rec.Session == sid
	}); err != nil {
		return err
	}
	if !ok {
		return notFound(CodeUnknownTurn, "turn_id", "no turn %q in session %q", tid, sid)
	}
	return nil
}

// sessionStateOnly reads the Session's open Turns without their creation
// times.
func (a *API) sessionStateOnly(ctx context.Context, sid string) (sessionState, error) {
	var st sessionState
	var ok bool
	if err := a.s.Query(ctx, func(v server.View) { st, ok = a.readSession(v, sid, turnsOpen) }); err != nil {
		return st, err
	}
	if !ok {
		return st, notFound(CodeUnknownSessionV1, "session_id", "no session %q", sid)
	}
	if err := a.sessionLive(ctx, sid); err != nil {
		return st, err
	}
	return st, nil
}

// appendTurnRecord appends r as json.Marshal renders it.
func appendTurnRecord(b []byte, r turnRecordJSON) []byte {
	b = appendJSONString(append(b, `{"session":`...), r.Session)
	return append(strconv.AppendInt(append(b, `,"created_at":`...), r.CreatedAt, 10), '}')
}

package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// The v2 approval requests of app-server that the on-request mode turns
// into permission requests, with the tool each one names.
const (
	methodCommandApproval    = "item/commandExecution/requestApproval"
	methodFileChangeApproval = "item/fileChange/requestApproval"
)

var approvalTools = map[string]string{methodCommandApproval: "shell", methodFileChangeApproval: "apply_patch"}

// Approval decisions of CommandExecutionApprovalDecision and
// FileChangeApprovalDecision.
const (
	decisionAccept  = "accept"
	decisionDecline = "decline"
)

// approvalParams are the members of CommandExecutionRequestApprovalParams
// and FileChangeRequestApprovalParams the adapter reads.
type approvalParams struct {
	ThreadID string  `json:"threadId"`
	TurnID   string  `json:"turnId"`
	ItemID   string  `json:"itemId"`
	Reason   *string `json:"reason"`
}

// approvalResponse is CommandExecutionRequestApprovalResponse and
// FileChangeRequestApprovalResponse.
type approvalResponse struct {
	Decision string `json:"decision"`
}

// askApproval hands an approval request to the Turn owning its native
// turn; it reports false (the caller declines) when the mode is never,
// the request is unreadable or no running Turn owns it.
func (e *Executor) askApproval(m rpcMessage) bool {
	tool, ok := approvalTools[m.Method]
	if !ok || !e.h.approvals() {
		return false
	}
	var p approvalParams
	if json.Unmarshal(m.Params, &p) != nil || p.ItemID == "" {
		return false
	}
	t := e.route(p.ThreadID, p.TurnID)
	return t != nil && t.ask(interactionID(m.ID), m.ID, tool, p, m.Params)
}

// interactionID is the JSON-RPC request ID as text: a string ID
// unquoted, a number as written.
func interactionID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// ask queues the permission request of one approval; false when the Turn
// has ended or the ID is already pending (the caller declines).
func (t *Turn) ask(id string, rpcID json.RawMessage, tool string, p approvalParams, params json.RawMessage) bool {
	t.progress()
	req := wire.PermissionRequest{RequestID: id, Tool: tool, Title: "codex asks to run " + tool + " (item " + p.ItemID + ")", Payload: params}
	if p.Reason != nil {
		req.Detail = *p.Reason
	}
	if wire.Validate(req) != nil {
		return false
	}
	t.mu.Lock()
	if t.ended || t.asks[id] != nil || id == "" {
		t.mu.Unlock()
		return false
	}
	t.asks[id] = rpcID
	t.queue = append(t.queue, agent.Event{Payload: req})
	t.mu.Unlock()
	t.kick()
	return true
}

// withdrawAsks queues a permission_cancel for every unanswered approval,
// in ID order, and forgets them; t.mu is held.
func (t *Turn) withdrawAsks() {
	ids := make([]string, 0, len(t.asks))
	for id := range t.asks {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, compareIDs)
	for _, id := range ids {
		t.queue = append(t.queue, agent.Event{Payload: wire.PermissionCancel{}, InteractionID: id})
	}
	clear(t.asks)
}

// compareIDs orders numeric IDs by value, then the others as text.
func compareIDs(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return int(min(max(x-y, -1), 1))
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// RespondPermission answers the approval request id of this Turn: approved
// is accept, denied decline. It returns nil once the answer is written;
// an unknown, answered or withdrawn ID is ErrNotPending. In the never
// mode it is not qualified.
func (t *Turn) RespondPermission(_ context.Context, id string, d wire.PermissionDecision) error {
	if !t.e.h.approvals() {
		return agent.Unsupported(reasonInteractions)
	}
	t.mu.Lock()
	rpcID, ok := t.asks[id]
	delete(t.asks, id)
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: permission request %q", agent.ErrNotPending, id)
	}
	decision := decisionDecline
	if d.Approved {
		decision = decisionAccept
	}
	if err := t.e.rpc.reply(rpcID, approvalResponse{Decision: decision}); err != nil {
		return fmt.Errorf("codex: answering approval %q: %w", id, err)
	}
	return nil
}

// RespondUserChoice: the adapter emits no user-choice prompt, so in the
// on-request mode no ID is ever pending; in the never mode it is not
// qualified.
func (t *Turn) RespondUserChoice(_ context.Context, id string, _ wire.UserChoiceDecision) error {
	if !t.e.h.approvals() {
		return agent.Unsupported(reasonInteractions)
	}
	return fmt.Errorf("%w: user choice %q", agent.ErrNotPending, id)
}

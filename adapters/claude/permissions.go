package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// ask turns the CLI's can_use_tool request into a permission_request of
// the Turn, whose interaction ID is the control request ID; false when
// the Turn has ended, is not live or the request is unreadable (the
// caller denies it).
func (t *Turn) ask(id string, req canUseTool) bool {
	input := req.Input
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage(`{}`)
	}
	title := req.Title
	if title == "" {
		title = "claude asks to use " + req.ToolName
	}
	p := wire.PermissionRequest{RequestID: id, Tool: req.ToolName, Title: title, Detail: req.Description, Payload: input}
	if id == "" || req.ToolName == "" || wire.Validate(p) != nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	if t.ended || !t.live || t.asks[id] != nil {
		return false
	}
	t.asks[id] = input
	t.stall.Stop() // waiting for an answer is not a stall
	t.pushLocked(p)
	return true
}

// withdraw handles the CLI's control_cancel_request for a pending
// can_use_tool: the request is withdrawn with a permission_cancel.
func (t *Turn) withdraw(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	if _, ok := t.asks[id]; !ok || t.ended {
		return
	}
	delete(t.asks, id)
	t.pushLocked(wire.PermissionCancel{})
	t.queue[len(t.queue)-1].InteractionID = id
	t.progressLocked()
}

// withdrawAllLocked queues a permission_cancel for every unanswered
// request, in ID order, and forgets them; t.mu is held.
func (t *Turn) withdrawAllLocked() {
	ids := make([]string, 0, len(t.asks))
	for id := range t.asks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		t.queue = append(t.queue, agent.Event{Payload: wire.PermissionCancel{}, InteractionID: id})
	}
	clear(t.asks)
}

// RespondPermission answers the can_use_tool request id of this Turn:
// approved is allow (with the updated input when given, else the
// requested one), denied is deny with the decision's message. It returns
// nil once the answer is written; an unknown, answered or withdrawn ID is
// ErrNotPending.
func (t *Turn) RespondPermission(_ context.Context, id string, d wire.PermissionDecision) error {
	t.mu.Lock()
	input, ok := t.asks[id]
	delete(t.asks, id)
	if ok {
		t.progressLocked()
	}
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: permission request %q", agent.ErrNotPending, id)
	}
	var answer any
	if d.Approved {
		if len(d.UpdatedInput) > 0 {
			input = d.UpdatedInput
		}
		answer = permissionAllow{Behavior: "allow", UpdatedInput: input}
	} else {
		msg := d.Message
		if msg == "" {
			msg = "denied by the user"
		}
		answer = permissionDeny{Behavior: "deny", Message: msg}
	}
	if err := t.e.reply(id, answer); err != nil {
		return fmt.Errorf("claude: answering permission request %q: %w", id, err)
	}
	return nil
}

// RespondUserChoice: the question tool is removed, so the CLI never asks
// a user choice and no ID is ever pending.
func (t *Turn) RespondUserChoice(_ context.Context, id string, _ wire.UserChoiceDecision) error {
	return fmt.Errorf("%w: user choice %q", agent.ErrNotPending, id)
}

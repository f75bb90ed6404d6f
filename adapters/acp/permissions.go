package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// pendingPermission is one session/request_permission awaiting its answer.
type pendingPermission struct {
	rpcID   json.RawMessage
	options []permissionOption
}

// interactionID names an agent request by its JSON-RPC id.
func interactionID(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return "acp-" + s
	}
	return "acp-" + string(id)
}

// ask takes the agent's session/request_permission for the Turn: with a
// profile that hands permissions to the Turn it becomes a
// permission_request (interaction ID from the JSON-RPC id); otherwise it
// is answered with the agent's allow option at once (the profile runs
// tools unattended). After a cancel it is answered cancelled, as ACP
// requires. False when the Turn has ended or the request is unreadable
// (the caller answers cancelled).
func (t *Turn) ask(id json.RawMessage, p permissionParams) bool {
	iid := interactionID(id)
	input := p.ToolCall.RawInput
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage(`{}`)
	}
	title := p.ToolCall.Title
	if title == "" {
		title = "the agent asks to use a tool"
	}
	tool := p.ToolCall.Kind
	if tool == "" {
		tool = "tool"
	}
	req := wire.PermissionRequest{RequestID: iid, Tool: tool, Title: title, Payload: input}
	if len(id) == 0 || len(p.Options) == 0 || wire.Validate(req) != nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	switch {
	case t.ended, t.asks[iid] != nil:
		return false
	case t.cancelReq:
		go func() { _ = t.e.rpc.reply(id, permissionOutcome{Outcome: permissionChoice{Outcome: "cancelled"}}) }()
		return true
	case !t.e.h.opts.Profile.Permissions:
		choice := pick(p.Options, true)
		go func() { _ = t.e.rpc.reply(id, choice) }()
		return true
	}
	t.asks[iid] = &pendingPermission{rpcID: id, options: p.Options}
	t.stall.Stop() // waiting for an answer is not a stall
	t.pushLocked(req)
	return true
}

// pick answers with the first option of the wanted kind: allow_once before
// allow_always, reject_once before reject_always; with none of them the
// request is answered cancelled.
func pick(options []permissionOption, allow bool) permissionOutcome {
	kinds := []string{optionRejectOnce, optionRejectAlways}
	if allow {
		kinds = []string{optionAllowOnce, optionAllowAlways}
	}
	for _, k := range kinds {
		if i := slices.IndexFunc(options, func(o permissionOption) bool { return o.Kind == k }); i >= 0 {
			return permissionOutcome{Outcome: permissionChoice{Outcome: "selected", OptionID: options[i].OptionID}}
		}
	}
	return permissionOutcome{Outcome: permissionChoice{Outcome: "cancelled"}}
}

// takeAsksLocked forgets every pending request, queueing a
// permission_cancel for each in ID order; t.mu is held.
func (t *Turn) takeAsksLocked() []*pendingPermission {
	ids := make([]string, 0, len(t.asks))
	for id := range t.asks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]*pendingPermission, 0, len(ids))
	for _, id := range ids {
		out = append(out, t.asks[id])
		if !t.ended {
			t.queue = append(t.queue, agent.Event{Payload: wire.PermissionCancel{}, InteractionID: id})
		}
	}
	clear(t.asks)
	return out
}

// withdrawAllLocked withdraws every unanswered request at the Turn's end
// and answers it cancelled; t.mu is held.
func (t *Turn) withdrawAllLocked() {
	asks := t.takeAsksLocked()
	if len(asks) == 0 {
		return
	}
	go func() {
		for _, a := range asks {
			_ = t.e.rpc.reply(a.rpcID, permissionOutcome{Outcome: permissionChoice{Outcome: "cancelled"}})
		}
	}()
}

// RespondPermission answers the agent's permission request id of this
// Turn: approved selects its allow option (allow_once first), denied its
// reject option (reject_once first). It returns nil once the answer is
// written; an unknown, answered or withdrawn ID is ErrNotPending. Updated
// input cannot be passed through ACP and is refused.
func (t *Turn) RespondPermission(_ context.Context, id string, d wire.PermissionDecision) error {
	if !t.e.h.opts.Profile.Permissions {
		return agent.Unsupported(reasonPermissions)
	}
	t.mu.Lock()
	a, ok := t.asks[id]
	if ok && d.Approved && len(d.UpdatedInput) > 0 {
		t.mu.Unlock()
		return agent.Unsupported(reasonUpdatedInput)
	}
	delete(t.asks, id)
	if ok {
		t.progressLocked()
	}
	t.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: permission request %q", agent.ErrNotPending, id)
	}
	if err := t.e.rpc.reply(a.rpcID, pick(a.options, d.Approved)); err != nil {
		return fmt.Errorf("acp: answering permission request %q: %w", id, err)
	}
	return nil
}

// RespondUserChoice: ACP v1 has no user choice request, so no ID is ever
// pending.
func (t *Turn) RespondUserChoice(_ context.Context, id string, _ wire.UserChoiceDecision) error {
	if !t.e.h.opts.Profile.Permissions {
		return agent.Unsupported(reasonPermissions)
	}
	return fmt.Errorf("%w: user choice %q", agent.ErrNotPending, id)
}

package codex

import (
	"encoding/json"

	"github.com/turnstile-sim/turnstile/wire"
)

// Server requests the adapter answers itself. Approvals are declined
// unless the on-request mode hands them to their Turn (askApproval);
// every other request is refused as unsupported.
var declines = map[string]any{
	methodCommandApproval:    approvalResponse{Decision: decisionDecline},
	methodFileChangeApproval: approvalResponse{Decision: decisionDecline},
	"execCommandApproval":    map[string]any{"decision": "denied"},
	"applyPatchApproval":     map[string]any{"decision": "denied"},
}

const rpcMethodNotFound = -32601

// handle runs on the read loop for every notification and server request,
// in app-server's order. Notifications are routed to the Turn whose native
// ID they carry; anything of another thread or turn (a late event of a
// settled Turn) is dropped.
func (e *Executor) handle(m rpcMessage) {
	if len(m.ID) > 0 {
		if e.askApproval(m) {
			return
		}
		if answer, ok := declines[m.Method]; ok {
			_ = e.rpc.reply(m.ID, answer)
		} else {
			_ = e.rpc.replyError(m.ID, rpcMethodNotFound, "not supported by this client")
		}
		return
	}
	switch m.Method {
	case notifyTurnStarted, notifyTurnCompleted:
		var n turnNotification
		if json.Unmarshal(m.Params, &n) != nil {
			return
		}
		if m.Method == notifyTurnStarted {
			e.noteStarted(n.ThreadID, n.Turn.ID)
		}
		if t := e.route(n.ThreadID, n.Turn.ID); t != nil {
			if m.Method == notifyTurnStarted {
				t.onStarted()
			} else {
				t.onCompleted(n.Turn)
			}
		}
	case notifyItemStarted, notifyItemCompleted:
		var n itemNotification
		if json.Unmarshal(m.Params, &n) != nil {
			return
		}
		if m.Method == notifyItemCompleted && n.Item.Type == itemTypeUserMessage {
			e.markRecorded(n.ThreadID)
		}
		if t := e.route(n.ThreadID, n.TurnID); t != nil {
			t.onItem(m.Method == notifyItemStarted, n.Item)
		}
	case notifyAgentDelta, notifyReasoningDelta:
		var n deltaNotification
		if json.Unmarshal(m.Params, &n) != nil {
			return
		}
		if t := e.route(n.ThreadID, n.TurnID); t != nil {
			if m.Method == notifyAgentDelta {
				t.onDelta(n.ItemID, n.Delta)
			} else {
				t.onThinking(n.Delta)
			}
		}
	case notifyTokenUsage:
		var n tokenUsageNotification
		if json.Unmarshal(m.Params, &n) != nil {
			return
		}
		if t := e.route(n.ThreadID, n.TurnID); t != nil {
			t.onUsage(usageOf(n.TokenUsage.Total))
		}
	case notifyError:
		var n errorNotification
		if json.Unmarshal(m.Params, &n) != nil {
			return
		}
		if t := e.route(n.ThreadID, n.TurnID); t != nil {
			t.onError(n)
		}
	}
}

// route returns the active Turn when the notification is its own.
func (e *Executor) route(threadID, turnID string) *Turn {
	e.mu.Lock()
	t := e.active
	ok := t != nil && threadID == e.threadID
	e.mu.Unlock()
	if !ok || turnID == "" || t.nativeTurnID() != turnID {
		return nil
	}
	return t
}

// noteStarted remembers the last turn/started of the thread, so that a
// turn/started arriving before turn/start's answer still counts.
func (e *Executor) noteStarted(threadID, turnID string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if threadID == e.threadID {
		e.lastStarted = turnID
	}
}

// startedEarly reports whether turnID's turn/started was already seen.
func (e *Executor) startedEarly(turnID string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastStarted == turnID
}

// markRecorded notes that the thread's rollout holds a user message, so
// that thread/resume can find it: only then is its ID reported.
func (e *Executor) markRecorded(threadID string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if threadID == e.threadID {
		e.recorded = true
	}
}

// nativeSession returns the thread ID once it is resumable.
func (e *Executor) nativeSession() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.recorded {
		return ""
	}
	return e.threadID
}

// usageOf renders a cumulative token usage snapshot.
func usageOf(b tokenUsageBreakdown) wire.Usage {
	in, out := int32(min(b.InputTokens, 1<<31-1)), int32(min(b.OutputTokens, 1<<31-1))
	return wire.Usage{
		Tokens: &wire.TokenUsage{InputTokens: b.InputTokens, CachedInputTokens: b.CachedInputTokens, OutputTokens: b.OutputTokens,
			ReasoningOutputTokens: b.ReasoningOutputTokens, TotalTokens: b.TotalTokens},
		InputTokens:  &in,
		OutputTokens: &out,
	}
}

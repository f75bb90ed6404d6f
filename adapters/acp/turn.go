package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Turn is one session/prompt and everything the agent streams for it until
// the prompt's answer. The read loop feeds it updates and the answer; a
// pump goroutine writes its events to the caller's output in order,
// closes the output after done and then settles the Turn.
type Turn struct {
	e     *Executor
	runID string
	out   chan<- agent.Event

	wake      chan struct{} // capacity 1: the queue changed
	settledCh chan struct{}
	settle    agent.TurnSettlement // written before settledCh closes

	mu        sync.Mutex
	cancelReq bool
	stalled   bool // the adapter's deadline cancelled the Turn
	ended     bool
	queue     []agent.Event
	outcome   agent.CancellationOutcome
	sequence  uint64
	messages  int    // agent messages seen (a fallback item ID)
	item      string // the current agent message's item ID
	lastKind  string // the previous update's kind
	tools     map[string]string
	observed  map[string]wire.ToolObservation // tool call ID → its observation so far
	receipts  map[string]*receipt             // by steer input ID
	steers    map[string]int                  // steer state by input ID
	accepted  []string                        // accepted steers not yet proven applied, in order
	echoes    []EchoedMessage                 // replayed user messages not bound to a steer, in order
	started   map[string]bool                 // native message IDs started or answered
	prompt    string                          // the prompt's text
	prompted  bool                            // the prompt's replay was seen
	asks      map[string]*pendingPermission   // by interaction ID
	stall     *time.Timer
	grace     *time.Timer
}

func newTurn(e *Executor, req agent.TurnRequest) *Turn {
	t := &Turn{
		e: e, runID: req.RunID, out: req.Output,
		wake: make(chan struct{}, 1), settledCh: make(chan struct{}),
		tools: map[string]string{}, observed: map[string]wire.ToolObservation{}, receipts: map[string]*receipt{}, steers: map[string]int{}, started: map[string]bool{}, asks: map[string]*pendingPermission{},
	}
	t.stall = time.AfterFunc(e.h.opts.Stall, t.onStall)
	return t
}

func (t *Turn) kick() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// pushLocked queues one event; t.mu is held.
func (t *Turn) pushLocked(p wire.Payload) {
	if t.ended {
		return
	}
	switch p := p.(type) {
	case wire.Delta:
		t.outcome.Content += p.Delta
	case wire.UsageUpdate:
		u := p.Usage
		t.outcome.Usage = &u
	}
	t.queue = append(t.queue, agent.Event{Payload: p})
}

// pump writes queued events to the output in order; after the terminal
// events it closes the output once and settles.
func (t *Turn) pump() {
	for {
		t.mu.Lock()
		batch, ended := t.queue, t.ended
		t.queue = nil
		t.mu.Unlock()
		for _, ev := range batch {
			ev.RunID = t.runID
			t.out <- ev
		}
		if ended {
			break
		}
		<-t.wake
	}
	close(t.out)
	t.e.settled(t, t.settle)
	close(t.settledCh)
}

// progressLocked re-arms the adapter's deadline (paused while a
// permission request waits for its answer); t.mu is held.
func (t *Turn) progressLocked() {
	if t.ended || t.stalled {
		return
	}
	t.stall.Stop()
	if len(t.asks) == 0 {
		t.stall.Reset(t.e.h.opts.Stall)
	}
}

// onUpdate handles one session/update of the Turn's session.
func (t *Turn) onUpdate(u sessionUpdate) {
	t.e.markRecorded()
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	if t.ended {
		return
	}
	t.progressLocked()
	kind := u.SessionUpdate
	defer func() { t.lastKind = kind }()
	switch kind {
	case updateAgentMessage:
		text, ok := textOf(u.Content)
		if !ok || text == "" {
			return
		}
		switch {
		case u.MessageID != "":
			t.item = u.MessageID
		case t.item == "" || t.lastKind != updateAgentMessage:
			t.messages++
			t.item = "acp-message-" + strconv.Itoa(t.messages)
		}
		t.sequence++
		t.pushLocked(wire.Delta{ItemID: t.item, Delta: text, Sequence: t.sequence})
	case updateAgentThought:
		if text, ok := textOf(u.Content); ok && text != "" {
			t.sequence++
			t.pushLocked(wire.Thinking{Text: text, Sequence: t.sequence})
		}
	case updateToolCall:
		if u.ToolCallID == "" {
			return
		}
		if _, seen := t.tools[u.ToolCallID]; !seen {
			t.tools[u.ToolCallID] = toolName(u)
			o := observeToolCall(u)
			t.observed[u.ToolCallID] = o
			t.pushLocked(wire.ToolCall{ID: u.ToolCallID, Name: t.tools[u.ToolCallID], Stage: wire.ToolStageBefore, Observation: &o})
		}
		t.toolStatusLocked(u)
	case updateToolUpdate:
		t.toolStatusLocked(u)
	}
}

// toolName names a tool call: its kind (read, edit, execute, ...), else
// its title.
func toolName(u sessionUpdate) string {
	if u.Kind != "" {
		return u.Kind
	}
	if u.Title != "" {
		return u.Title
	}
	return "tool"
}

// toolStatusLocked emits tool_call after, with its observation, once a
// known tool call completed or failed; t.mu is held.
func (t *Turn) toolStatusLocked(u sessionUpdate) {
	if u.Status != toolCompleted && u.Status != toolFailed {
		return
	}
	if name, ok := t.tools[u.ToolCallID]; ok && name != "" {
		t.tools[u.ToolCallID] = ""
		o := observeToolEnd(t.observed[u.ToolCallID], u)
		delete(t.observed, u.ToolCallID)
		t.pushLocked(wire.ToolCall{ID: u.ToolCallID, Name: name, Stage: wire.ToolStageAfter, Observation: &o})
	}
}

// onAnswer is the prompt's answer (on the read loop): the Turn ends with
// its usage and stop reason, or with the error the agent answered.
func (t *Turn) onAnswer(raw json.RawMessage, err error) {
	if err == nil {
		t.e.markRecorded()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	if t.ended {
		return
	}
	var rpcErr *rpcError
	switch {
	case errors.As(err, &rpcErr):
		re := classify(rpcErr)
		t.failLocked(&re)
		t.endLocked(agent.Reuse())
		return
	case err != nil:
		// The connection ended or broke before the answer: onEnd settles.
		return
	}
	var r promptResult
	if json.Unmarshal(raw, &r) != nil {
		t.failLocked(&wire.RunError{Error: "acp: undecodable prompt answer"})
		t.endLocked(agent.Retire("acp agent answered a prompt malformed"))
		return
	}
	if r.Usage != nil {
		t.pushLocked(wire.UsageUpdate{Usage: usageOf(*r.Usage)})
	}
	switch {
	case r.StopReason == stopEndTurn:
		t.outcome.Completed = true
	case r.StopReason == stopCancelled && t.cancelReq && !t.stalled:
		// Our cancel.
	case r.StopReason == stopCancelled:
		t.failLocked(&wire.RunError{Error: "acp: the agent cancelled the turn"})
	default:
		t.failLocked(&wire.RunError{Error: "acp: turn ended: " + stopName(r.StopReason)})
	}
	t.endLocked(agent.Reuse())
}

// stopName is a fixed name for a stop reason (an unknown one is not
// echoed).
func stopName(s string) string {
	switch s {
	case stopMaxTokens, stopRefusal, "max_turn_requests":
		return s
	}
	return "unknown stop reason"
}

// failLocked records the Turn's failure; the adapter's deadline wins.
func (t *Turn) failLocked(re *wire.RunError) {
	if t.stalled {
		st := stallError()
		re = &st
	}
	t.outcome.Completed = false
	t.pushLocked(*re)
}

func usageOf(u promptUsage) wire.Usage {
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.CachedReadTokens + u.CachedWriteTokens + u.OutputTokens
	}
	in := u.InputTokens + u.CachedReadTokens + u.CachedWriteTokens
	in32, out32 := int32(min(in, 1<<31-1)), int32(min(u.OutputTokens, 1<<31-1))
	return wire.Usage{
		Tokens: &wire.TokenUsage{InputTokens: in, CachedInputTokens: u.CachedReadTokens,
			OutputTokens: u.OutputTokens, ReasoningOutputTokens: u.ThoughtTokens, TotalTokens: total},
		InputTokens:  &in32,
		OutputTokens: &out32,
	}
}

// onStall is the adapter's deadline: the Turn made no native progress for
// Options.Stall. It is cancelled and fails.
func (t *Turn) onStall() {
	t.mu.Lock()
	if t.ended || len(t.asks) > 0 {
		t.mu.Unlock()
		return
	}
	t.stalled = true
	t.mu.Unlock()
	t.requestCancel()
}

// onEnd settles a Turn whose agent exited, or whose connection broke,
// before the prompt's answer.
func (t *Turn) onEnd(broken error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	if t.ended {
		return
	}
	switch {
	case broken != nil:
		t.failLocked(&wire.RunError{Error: "acp: malformed JSON-RPC from the agent"})
		t.endLocked(agent.Retire("acp agent broke the JSON-RPC connection"))
	default:
		if !t.cancelReq || t.stalled {
			t.failLocked(&wire.RunError{Error: "acp: the agent exited during the turn"})
		}
		t.endLocked(agent.Retire("acp agent exited"))
	}
}

// finish ends the Turn from outside the read loop.
func (t *Turn) finish(s agent.TurnSettlement, re *wire.RunError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	if t.ended {
		return
	}
	if re != nil || t.stalled {
		if re == nil {
			re = &wire.RunError{}
		}
		t.failLocked(re)
	}
	t.endLocked(s)
}

// endLocked queues the terminal events (a permission_cancel for each
// unanswered request, done) once and resolves every pending receipt
// unknown: the Turn ended without proof that its input was applied.
func (t *Turn) endLocked(s agent.TurnSettlement) {
	if t.ended {
		return
	}
	t.stall.Stop()
	if t.grace != nil {
		t.grace.Stop()
	}
	if session := t.e.nativeSession(); session != "" {
		t.outcome.NativeSessionID, t.outcome.NativeSessionType = session, t.e.h.Kind()
	}
	t.withdrawAllLocked()
	t.pushLocked(t.outcome.Done())
	t.ended = true
	t.settle = s
	for _, r := range t.receipts {
		r.Resolve(ErrApplyUnknown)
	}
}

// Cancel sends session/cancel for exactly this Turn and returns without
// waiting; the Turn settles on the prompt's answer (stopReason
// cancelled), and the same process runs the next Turn.
func (t *Turn) Cancel(context.Context) error {
	t.requestCancel()
	return nil
}

// requestCancel sends session/cancel once, answers every pending
// permission request cancelled (as ACP requires), and bounds the wait for
// the prompt's answer by the grace period: an agent that does not answer
// is retired.
func (t *Turn) requestCancel() {
	t.mu.Lock()
	if t.ended || t.cancelReq {
		t.mu.Unlock()
		return
	}
	t.cancelReq = true
	t.grace = time.AfterFunc(t.e.h.opts.Grace, func() {
		t.finish(agent.Retire("acp agent did not answer the prompt after session/cancel"), nil)
	})
	asks := t.takeAsksLocked()
	t.mu.Unlock()
	for _, a := range asks {
		_ = t.e.rpc.reply(a.rpcID, permissionOutcome{Outcome: permissionChoice{Outcome: "cancelled"}})
	}
	if err := t.e.rpc.notify(methodSessionCancel, cancelParams{SessionID: t.e.session}); err != nil {
		t.finish(agent.Retire("acp session/cancel not written"), nil)
	}
}

// CancellationOutcome returns the observed snapshot without waiting.
func (t *Turn) CancellationOutcome() agent.CancellationOutcome {
	session := t.e.nativeSession()
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.outcome
	if o.NativeSessionID == "" && session != "" {
		o.NativeSessionID, o.NativeSessionType = session, t.e.h.Kind()
	}
	if o.Usage != nil {
		u := *o.Usage
		o.Usage = &u
	}
	return o
}

// AwaitSettlement waits for the Turn's settlement within ctx.
func (t *Turn) AwaitSettlement(ctx context.Context) (agent.TurnSettlement, error) {
	select {
	case <-t.settledCh:
		return t.settle, nil
	case <-ctx.Done():
		return agent.TurnSettlement{}, fmt.Errorf("%w: %w", agent.ErrNotSettled, ctx.Err())
	}
}

// RunID is the Turn's Run ID.
func (t *Turn) RunID() string { return t.runID }

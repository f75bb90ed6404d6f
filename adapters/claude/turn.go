package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Input states of one user message the Turn wrote (its initial input or
// a steer), as the CLI reports them.
const (
	inputWritten   = iota // written to stdin, no lifecycle yet
	inputQueued           // command_lifecycle queued
	inputStarted          // command_lifecycle started: consumed by a native turn
	inputDone             // listed in a result: its native turn ended
	inputCancelled        // command_lifecycle cancelled: it never runs
)

// Turn is one user message and everything the CLI does for it, until
// every input the Turn wrote is settled: a native turn consumed it and
// ended with a result, or the CLI cancelled it. The read loop feeds it
// lines; a pump goroutine writes its events to the caller's output in
// order, closes the output after done and then settles the Turn.
type Turn struct {
	e     *Executor
	runID string
	uuid  string // the initial input's uuid
	out   chan<- agent.Event

	wake      chan struct{} // capacity 1: the queue changed
	settledCh chan struct{}
	settle    agent.TurnSettlement // written before settledCh closes

	mu        sync.Mutex
	live      bool // the initial input started: native output is this Turn's
	cancelReq bool
	stalled   bool // the adapter's deadline interrupted the Turn
	ended     bool
	inputs    map[string]int // uuid → input state
	queue     []agent.Event
	outcome   agent.CancellationOutcome
	sequence  uint64
	usage     resultUsage
	cost      float64
	results   int
	failure   *wire.RunError // the last failed result's error
	apiErr    string         // the last assistant error type (SDKAssistantMessageError)
	apiStatus int            // the last API error status seen (assistant or api_retry)
	retried   bool           // an api_retry was seen
	message   string         // the current API message ID (delta item)
	tools     map[string]string
	observed  map[string]wire.ToolObservation // tool_use ID → its before observation
	receipts  map[string]*receipt             // by input uuid
	byInput   map[string]*receipt             // by steer input ID
	asks      map[string]json.RawMessage      // pending can_use_tool: request ID → tool input
	stall     *time.Timer
	grace     *time.Timer
}

func newTurn(e *Executor, req agent.TurnRequest) *Turn {
	t := &Turn{
		e: e, runID: req.RunID, uuid: newUUID(), out: req.Output,
		wake: make(chan struct{}, 1), settledCh: make(chan struct{}),
		inputs: map[string]int{}, tools: map[string]string{}, observed: map[string]wire.ToolObservation{},
		receipts: map[string]*receipt{}, asks: map[string]json.RawMessage{},
	}
	t.stall = time.AfterFunc(e.h.opts.Stall, t.onStall)
	t.registerLocked(t.uuid, nil)
	return t
}

// registerLocked records uuid as one of the Turn's inputs, before it is
// written; t.mu is held.
func (t *Turn) registerLocked(uuid string, r *receipt) {
	t.inputs[uuid] = inputWritten
	if r != nil {
		t.receipts[uuid] = r
	}
}

// writeInput writes one user message carrying uuid.
func (t *Turn) writeInput(uuid, text string) error {
	return t.e.write(userLine{Type: typeUser, UUID: uuid, Message: userMessage{Role: "user", Content: text}})
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

// onMessage handles one stdout line while the Turn is active.
func (t *Turn) onMessage(m outMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	if t.ended {
		return
	}
	switch m.Type {
	case typeCommandLifecycle:
		t.onLifecycle(m.CommandUUID, m.State)
		return
	case typeSystem:
		if m.Subtype == subtypeAPIRetry {
			t.retried = true
			if m.ErrorStatus != nil {
				t.apiStatus = *m.ErrorStatus
			}
		}
		return
	}
	if !t.live {
		return // output of a native turn this Turn did not start
	}
	switch m.Type {
	case typeStreamEvent:
		if m.ParentToolID != nil && *m.ParentToolID != "" {
			return
		}
		t.progressLocked()
		t.onStreamEvent(m)
	case typeAssistant:
		t.progressLocked()
		if s := m.errorString(); s != "" {
			t.apiErr = s
			if m.APIErrorStatus != nil {
				t.apiStatus = *m.APIErrorStatus
			}
		}
		t.onSnapshot(m.Message, true)
	case typeUser:
		t.progressLocked()
		t.onSnapshot(m.Message, false)
	case typeResult:
		t.onResult(m)
	}
}

func (t *Turn) onLifecycle(uuid, state string) {
	cur, ok := t.inputs[uuid]
	if !ok {
		return
	}
	switch state {
	case lifecycleQueued:
		if cur == inputWritten {
			t.inputs[uuid] = inputQueued
		}
	case lifecycleStarted:
		t.progressLocked()
		if cur < inputStarted {
			t.inputs[uuid] = inputStarted
		}
		t.appliedLocked(uuid)
		if uuid == t.uuid && !t.live {
			t.live = true
			t.e.markRecorded()
		}
	case lifecycleCancelled:
		if cur < inputStarted {
			t.inputs[uuid] = inputCancelled
			if r := t.receipts[uuid]; r != nil {
				r.Resolve(fmt.Errorf("%w: the CLI cancelled the queued input", agent.ErrTurnInactive))
			}
		}
	}
	t.maybeEndLocked()
}

func (t *Turn) onStreamEvent(m outMessage) {
	var ev streamEvent
	if json.Unmarshal(m.Event, &ev) != nil {
		return
	}
	switch ev.Type {
	case "message_start":
		t.message = ev.Message.ID
	case "content_block_delta":
		item := t.message
		if item == "" {
			item = m.APIMessageID
		}
		switch ev.Delta.Type {
		case "text_delta":
			if ev.Delta.Text != "" {
				t.sequence++
				t.pushLocked(wire.Delta{ItemID: item, Delta: ev.Delta.Text, Sequence: t.sequence})
			}
		case "thinking_delta":
			if ev.Delta.Thinking != "" {
				t.sequence++
				t.pushLocked(wire.Thinking{Text: ev.Delta.Thinking, Sequence: t.sequence})
			}
		}
	}
}

// onSnapshot turns tool_use blocks into tool_call before and tool_result
// blocks into tool_call after, each with its engine-neutral observation.
func (t *Turn) onSnapshot(raw json.RawMessage, assistant bool) {
	var s snapshot
	if json.Unmarshal(raw, &s) != nil {
		return
	}
	for _, b := range s.Content {
		switch {
		case assistant && b.Type == "tool_use" && b.ID != "" && b.Name != "":
			if _, seen := t.tools[b.ID]; seen {
				continue
			}
			t.tools[b.ID] = b.Name
			o := observeToolUse(b.Name, b.Input)
			t.observed[b.ID] = o
			t.pushLocked(wire.ToolCall{ID: b.ID, Name: b.Name, Stage: wire.ToolStageBefore, Observation: &o})
		case !assistant && b.Type == "tool_result":
			if name, ok := t.tools[b.ToolUseID]; ok && name != "" {
				t.tools[b.ToolUseID] = ""
				o := observeToolResult(t.observed[b.ToolUseID], b.IsError, b.Result)
				delete(t.observed, b.ToolUseID)
				t.pushLocked(wire.ToolCall{ID: b.ToolUseID, Name: name, Stage: wire.ToolStageAfter, Observation: &o})
			}
		}
	}
}

// onResult ends one native turn: the inputs it lists are done (and
// applied), its usage adds to the Turn's, a failure is classified from
// its structured fields.
func (t *Turn) onResult(m outMessage) {
	listed := m.UserMessageUUIDs
	ours := len(listed) == 0
	for _, uuid := range listed {
		_, mine := t.inputs[uuid]
		ours = ours || mine
	}
	if !ours {
		return // the result of a native turn this Turn did not start
	}
	if len(listed) == 0 {
		for uuid, st := range t.inputs {
			if st == inputStarted {
				listed = append(listed, uuid)
			}
		}
	}
	for _, uuid := range listed {
		if _, ok := t.inputs[uuid]; ok {
			t.inputs[uuid] = inputDone
			t.appliedLocked(uuid)
		}
	}
	t.results++
	if u := m.Usage; u != nil {
		t.usage.InputTokens += u.InputTokens
		t.usage.OutputTokens += u.OutputTokens
		t.usage.CacheReadInputTokens += u.CacheReadInputTokens
		t.usage.CacheCreationInputTokens += u.CacheCreationInputTokens
		if m.TotalCostUSD != nil {
			t.cost += *m.TotalCostUSD
		}
		t.pushLocked(wire.UsageUpdate{Usage: t.usageLocked()})
	}
	aborted := m.TerminalReason == terminalAborted || m.TerminalReason == terminalAbortedTools
	switch {
	case t.stalled:
		re := t.stallError()
		t.failure = &re
	case !m.IsError && m.TerminalReason != "" && m.TerminalReason != terminalCompleted:
		// A native end that is not a completion (stop hook, max turns...).
		t.failure = &wire.RunError{Error: "claude: turn ended: " + m.TerminalReason}
	case !m.IsError:
		t.failure = nil
		t.outcome.Completed = true
	case aborted && t.cancelReq && !t.stalled:
		t.failure = nil // our cancel
	default:
		re := t.classifyLocked(m)
		t.failure = &re
	}
	if t.cancelReq {
		// After an interrupt the first result ends the Turn; inputs the
		// CLI neither ran nor cancelled stay unknown.
		t.endLocked(t.settlementLocked())
		return
	}
	t.maybeEndLocked()
}

// maybeEndLocked ends the Turn once every input is settled: done after
// its result, or cancelled. An input written but never started keeps the
// Turn open (it runs as the next native turn, which belongs to this Turn).
func (t *Turn) maybeEndLocked() {
	if t.ended {
		return
	}
	for _, st := range t.inputs {
		if st != inputDone && st != inputCancelled {
			return
		}
	}
	t.endLocked(agent.Reuse())
}

// settlementLocked is the settlement of a Turn ended after an interrupt:
// reusable unless an input may still run natively.
func (t *Turn) settlementLocked() agent.TurnSettlement {
	for _, st := range t.inputs {
		if st == inputWritten || st == inputQueued || st == inputStarted {
			return agent.Retire("claude input may still run after the interrupt")
		}
	}
	return agent.Reuse()
}

func (t *Turn) usageLocked() wire.Usage {
	u := t.usage
	in, out := int32(min(u.InputTokens, 1<<31-1)), int32(min(u.OutputTokens, 1<<31-1))
	w := wire.Usage{
		Tokens: &wire.TokenUsage{InputTokens: u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
			CachedInputTokens: u.CacheReadInputTokens, OutputTokens: u.OutputTokens,
			TotalTokens: u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens + u.OutputTokens},
		InputTokens:  &in,
		OutputTokens: &out,
	}
	if t.cost > 0 {
		c := t.cost
		w.CostUSD = &c
	}
	return w
}

// onStall is the adapter's deadline: the Turn made no native progress for
// Options.Stall. It is interrupted and fails.
func (t *Turn) onStall() {
	t.mu.Lock()
	if t.ended || len(t.asks) > 0 {
		t.mu.Unlock()
		return
	}
	t.stalled = true
	t.mu.Unlock()
	t.requestInterrupt()
}

// onExit settles a Turn whose CLI exited before its result.
func (t *Turn) onExit() {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	if t.ended {
		return
	}
	if !t.cancelReq || t.stalled {
		t.failure = &wire.RunError{Error: "claude: the CLI exited during the turn"}
	}
	t.endLocked(agent.Retire("claude CLI exited"))
}

// finish ends the Turn from outside the read loop.
func (t *Turn) finish(s agent.TurnSettlement, re *wire.RunError, completed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.kick()
	if t.ended {
		return
	}
	if re != nil {
		t.failure = re
	}
	t.outcome.Completed = t.outcome.Completed || completed
	t.endLocked(s)
}

// endLocked queues the terminal events (a permission_cancel for each
// unanswered request, the error, done) once and resolves every pending
// receipt: an input without proof of application stays unknown.
func (t *Turn) endLocked(s agent.TurnSettlement) {
	if t.ended {
		return
	}
	t.stall.Stop()
	if t.grace != nil {
		t.grace.Stop()
	}
	if t.stalled && t.failure == nil {
		re := t.stallError()
		t.failure = &re
	}
	if session := t.e.nativeSession(); session != "" {
		t.outcome.NativeSessionID, t.outcome.NativeSessionType = session, Kind
	}
	t.withdrawAllLocked()
	if t.failure != nil {
		t.outcome.Completed = false
		t.pushLocked(*t.failure)
	}
	t.pushLocked(t.outcome.Done())
	t.ended = true
	t.settle = s
	for _, r := range t.receipts {
		r.Resolve(ErrApplyUnknown)
	}
}

// Cancel requests an interrupt of exactly this Turn and returns without
// waiting; the Turn settles on the CLI's result (or, when the CLI
// cancelled every input before it ran, at once).
func (t *Turn) Cancel(context.Context) error {
	t.requestInterrupt()
	return nil
}

// requestInterrupt sends interrupt once, cancelling queued inputs too, and
// bounds the wait for the result by the grace period: a CLI that does not
// settle is retired.
func (t *Turn) requestInterrupt() {
	t.mu.Lock()
	if t.ended || t.cancelReq {
		t.mu.Unlock()
		return
	}
	t.cancelReq = true
	t.grace = time.AfterFunc(t.e.h.opts.Grace, func() {
		t.finish(agent.Retire("claude did not settle after an interrupt"), nil, false)
	})
	t.mu.Unlock()
	go func() {
		if _, _, err := t.e.sendControl(interruptRequest{Subtype: "interrupt", CancelQueued: true}); err != nil {
			t.finish(agent.Retire("claude interrupt not written"), nil, false)
		}
	}()
}

// CancellationOutcome returns the observed snapshot without waiting: the
// session ID (once resumable), the content streamed so far and the usage.
func (t *Turn) CancellationOutcome() agent.CancellationOutcome {
	session := t.e.nativeSession()
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.outcome
	if o.NativeSessionID == "" && session != "" {
		o.NativeSessionID, o.NativeSessionType = session, Kind
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

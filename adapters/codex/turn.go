package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Turn is one turn/start on the Executor's thread. The read loop feeds it
// notifications; a pump goroutine writes its events to the caller's output
// in order, closes the output after done and then settles the Turn.
type Turn struct {
	e     *Executor
	runID string
	out   chan<- agent.Event

	wake      chan struct{} // capacity 1: the queue changed
	settledCh chan struct{}
	settle    agent.TurnSettlement // written before settledCh closes

	mu         sync.Mutex
	nativeID   string
	started    bool // turn/started seen
	cancelReq  bool
	interrupt  bool                       // turn/interrupt sent
	ended      bool                       // the terminal events are queued
	aborted    bool                       // turn/start was refused: nothing ran
	queue      []agent.Event              // RunID is set by the pump
	asks       map[string]json.RawMessage // pending approvals: interaction ID → JSON-RPC request ID
	outcome    agent.CancellationOutcome
	sequence   uint64
	streamed   map[string]bool // agentMessage items that had deltas
	begun      map[string]bool // agentMessage items whose in_progress output message was emitted
	receipts   map[string]*receipt
	retryTimer *time.Timer
	stalled    *turnError // the retried error that exhausted the budget
}

func newTurn(e *Executor, req agent.TurnRequest) *Turn {
	return &Turn{
		e: e, runID: req.RunID, out: req.Output,
		wake: make(chan struct{}, 1), settledCh: make(chan struct{}),
		streamed: make(map[string]bool), begun: make(map[string]bool), receipts: make(map[string]*receipt),
		asks: make(map[string]json.RawMessage),
	}
}

func (t *Turn) nativeTurnID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nativeID
}

// onStartAnswer runs on the read loop with turn/start's answer, before any
// notification of the turn is handled.
func (t *Turn) onStartAnswer(result json.RawMessage, err error) error {
	if err != nil {
		return err // a refusal, or errConnClosed: then the exit settles the Turn
	}
	var res turnStartResponse
	if json.Unmarshal(result, &res) != nil || res.Turn.ID == "" {
		t.finish(agent.Retire("turn/start answer unreadable"), wire.RunError{Error: "codex: turn/start answered without a turn ID"})
		return nil
	}
	t.mu.Lock()
	t.nativeID = res.Turn.ID
	t.mu.Unlock()
	if t.e.startedEarly(res.Turn.ID) {
		t.onStarted()
	}
	return nil
}

// abort ends a Turn whose turn/start app-server refused: nothing ran, the
// output stays the caller's.
func (t *Turn) abort() {
	t.mu.Lock()
	t.aborted, t.ended = true, true
	t.mu.Unlock()
	t.e.release(t)
	t.kick()
}

func (t *Turn) kick() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// push queues one event (dropped once the terminal events are queued).
func (t *Turn) push(p wire.Payload) {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.observe(p)
	t.queue = append(t.queue, agent.Event{Payload: p})
	t.mu.Unlock()
	t.kick()
}

// observe records p in the continuity snapshot; t.mu is held.
func (t *Turn) observe(p wire.Payload) {
	switch p := p.(type) {
	case wire.Delta:
		t.outcome.Content += p.Delta
	case wire.UsageUpdate:
		u := p.Usage
		t.outcome.Usage = &u
	}
}

func (t *Turn) nextSequence() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sequence++
	return t.sequence
}

// pump writes queued events to the output in order; after the terminal
// events it closes the output once and settles. finish queues the
// terminal events and sets ended under one lock, so the batch taken with
// ended set is the last.
func (t *Turn) pump() {
	for {
		t.mu.Lock()
		batch, ended, aborted := t.queue, t.ended, t.aborted
		t.queue = nil
		t.mu.Unlock()
		if aborted {
			close(t.settledCh)
			return
		}
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

func (t *Turn) onStarted() {
	t.mu.Lock()
	t.started = true
	send := t.cancelReq && !t.interrupt
	if send {
		t.interrupt = true
	}
	t.mu.Unlock()
	if send {
		t.sendInterrupt()
	}
}

// sendInterrupt writes turn/interrupt. A refusal while the Turn is still
// running (app-server not yet treating it as active) is retried after
// interruptRetry.
func (t *Turn) sendInterrupt() {
	_, _ = t.e.rpc.send(methodTurnInterrupt, turnInterruptParams{ThreadID: t.e.threadID, TurnID: t.nativeTurnID()},
		func(_ json.RawMessage, err error) {
			var refused *rpcError
			if !errors.As(err, &refused) {
				return
			}
			time.AfterFunc(interruptRetry, func() {
				t.mu.Lock()
				ended := t.ended
				t.mu.Unlock()
				if !ended {
					t.sendInterrupt()
				}
			})
		})
}

const interruptRetry = 100 * time.Millisecond

func (t *Turn) onDelta(itemID, delta string) {
	t.progress()
	t.mu.Lock()
	t.streamed[itemID] = true
	t.mu.Unlock()
	t.push(wire.Delta{ItemID: itemID, Delta: delta, Sequence: t.nextSequence()})
}

func (t *Turn) onThinking(delta string) {
	t.progress()
	t.push(wire.Thinking{Text: delta, Sequence: t.nextSequence()})
}

func (t *Turn) onUsage(u wire.Usage) { t.push(wire.UsageUpdate{Usage: u}) }

// onItem turns items into events: the userMessage echo applies a steered
// input; an agentMessage without deltas becomes one delta and, when
// messages are observed, output messages (in_progress when it starts,
// completed with its text when it completes, each with the native
// phase); tool items become tool calls carrying their observation.
func (t *Turn) onItem(started bool, it threadItem) {
	t.progress()
	switch it.Type {
	case itemTypeUserMessage:
		if it.ClientID != nil {
			t.applied(*it.ClientID)
		}
	case itemTypeAgentMessage:
		if started {
			t.beginMessage(it)
			return
		}
		t.mu.Lock()
		streamed := t.streamed[it.ID]
		t.mu.Unlock()
		if t.e.nc.observeMessages {
			t.beginMessage(it) // a completion app-server reported without its start
		}
		if !streamed && it.Text != "" {
			t.push(wire.Delta{ItemID: it.ID, Delta: it.Text, Sequence: t.nextSequence()})
		}
		if t.e.nc.observeMessages {
			text := it.Text
			t.push(wire.OutputMessage{ID: it.ID, Status: wire.OutputStatusCompleted, Phase: phaseOf(it), Text: &text})
		}
	default:
		if c, ok := toolCallOf(it, started); ok {
			t.push(c)
		}
	}
}

// beginMessage emits the in_progress output message of an agentMessage
// once, when messages are observed.
func (t *Turn) beginMessage(it threadItem) {
	if !t.e.nc.observeMessages || it.ID == "" {
		return
	}
	t.mu.Lock()
	begun := t.begun[it.ID]
	t.begun[it.ID] = true
	t.mu.Unlock()
	if !begun {
		t.push(wire.OutputMessage{ID: it.ID, Status: wire.OutputStatusInProgress, Phase: phaseOf(it)})
	}
}

// phaseOf is the agentMessage's native MessagePhase (commentary,
// partial_answer, final_answer), or "" when app-server reports none (the
// phase is unknown).
func phaseOf(it threadItem) string {
	if it.Phase == nil {
		return ""
	}
	return *it.Phase
}

// onError handles app-server's error notification: a retried error arms
// the retry budget; once it is spent without progress the Turn is
// interrupted and reported as connection_failed.
func (t *Turn) onError(n errorNotification) {
	if !n.WillRetry {
		return // turn/completed carries the failure
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.retryTimer != nil || t.ended {
		return
	}
	te := n.Error
	t.retryTimer = time.AfterFunc(t.e.h.opts.RetryBudget, func() {
		t.mu.Lock()
		t.stalled = &te
		t.mu.Unlock()
		t.requestInterrupt()
	})
}

// progress disarms the retry budget.
func (t *Turn) progress() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.retryTimer != nil && t.stalled == nil {
		t.retryTimer.Stop()
		t.retryTimer = nil
	}
}

// onCompleted settles the Turn from turn/completed.
func (t *Turn) onCompleted(nt turn) {
	t.mu.Lock()
	stalled := t.stalled
	if nt.Status == turnStatusCompleted {
		t.outcome.Completed = true
	}
	t.mu.Unlock()
	var tail []wire.Payload
	switch {
	case nt.Status == turnStatusFailed && nt.Error != nil:
		tail = append(tail, runErrorOf(*nt.Error))
	case nt.Status == turnStatusFailed:
		tail = append(tail, wire.RunError{Error: "codex: turn failed"})
	case nt.Status == turnStatusInterrupted && stalled != nil:
		re := runErrorOf(*stalled)
		if re.Code == "" {
			re.Code = wire.EngineConnectionFailed
		}
		tail = append(tail, re)
	}
	t.finish(agent.Reuse(), tail...)
}

// onExit settles a Turn whose app-server exited before turn/completed.
func (t *Turn) onExit() {
	t.finish(agent.Retire("codex app-server exited"), wire.RunError{Error: "codex: app-server exited during the turn"})
}

// finish queues the terminal events (a permission_cancel for each
// unanswered approval, tail, then done) once and resolves every pending
// receipt: an input without its echo stays unknown.
func (t *Turn) finish(s agent.TurnSettlement, tail ...wire.Payload) {
	session := t.e.nativeSession()
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	if t.retryTimer != nil {
		t.retryTimer.Stop()
	}
	if session != "" {
		t.outcome.NativeSessionID, t.outcome.NativeSessionType = session, Kind
	}
	t.withdrawAsks()
	for _, p := range tail {
		t.observe(p)
		t.queue = append(t.queue, agent.Event{Payload: p})
	}
	t.queue = append(t.queue, agent.Event{Payload: t.outcome.Done()})
	t.ended = true
	t.settle = s
	for _, r := range t.receipts {
		r.Resolve(ErrApplyUnknown)
	}
	t.mu.Unlock()
	t.kick()
}

// Cancel requests turn/interrupt of exactly this Turn and returns without
// waiting. Before turn/started the interrupt is deferred until it arrives
// (app-server refuses an interrupt with no active turn). Settlement follows
// turn/completed.
func (t *Turn) Cancel(context.Context) error {
	t.requestInterrupt()
	return nil
}

func (t *Turn) requestInterrupt() {
	t.mu.Lock()
	if t.ended || t.cancelReq && t.interrupt {
		t.mu.Unlock()
		return
	}
	t.cancelReq = true
	send := t.started && !t.interrupt
	if send {
		t.interrupt = true
	}
	t.mu.Unlock()
	if send {
		go t.sendInterrupt()
	}
}

// CancellationOutcome returns the observed snapshot without waiting: the
// thread ID (once resumable), the content streamed so far and the last
// usage.
func (t *Turn) CancellationOutcome() agent.CancellationOutcome {
	session := t.e.nativeSession()
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.outcome
	if o.NativeSessionID == "" {
		if s := session; s != "" {
			o.NativeSessionID, o.NativeSessionType = s, Kind
		}
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

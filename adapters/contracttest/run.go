package contracttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// run is one StartTurn with its caller-owned output channel and the
// consumer that drains it, started before the native start.
type run struct {
	runID    string
	turn     agent.Turn
	startErr error
	out      chan agent.Event
	closed   chan struct{} // closed when the consumer saw the channel close
	// observeTools: the kind declares tool_observations, so every
	// tool_call carries its observation. observeMessages: the
	// configuration sets observe_messages, so output messages report
	// their start (in_progress) before their completion, and none is
	// emitted without it.
	observeTools, observeMessages bool
	// caps is the kind's declaration: a subagent observation from a kind
	// not declaring subagent_observations breaks the stream's shape.
	caps wire.AgentKindCapabilities

	mu     sync.Mutex
	events []agent.Event
}

func (r *run) consume() {
	for ev := range r.out {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
	}
	close(r.closed)
}

func (r *run) snapshot() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.events...)
}

// started reports whether StartTurn returned a Turn without an error.
func (r *run) started() bool { return r.turn != nil && r.startErr == nil }

// outputClosed waits up to window for the consumer to see the close.
func (r *run) outputClosed(window time.Duration) bool { return waitClosed(r.closed, window) }

// contains reports whether any event of the run renders text.
func (r *run) contains(text string) bool {
	for _, ev := range r.snapshot() {
		if strings.Contains(eventText(ev), text) {
			return true
		}
	}
	return false
}

// deltaText is the text the run's deltas streamed, in order.
func (r *run) deltaText() string {
	var b strings.Builder
	for _, ev := range r.snapshot() {
		if d, ok := ev.Payload.(wire.Delta); ok {
			b.WriteString(d.Delta)
		}
	}
	return b.String()
}

func eventText(ev agent.Event) string {
	switch p := ev.Payload.(type) {
	case wire.Delta:
		return p.Delta
	case wire.Thinking:
		return p.Text
	case wire.Done:
		return p.Content
	case wire.RunError:
		return p.Error
	case nil:
		return ""
	default:
		b, _ := json.Marshal(p)
		return string(b)
	}
}

// start runs StartTurn and applies the nil-Turn rule: for a nil Turn it
// proves within the window that the adapter neither wrote nor closed the
// output, then closes it as its owner.
func start(rep *Report, fx Fixture, ex agent.Executor, runID string, in wire.MessageInput) *run {
	r := &run{runID: runID, out: make(chan agent.Event, wire.OutputFramesMax), closed: make(chan struct{}),
		observeTools: fx.Capabilities.ToolObservations.IsSupported(), observeMessages: fx.Config.Configuration.ObserveMessages,
		caps: fx.Capabilities}
	go r.consume()
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	r.turn, r.startErr = ex.StartTurn(ctx, agent.TurnRequest{RunID: runID, Input: in, Output: r.out})
	if r.started() {
		rep.started++
	} else if rep.startErr == nil && !errors.Is(r.startErr, agent.ErrInvalidRequest) && in.Validate() == nil {
		rep.startErr = fmt.Errorf("%s: %w", runID, r.startErr)
	}
	if r.turn != nil {
		return r
	}
	rep.exercise(ClauseNilTurn)
	if r.startErr == nil {
		rep.fail(ClauseNilTurn, runID, "StartTurn returned a nil Turn without an error")
	}
	if r.outputClosed(fx.Window) {
		rep.fail(ClauseNilTurn, runID, "nil Turn but the adapter closed the caller's output channel")
		return r
	}
	if n := len(r.snapshot()); n > 0 {
		rep.fail(ClauseNilTurn, runID, "nil Turn but the adapter wrote %d events to the caller's output", n)
	}
	close(r.out)
	<-r.closed
	return r
}

// settle awaits settlement and checks what success promises: the output is
// closed and the settlement is well formed.
func settle(rep *Report, fx Fixture, r *run) (agent.TurnSettlement, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	rep.exercise(ClauseSettlement)
	s, err := r.turn.AwaitSettlement(ctx)
	if err != nil {
		rep.fail(ClauseSettlement, r.runID, "AwaitSettlement: %v", err)
		return s, false
	}
	if !r.outputClosed(fx.Window) {
		rep.fail(ClauseSettlement, r.runID, "settlement reported while the output channel was still open")
	}
	if !s.Reusable {
		rep.exercise(ClauseRetire)
	}
	if err := s.Validate(); err != nil {
		c := ClauseSettlement
		if !s.Reusable {
			c = ClauseRetire
		}
		rep.fail(c, r.runID, "%v", err)
	}
	return s, true
}

// checkStream checks one Turn's events: its Run ID, run-output payloads,
// increasing delta sequences, nothing but usage after an error, and Done
// as the single last event (required when requireDone). Under a declared
// tool_observations every tool_call carries its engine-neutral
// observation; with observe_messages each output message starts
// (in_progress) before it completes, once each, and without it no output
// message is emitted.
func checkStream(rep *Report, r *run, requireDone bool) (wire.Done, bool) {
	events := r.snapshot()
	rep.exercise(ClauseStreamShape)
	rep.exercise(ClauseIndependentStreams)
	var done wire.Done
	var seq uint64
	sawDone, sawError := false, false
	messages := map[string]string{} // output message ID → last status
	for i, ev := range events {
		if err := ev.ValidateFor(r.caps); err != nil {
			rep.fail(ClauseStreamShape, r.runID, "event %d: %v", i, err)
			continue
		}
		if ev.RunID != r.runID {
			rep.fail(ClauseIndependentStreams, r.runID, "event %d carries another Run ID", i)
		}
		if sawDone {
			rep.fail(ClauseStreamShape, r.runID, "event %d (%s) after done", i, ev.Payload.MessageType())
			continue
		}
		switch p := ev.Payload.(type) {
		case wire.Done:
			sawDone, done = true, p
		case wire.RunError:
			sawError = true
		case wire.Delta:
			if p.Sequence != 0 && p.Sequence <= seq {
				rep.fail(ClauseStreamShape, r.runID, "delta sequence %d not increasing", p.Sequence)
			}
			seq = max(seq, p.Sequence)
		case wire.ToolCall:
			if r.observeTools && p.Observation == nil {
				rep.fail(ClauseStreamShape, r.runID, "tool_call %q (%s) without the observation its declared tool_observations promises", p.ID, p.Stage)
			}
		case wire.OutputMessage:
			checkOutputMessage(rep, r, messages, p)
		}
		if sawError && !ev.Terminal() && ev.Payload.MessageType() != wire.TypeUsage &&
			ev.Payload.MessageType() != wire.TypeError {
			rep.fail(ClauseStreamShape, r.runID, "event %d (%s) after error", i, ev.Payload.MessageType())
		}
	}
	if requireDone && !sawDone {
		rep.fail(ClauseStreamShape, r.runID, "stream ended without done")
	}
	return done, sawDone
}

// checkOutputMessage judges one output message against the ones before
// it (messages: ID → last status).
func checkOutputMessage(rep *Report, r *run, messages map[string]string, p wire.OutputMessage) {
	last := messages[p.ID]
	messages[p.ID] = p.Status
	switch {
	case !r.observeMessages:
		rep.fail(ClauseStreamShape, r.runID, "output_message %q although observe_messages is not set", p.ID)
	case p.Status == wire.OutputStatusInProgress && last != "":
		rep.fail(ClauseStreamShape, r.runID, "output_message %q started again (after %s)", p.ID, last)
	case p.Status == wire.OutputStatusCompleted && last != wire.OutputStatusInProgress:
		rep.fail(ClauseStreamShape, r.runID, "output_message %q completed without its in_progress start", p.ID)
	}
}

// newExecutor prepares an Executor or reports why it could not.
func newExecutor(rep *Report, f agent.ExecutorFactory, fx Fixture) agent.Executor {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	ex, err := f.NewExecutor(ctx, fx.Config)
	if err != nil || ex == nil {
		rep.fail(ClauseFixture, "NewExecutor", "%v", err)
		return nil
	}
	return ex
}

// closeExecutor closes ex and reports a failure.
func closeExecutor(rep *Report, fx Fixture, ex agent.Executor) bool {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	rep.exercise(ClauseClose)
	if err := ex.Close(ctx); err != nil {
		rep.fail(ClauseClose, "Close", "%v", err)
		return false
	}
	return true
}

func cancelTurn(rep *Report, fx Fixture, r *run) {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	defer cancel()
	if err := r.turn.Cancel(ctx); err != nil {
		rep.fail(ClauseCancelExact, r.runID, "Cancel: %v", err)
	}
}

// cancelPromptly cancels and checks that Cancel returned within the window
// without waiting for settlement.
func cancelPromptly(rep *Report, fx Fixture, r *run) {
	returned := make(chan struct{})
	var err error
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
		defer cancel()
		err = r.turn.Cancel(ctx)
		close(returned)
	}()
	if !waitClosed(returned, fx.Window) {
		rep.fail(ClauseSettlement, r.runID, "Cancel waited for settlement (did not return within %v)", fx.Window)
		<-returned
	}
	if err != nil {
		rep.fail(ClauseCancelExact, r.runID, "Cancel: %v", err)
	}
}

func waitClosed(c <-chan struct{}, window time.Duration) bool {
	timer := time.NewTimer(window)
	defer timer.Stop()
	select {
	case <-c:
		return true
	case <-timer.C:
		return false
	}
}

// sameObject reports whether two Turns are one object; Turns of
// incomparable types are distinct by construction.
func sameObject(a, b agent.Turn) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

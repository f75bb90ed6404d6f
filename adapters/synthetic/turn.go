package synthetic

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Turn is one synthetic input execution. A goroutine plays its script; the
// Turn closes its output exactly once and then settles.
type Turn struct {
	e      *Executor
	runID  string
	out    chan<- agent.Event
	script TurnScript

	cancelOnce sync.Once
	cancelCh   chan struct{}
	steerCh    chan struct{} // wakes the native loop; capacity 1
	settledCh  chan struct{}
	settlement agent.TurnSettlement // written before settledCh closes

	mu       sync.Mutex
	outcome  agent.CancellationOutcome
	ended    bool
	receipts map[string]*receipt
	pending  []*receipt
	sequence uint64

	answerCh chan struct{} // wakes the native loop on an answer; capacity 1
	asks     []*ask        // interactions emitted (interaction.go)
}

func newTurn(e *Executor, req agent.TurnRequest, script TurnScript) *Turn {
	return &Turn{
		e:         e,
		runID:     req.RunID,
		out:       req.Output,
		script:    script,
		cancelCh:  make(chan struct{}),
		steerCh:   make(chan struct{}, 1),
		settledCh: make(chan struct{}),
		receipts:  make(map[string]*receipt),
		answerCh:  make(chan struct{}, 1),
	}
}

// run plays the script for the submitted input text.
func (t *Turn) run(text string) {
	t.mu.Lock()
	t.outcome.NativeSessionID = t.nativeSession()
	t.outcome.NativeSessionType = Kind
	t.mu.Unlock()
	cancelled := !t.stream(text)
	if cancelled && t.script.CancelLatency > 0 {
		timer := time.NewTimer(t.script.CancelLatency)
		<-timer.C
	}
	if !cancelled {
		if t.script.Usage != nil {
			u := *t.script.Usage
			t.emitTerminal(wire.UsageUpdate{Usage: u})
		}
		if t.script.Error != nil {
			t.emitTerminal(*t.script.Error)
		}
	}
	t.emitTerminal(t.done(!cancelled))
	settlement := agent.Reuse()
	if t.script.Retire != "" {
		settlement = agent.Retire(t.script.Retire)
	}
	t.finish(settlement)
	if t.script.LateDelta != "" {
		t.lateCallback(wire.Delta{Delta: t.script.LateDelta})
	}
}

// lateCallback is a native callback that fires after the Turn ended. It
// captured this Turn before the native work began, so it can reach no
// other Turn; this one has closed its output and drops it.
func (t *Turn) lateCallback(p wire.Payload) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	t.out <- agent.Event{RunID: t.runID, Payload: p}
}

// stream emits the thinking and deltas and holds when scripted. It returns
// false once cancelled.
func (t *Turn) stream(text string) bool {
	s := t.script
	if s.Thinking != "" && !t.emitPaced(wire.Thinking{Text: s.Thinking}) {
		return false
	}
	deltas := s.Deltas
	if deltas == nil && !s.Hold {
		deltas = []string{text}
	}
	for _, d := range deltas {
		if !t.emitPaced(wire.Delta{Delta: d}) {
			return false
		}
	}
	if !t.emitAsks() {
		return false
	}
	if s.Hold && !t.pause(nil) {
		return false
	}
	return t.applyPending()
}

// abandon ends a Turn whose start failed after its input was submitted.
func (t *Turn) abandon() {
	t.finish(agent.Retire("start outcome unknown"))
}

func (t *Turn) nativeSession() string {
	if t.script.NativeSessionID != "" {
		return t.script.NativeSessionID
	}
	return t.e.nativeSession
}

func (t *Turn) nextSequence() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sequence++
	return t.sequence
}

func (t *Turn) done(completed bool) wire.Done {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.outcome.Completed = completed
	return t.outcome.Done()
}

// emitPaced waits the scripted interval, then emits; false once cancelled.
// A delta's sequence is taken when it is emitted, never before the wait:
// steered input applied during the wait emits its own delta first, and
// sequences follow emission order.
func (t *Turn) emitPaced(p wire.Payload) bool {
	if t.script.EventInterval > 0 {
		timer := time.NewTimer(t.script.EventInterval)
		defer timer.Stop()
		if !t.pause(timer.C) {
			return false
		}
	}
	if d, ok := p.(wire.Delta); ok {
		d.Sequence = t.nextSequence()
		p = d
	}
	select {
	case t.out <- agent.Event{RunID: t.runID, Payload: p}:
		t.observe(p)
		return true
	case <-t.cancelCh:
		return false
	}
}

// emitTerminal emits unconditionally: the consumer drains until close.
func (t *Turn) emitTerminal(p wire.Payload) {
	t.observe(p)
	t.out <- agent.Event{RunID: t.runID, Payload: p}
}

func (t *Turn) observe(p wire.Payload) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch p := p.(type) {
	case wire.Delta:
		t.outcome.Content += p.Delta
	case wire.UsageUpdate:
		u := p.Usage
		t.outcome.Usage = &u
	}
}

// pause waits for until (nil: forever), applying steered input meanwhile.
// It returns false once cancelled.
func (t *Turn) pause(until <-chan time.Time) bool {
	for {
		select {
		case <-until:
			return true
		case <-t.cancelCh:
			return false
		case <-t.steerCh:
			if !t.applyPending() {
				return false
			}
		}
	}
}

// applyPending applies written inputs in order; false once cancelled.
func (t *Turn) applyPending() bool {
	for {
		t.mu.Lock()
		if len(t.pending) == 0 {
			t.mu.Unlock()
			return true
		}
		r := t.pending[0]
		t.pending = t.pending[1:]
		t.mu.Unlock()
		if t.script.SteerApplyLatency > 0 {
			timer := time.NewTimer(t.script.SteerApplyLatency)
			select {
			case <-timer.C:
			case <-t.cancelCh:
				timer.Stop()
				t.requeue(r)
				return false
			}
		}
		t.e.h.record(func(tr *Truth) { tr.InputsApplied = append(tr.InputsApplied, r.text) })
		close(r.applied)
		if !t.emitPaced(wire.Delta{Delta: r.text}) {
			return false
		}
	}
}

func (t *Turn) requeue(r *receipt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = append([]*receipt{r}, t.pending...)
}

// finish ends native work, closes the output once and settles.
func (t *Turn) finish(s agent.TurnSettlement) {
	t.mu.Lock()
	t.ended = true
	for _, r := range t.pending {
		r.err = fmt.Errorf("%w: turn ended before applying input", agent.ErrTurnInactive)
		close(r.applied)
	}
	t.pending = nil
	t.mu.Unlock()
	close(t.out)
	t.e.settled(t, s)
	t.settlement = s
	close(t.settledCh)
}

// Cancel requests cancellation of this Turn only; it does not wait.
func (t *Turn) Cancel(context.Context) error {
	t.cancelOnce.Do(func() { close(t.cancelCh) })
	return nil
}

// CancellationOutcome returns the observed snapshot without waiting.
func (t *Turn) CancellationOutcome() agent.CancellationOutcome {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.outcome
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
		return t.settlement, nil
	case <-ctx.Done():
		return agent.TurnSettlement{}, fmt.Errorf("%w: %w", agent.ErrNotSettled, ctx.Err())
	}
}

// receipt is the durable receipt of one written input.
type receipt struct {
	inputID string
	text    string
	applied chan struct{}
	err     error // written before applied closes
}

// AwaitApplied waits for native application within ctx.
func (r *receipt) AwaitApplied(ctx context.Context) error {
	select {
	case <-r.applied:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SteerDurable writes in to the native queue; the returned receipt reports
// its native application.
func (t *Turn) SteerDurable(ctx context.Context, in agent.SteerInput) (agent.AppliedReceipt, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	text, err := in.Input.TextOnly()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agent.Unsupported(reasonImages), err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.receipts[in.InputID]; ok {
		if r.text != text {
			return nil, agent.ErrInputConflict
		}
		return r, nil
	}
	if t.ended || t.cancelRequested() {
		return nil, agent.ErrTurnInactive
	}
	r := &receipt{inputID: in.InputID, text: text, applied: make(chan struct{})}
	t.receipts[in.InputID] = r
	t.pending = append(t.pending, r)
	select {
	case t.steerCh <- struct{}{}:
	default:
	}
	return r, nil
}

// Steer writes non-durable input; it returns once the write completed.
func (t *Turn) Steer(ctx context.Context, in agent.SteerInput) error {
	_, err := t.SteerDurable(ctx, in)
	return err
}

func (t *Turn) cancelRequested() bool {
	select {
	case <-t.cancelCh:
		return true
	default:
		return false
	}
}

package example

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// Turn is one input execution. Its goroutine plays the engine's native
// work; every callback writes to this Turn only (it was captured before
// the work began), the output closes once and settlement follows.
type Turn struct {
	x      *Executor
	runID  string
	out    chan<- agent.Event
	b      Behaviour
	cancel chan struct{}
	once   sync.Once
	wake   chan struct{}
	done   chan struct{}
	result agent.TurnSettlement // written before done closes

	mu       sync.Mutex
	outcome  agent.CancellationOutcome
	ended    bool
	seq      uint64
	receipts map[string]*receipt
	pending  []*receipt
}

func newTurn(x *Executor, req agent.TurnRequest, b Behaviour) *Turn {
	return &Turn{x: x, runID: req.RunID, out: req.Output, b: b, cancel: make(chan struct{}),
		wake: make(chan struct{}, 1), done: make(chan struct{}), receipts: map[string]*receipt{},
		outcome: agent.CancellationOutcome{NativeSessionID: x.native, NativeSessionType: Kind}}
}

// run streams the words, applies steered input and ends the Turn.
func (t *Turn) run(words []string) {
	live := true
	for i, w := range words {
		if live = t.emit(w); !live {
			break
		}
		if t.b.Exit && i == 0 {
			t.end(&wire.RunError{Error: "native process exited"})
			t.finish(agent.Retire("native process exited"), false)
			return
		}
	}
	for live && t.b.Hold {
		live = t.waitInput()
	}
	if live {
		live = t.applyPending()
	}
	if !live && t.b.CancelDelay > 0 {
		sleep(t.b.CancelDelay)
	}
	t.end(nil)
	s := agent.Reuse()
	if t.b.Retire {
		s = agent.Retire("native session cannot continue")
	}
	t.finish(s, live)
	if t.b.Late != "" {
		t.callback(wire.Delta{Delta: t.b.Late})
	}
}

func sleep(d time.Duration) {
	timer := time.NewTimer(d)
	<-timer.C
}

// emit sends one word after the behaviour's interval; false once cancelled.
func (t *Turn) emit(word string) bool {
	if t.b.Interval > 0 {
		timer := time.NewTimer(t.b.Interval)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-t.cancel:
			return false
		}
	}
	t.mu.Lock()
	t.seq++
	d := wire.Delta{Delta: word + " ", Sequence: t.seq}
	t.mu.Unlock()
	select {
	case t.out <- agent.Event{RunID: t.runID, Payload: d}:
	case <-t.cancel:
		return false
	}
	t.mu.Lock()
	t.outcome.Content += d.Delta
	t.mu.Unlock()
	return true
}

// waitInput waits for steered input or a cancel; false once cancelled.
func (t *Turn) waitInput() bool {
	select {
	case <-t.wake:
		return t.applyPending()
	case <-t.cancel:
		return false
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
		t.mu.Unlock()
		if t.b.ApplyDelay > 0 {
			timer := time.NewTimer(t.b.ApplyDelay)
			select {
			case <-timer.C:
			case <-t.cancel:
				timer.Stop()
				return false
			}
		}
		t.mu.Lock()
		t.pending = t.pending[1:]
		t.mu.Unlock()
		t.x.engine.apply(r.text)
		close(r.applied)
		for _, w := range strings.Fields(r.text) {
			if !t.emit(w) {
				return false
			}
		}
	}
}

// end emits the terminal events: an error first when failed, then done.
func (t *Turn) end(failure *wire.RunError) {
	if failure != nil {
		t.out <- agent.Event{RunID: t.runID, Payload: *failure}
	}
	t.mu.Lock()
	done := t.outcome.Done()
	t.mu.Unlock()
	t.out <- agent.Event{RunID: t.runID, Payload: done}
}

// finish closes the output once, decides the receipts and settles.
func (t *Turn) finish(s agent.TurnSettlement, completed bool) {
	t.mu.Lock()
	t.ended, t.outcome.Completed = true, completed
	for _, r := range t.pending {
		r.err = fmt.Errorf("%w: the Turn ended before applying the input", agent.ErrTurnInactive)
		close(r.applied)
	}
	t.pending = nil
	t.mu.Unlock()
	close(t.out)
	t.x.settled(t, s)
	t.result = s
	close(t.done)
}

// callback is a native callback that arrives after the Turn ended: it
// reaches only its own Turn, which drops it.
func (t *Turn) callback(p wire.Payload) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ended {
		t.out <- agent.Event{RunID: t.runID, Payload: p}
	}
}

// Cancel requests the end of this Turn only and returns at once.
func (t *Turn) Cancel(context.Context) error {
	t.once.Do(func() { close(t.cancel) })
	return nil
}

// CancellationOutcome is what was observed so far; it never waits.
func (t *Turn) CancellationOutcome() agent.CancellationOutcome {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.outcome
}

// AwaitSettlement waits for the Turn's end within ctx.
func (t *Turn) AwaitSettlement(ctx context.Context) (agent.TurnSettlement, error) {
	select {
	case <-t.done:
		return t.result, nil
	case <-ctx.Done():
		return agent.TurnSettlement{}, fmt.Errorf("%w: %w", agent.ErrNotSettled, ctx.Err())
	}
}

// receipt reports the native application of one written input.
type receipt struct {
	text    string
	applied chan struct{}
	err     error // written before applied closes
}

// AwaitApplied waits for the native application within ctx.
func (r *receipt) AwaitApplied(ctx context.Context) error {
	select {
	case <-r.applied:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SteerDurable writes input to the running Turn; nil is "written", the
// receipt reports application.
func (t *Turn) SteerDurable(ctx context.Context, in agent.SteerInput) (agent.AppliedReceipt, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	text, err := in.Input.TextOnly()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agent.Unsupported(reasonTextOnly), err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.receipts[in.InputID]; ok {
		if r.text != text {
			return nil, agent.ErrInputConflict
		}
		return r, nil
	}
	select {
	case <-t.cancel:
		return nil, agent.ErrTurnInactive
	default:
	}
	if t.ended {
		return nil, agent.ErrTurnInactive
	}
	r := &receipt{text: text, applied: make(chan struct{})}
	t.receipts[in.InputID] = r
	t.pending = append(t.pending, r)
	select {
	case t.wake <- struct{}{}:
	default:
	}
	return r, nil
}

// Steer writes input like SteerDurable, without handing out the receipt:
// plain steering promises the write, not a report of application.
func (t *Turn) Steer(ctx context.Context, in agent.SteerInput) error {
	_, err := t.SteerDurable(ctx, in)
	return err
}

// SubmitFunctionResult is refused: wordecho has no public functions.
func (t *Turn) SubmitFunctionResult(context.Context, wire.FunctionResult) error {
	return agent.Unsupported(reasonNotQualified)
}

// RespondPermission is refused: wordecho never asks.
func (t *Turn) RespondPermission(context.Context, string, wire.PermissionDecision) error {
	return agent.Unsupported(reasonNotQualified)
}

// RespondUserChoice is refused: wordecho never asks.
func (t *Turn) RespondUserChoice(context.Context, string, wire.UserChoiceDecision) error {
	return agent.Unsupported(reasonNotQualified)
}

// ReadWorkspaceFile is refused: wordecho has no workspace.
func (t *Turn) ReadWorkspaceFile(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonNotQualified)
}

// ListWorkspaceDirectory is refused: wordecho has no workspace.
func (t *Turn) ListWorkspaceDirectory(context.Context, wire.WorkspaceRead) (wire.WorkspaceReadResult, error) {
	return wire.WorkspaceReadResult{}, agent.Unsupported(reasonNotQualified)
}

// WriteWorkspaceFile is refused: wordecho has no workspace.
func (t *Turn) WriteWorkspaceFile(context.Context, agent.WorkspaceFile) error {
	return agent.Unsupported(reasonNotQualified)
}

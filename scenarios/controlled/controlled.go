package controlled

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// Controlled is the controlled Harness adapter the harness steps drive:
// every native call succeeds at once unless a step armed a fault, and a
// Turn runs until a settle step settles it. It serves every kind.
type Controlled struct {
	mu      sync.Mutex
	armed   map[string]int
	turns   []*cTurn
	held    []chan struct{} // hanging calls, answered by release
	applies []chan struct{} // written inputs held before consumption
	// workspaces is the base directory of the Environments' workspaces
	// (workspace.go).
	workspaces string
	// HTTPClient dials the control channel (Serve; nil: the default).
	HTTPClient *http.Client
}

// New returns an adapter with nothing armed.
func New() *Controlled { return &Controlled{armed: map[string]int{}} }

// Executors serves every kind with the controlled factory.
func (c *Controlled) Executors(string) (agent.ExecutorFactory, bool) { return c, true }

func (c *Controlled) arm(action string) { c.mu.Lock(); c.armed[action]++; c.mu.Unlock() }

func (c *Controlled) take(action string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed[action] == 0 {
		return false
	}
	c.armed[action]--
	return true
}

// hang blocks until release (nil) or ctx ends.
func (c *Controlled) hang(ctx context.Context) error {
	ch := make(chan struct{})
	c.mu.Lock()
	c.held = append(c.held, ch)
	c.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Controlled) release() bool {
	c.mu.Lock()
	held := c.held
	c.held = nil
	c.mu.Unlock()
	for _, ch := range held {
		close(ch)
	}
	return len(held) > 0
}

func (c *Controlled) apply() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.applies) == 0 {
		return false
	}
	close(c.applies[0])
	c.applies = c.applies[1:]
	return true
}

// live returns the oldest Turn not yet settled.
func (c *Controlled) live() *cTurn {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.turns {
		select {
		case <-t.settled:
		default:
			return t
		}
	}
	return nil
}

func (c *Controlled) NewExecutor(ctx context.Context, _ agent.ExecutorConfig) (agent.Executor, error) {
	if c.take("hang-setup") {
		if err := c.hang(ctx); err != nil {
			return nil, err
		}
	}
	if c.take("fail-setup") {
		return nil, errors.New("native setup failed")
	}
	return &cExecutor{c: c}, nil
}

type cExecutor struct{ c *Controlled }

func (x *cExecutor) StartTurn(_ context.Context, req agent.TurnRequest) (agent.Turn, error) {
	if x.c.take("fail-start") {
		return nil, fmt.Errorf("%w: native start failed", agent.ErrExecutorUnavailable)
	}
	t := &cTurn{c: x.c, out: req.Output, run: req.RunID, settled: make(chan struct{})}
	x.c.mu.Lock()
	x.c.turns = append(x.c.turns, t)
	x.c.mu.Unlock()
	return t, nil
}

func (x *cExecutor) Close(context.Context) error {
	if x.c.take("close-failure") {
		return fmt.Errorf("%w: native close failed", agent.ErrCloseFailed)
	}
	return nil
}

// cTurn is one native Turn; its output stays open (a late event may
// follow settlement).
type cTurn struct {
	c          *Controlled
	out        chan<- agent.Event
	run        string
	mu         sync.Mutex
	settled    chan struct{}
	closeOut   sync.Once
	settlement agent.TurnSettlement
	outcome    agent.CancellationOutcome
}

func (t *cTurn) emit(p wire.Payload) { t.out <- agent.Event{RunID: t.run, Payload: p} }

func (t *cTurn) settle(s agent.TurnSettlement, o agent.CancellationOutcome, late bool) {
	t.mu.Lock()
	t.settlement, t.outcome = s, o
	t.mu.Unlock()
	close(t.settled)
	if late {
		t.emit(wire.Delta{Delta: "late", Sequence: 999})
	}
	t.closeOut.Do(func() { close(t.out) })
}

// Finish settles every Turn still live, closes every output and answers
// every hanging call, so the daemon can shut down.
func (c *Controlled) Finish() {
	for t := c.live(); t != nil; t = c.live() {
		t.settle(agent.Reuse(), agent.CancellationOutcome{}, false)
	}
	c.release()
}

func (t *cTurn) Cancel(ctx context.Context) error {
	if t.c.take("hang-cancel") {
		return t.c.hang(ctx)
	}
	return nil
}

func (t *cTurn) CancellationOutcome() agent.CancellationOutcome {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.outcome
}

func (t *cTurn) AwaitSettlement(ctx context.Context) (agent.TurnSettlement, error) {
	if t.c.take("hang-settle") {
		if err := t.c.hang(ctx); err != nil {
			return agent.TurnSettlement{}, err
		}
	}
	select {
	case <-t.settled:
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.settlement, nil
	case <-ctx.Done():
		return agent.TurnSettlement{}, ctx.Err()
	}
}

type receipt struct{ applied chan struct{} }

func (r receipt) AwaitApplied(ctx context.Context) error {
	select {
	case <-r.applied:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *cTurn) SteerDurable(ctx context.Context, _ agent.SteerInput) (agent.AppliedReceipt, error) {
	if t.c.take("hang-write") {
		if err := t.c.hang(ctx); err != nil {
			return nil, err
		}
	}
	if t.c.take("uncertain-write") {
		return nil, errors.New("native write outcome unknown")
	}
	r := receipt{applied: make(chan struct{})}
	if t.c.take("hold-apply") {
		t.c.mu.Lock()
		t.c.applies = append(t.c.applies, r.applied)
		t.c.mu.Unlock()
	} else {
		close(r.applied)
	}
	return r, nil
}

// The controlled Turn applies every decision the Runtime routes to it at
// once (the Runtime, not the adapter, refuses what no Turn asked).

func (t *cTurn) RespondPermission(context.Context, string, wire.PermissionDecision) error { return nil }

func (t *cTurn) RespondUserChoice(context.Context, string, wire.UserChoiceDecision) error { return nil }

func (t *cTurn) SubmitFunctionResult(context.Context, wire.FunctionResult) error { return nil }

// Do applies one harness step: a harness action, or "settle". It returns
// a named error when the step cannot apply ("owned" is the host's to
// answer and is refused here).
func (c *Controlled) Do(cmd scenarios.ControlCommand) error {
	switch cmd.Action {
	case "emit":
		t := c.live()
		if t == nil {
			return fmt.Errorf("harness emit: no live native Turn")
		}
		f, err := wire.Decode([]byte(`{"type":"` + cmd.Type + `","id":"native","payload":` + string(cmd.Payload) + `}`))
		if err != nil {
			return fmt.Errorf("harness emit: %v", err)
		}
		t.emit(f.Payload)
	case "release":
		if !c.release() {
			return fmt.Errorf("harness release: no native call is hanging")
		}
	case "apply":
		if !c.apply() {
			return fmt.Errorf("harness apply: no written input is held")
		}
	case "settle":
		return c.settleLive(cmd.Args)
	case "file":
		return c.putFile(cmd)
	default:
		if !slices.Contains(scenarios.HarnessActions, cmd.Action) || slices.Contains([]string{"emit", "release", "apply", "file"}, cmd.Action) {
			return fmt.Errorf("harness: unknown action %q", cmd.Action)
		}
		c.arm(cmd.Action)
	}
	return nil
}

// settleLive settles the oldest live Turn with the step's outcome.
func (c *Controlled) settleLive(args map[string]string) error {
	t := c.live()
	if t == nil {
		return fmt.Errorf("settle: no live native Turn")
	}
	s := agent.Reuse()
	if args["reusable"] == "false" {
		s = agent.Retire(args["reason"])
	}
	t.settle(s, agent.CancellationOutcome{Content: args["content"], NativeSessionID: args["session"]}, c.take("late-event"))
	return nil
}

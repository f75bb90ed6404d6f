package runner

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// Executors is where the native runner finds a kind's Executor factory;
// *agent.Registry implements it.
type Executors interface {
	Executors(kind string) (agent.ExecutorFactory, bool)
}

// Native runs the machine's native calls against real adapters. Every
// call runs on its own goroutine and reports exactly one NativeResult
// through emit; a Turn's output is drained by one consumer goroutine per
// Turn into emit as NativeTurnEvents, and a written input's native
// application is reported as NativeInputApplied. Budgets are the
// machine's timers: Native only reports what the adapter did, whenever it
// did it. A panicking adapter call is that call's failure.
type Native struct {
	// Installer serves the transfer calls (runtime_prepare); set it
	// before the first Run.
	Installer *Installer
	// Metrics counts the calls in flight and their latency, timed with
	// Now (time.Now when nil); set them before the first Run.
	Metrics *Metrics
	Now     func() time.Time

	reg  Executors
	log  *slog.Logger
	ctx  context.Context
	emit func(daemon.Event)

	mu        sync.Mutex
	executors map[string]agent.Executor
	turns     map[daemon.TurnID]*nativeTurn
	wg        sync.WaitGroup
	// open read-only workspace profiles, and the Environment binding
	// (workspace.go)
	readers    map[string]agent.Prepared
	workspaces Workspaces
	// executors no Turn started on yet: unused executable preparations
	// (preparation.go)
	unused map[string]bool
}

// nativeTurn is a started Turn. broken marks a StartTurn that panicked:
// no Turn object exists, its output consumer is stopped, and it settles
// as not reusable so that its executor is closed.
//
// A Turn stays known after its settlement (a late Cancel of a settled
// Turn must still find it, and does nothing) until its executor starts
// the next Turn or is closed.
type nativeTurn struct {
	turn     agent.Turn
	executor string
	broken   bool
}

// Reasons the runner reports for adapter breaches. They are fixed text:
// never a panic value or native diagnostics (those go to the log only).
const (
	reasonPanic       = "adapter panicked"
	reasonNoFactory   = "kind has no executor factory installed"
	reasonNilExecutor = "adapter returned no executor"
	reasonUnknown     = "unknown native target"
	reasonBadSettle   = "adapter returned an invalid settlement"
	reasonStartPanic  = "adapter panicked while starting the turn"
	reasonNotSettled  = "settlement not confirmed"
)

// outputFramesMax is the capacity of a Turn's output channel.
const outputFramesMax = wire.OutputFramesMax

// NewNative returns a runner that calls adapters with ctx (cancelled at a
// hard stop) and reports through emit, which must be safe for concurrent
// use and may block until the event is accepted.
func NewNative(ctx context.Context, reg Executors, log *slog.Logger, emit func(daemon.Event)) *Native {
	return &Native{reg: reg, log: log, ctx: ctx, emit: emit,
		executors: map[string]agent.Executor{}, turns: map[daemon.TurnID]*nativeTurn{}}
}

// Wait waits for every goroutine the runner started (call goroutines,
// output consumers and receipt watchers).
func (n *Native) Wait() { n.wg.Wait() }

// Run starts call c; it never blocks on the adapter.
func (n *Native) Run(c daemon.NativeCall) {
	now := n.Now
	if now == nil {
		now = time.Now
	}
	returned := n.Metrics.nativeStarted(c.Op, now)
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		res := n.do(c)
		returned()
		n.emit(daemon.NativeResult{Call: c.Call, Result: res})
	}()
}

// do runs one call and converts a panic into the call's failure.
func (n *Native) do(c daemon.NativeCall) (res daemon.Result) {
	defer func() {
		if v := recover(); v != nil {
			n.log.Error("adapter panicked", "call", string(c.Call), "op", c.Op.Describe(), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			res = panicResult(c.Op)
		}
	}()
	switch op := c.Op.(type) {
	case daemon.Prepare:
		return n.prepare(op)
	case daemon.StartTurn:
		return n.start(op)
	case daemon.DurableWrite:
		return n.write(op)
	case daemon.Cancel:
		return n.cancel(op)
	case daemon.AwaitSettlement:
		return n.settle(op)
	case daemon.CloseExecutor:
		return n.close(op)
	case daemon.StageChunk, daemon.InstallTransfer, daemon.DiscardTransfer:
		return n.transfer(op)
	case daemon.RespondPermission, daemon.RespondUserChoice, daemon.SubmitFunctionResult:
		return n.decide(op)
	}
	if res, ok := n.workspaceOp(c.Op); ok {
		return res
	}
	panic(fmt.Sprintf("runner: native call of unknown op %T", c.Op))
}

// panicResult is the failure a panicking call reports: the one that
// claims nothing that may not have happened.
func panicResult(op daemon.Op) daemon.Result {
	switch op.(type) {
	case daemon.Prepare:
		return daemon.PrepareResult{Err: reasonPanic}
	case daemon.StartTurn:
		// start recovers its own panic; reaching here means it panicked
		// before input could have been submitted was decided: claim a Turn.
		return daemon.StartResult{Turn: true, Err: reasonStartPanic}
	case daemon.DurableWrite:
		return daemon.WriteResult{Outcome: daemon.WriteUnknown, Err: reasonPanic}
	case daemon.Cancel:
		return daemon.CancelResult{Err: reasonPanic}
	case daemon.AwaitSettlement:
		return daemon.SettleResult{Err: reasonPanic}
	case daemon.CloseExecutor:
		return daemon.CloseResult{Err: reasonPanic}
	case daemon.StageChunk, daemon.InstallTransfer, daemon.DiscardTransfer:
		return transferFailure(op, reasonInstallPanic)
	case daemon.RespondPermission, daemon.RespondUserChoice, daemon.SubmitFunctionResult:
		return daemon.DecisionResult{Outcome: daemon.DecisionFailed, Err: reasonPanic}
	}
	if res, ok := workspacePanic(op); ok {
		return res
	}
	panic(fmt.Sprintf("runner: native call of unknown op %T", op))
}

func (n *Native) executor(id string) agent.Executor {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.executors[id]
}

func (n *Native) turn(id daemon.TurnID) *nativeTurn {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.turns[id]
}

func (n *Native) prepare(op daemon.Prepare) daemon.Result {
	f, ok := n.reg.Executors(op.Kind)
	if !ok {
		return daemon.PrepareResult{Err: reasonNoFactory}
	}
	cfg, err := executorConfig(op, n.Installer)
	if err != nil {
		return daemon.PrepareResult{Err: err.Error()}
	}
	if cfg.WorkspaceRoot, err = n.executorRoot(op.Configuration.LocalEnvironment); err != nil {
		return daemon.PrepareResult{Err: err.Error()}
	}
	ex, err := f.NewExecutor(n.ctx, cfg)
	switch {
	case err != nil && ex != nil:
		return n.failedPreparation(op, ex, err) // preparation.go
	case err != nil:
		return daemon.PrepareResult{Err: err.Error()}
	case ex == nil:
		return daemon.PrepareResult{Err: reasonNilExecutor}
	}
	n.markUnused(op.Executor, ex)
	return daemon.PrepareResult{}
}

func (n *Native) cancel(op daemon.Cancel) daemon.Result {
	t := n.turn(op.Turn)
	switch {
	case t == nil:
		return daemon.CancelResult{Err: reasonUnknown}
	case t.broken:
		return daemon.CancelResult{}
	}
	if err := t.turn.Cancel(n.ctx); err != nil {
		return daemon.CancelResult{Err: err.Error()}
	}
	return daemon.CancelResult{}
}

// settle waits for the Turn's settlement; the machine's settlement wait
// bounds what Core is told, not this call.
func (n *Native) settle(op daemon.AwaitSettlement) daemon.Result {
	t := n.turn(op.Turn)
	switch {
	case t == nil:
		return daemon.SettleResult{Err: reasonUnknown}
	case t.broken:
		return daemon.SettleResult{Settled: true, Reason: reasonStartPanic}
	}
	s, err := t.turn.AwaitSettlement(n.ctx)
	if err != nil {
		return daemon.SettleResult{Err: reasonNotSettled + ": " + err.Error()}
	}
	outcome := t.turn.CancellationOutcome().Done()
	if err := s.Validate(); err != nil {
		n.log.Error("adapter broke the settlement contract", "turn", string(op.Turn), "err", err.Error())
		return daemon.SettleResult{Settled: true, Reason: reasonBadSettle, Outcome: outcome}
	}
	return daemon.SettleResult{Settled: true, Reusable: s.Reusable, Reason: s.Reason, Outcome: outcome}
}

// forgetTurnsOf drops the Turns of executor ex; n.mu is held.
func (n *Native) forgetTurnsOf(ex string) {
	for id, t := range n.turns {
		if t.executor == ex {
			delete(n.turns, id)
		}
	}
}

func (n *Native) close(op daemon.CloseExecutor) daemon.Result {
	ex := n.executor(op.Executor)
	if ex == nil {
		// No native executor was ever created under this ID: nothing is
		// held, so there is nothing left to confirm.
		n.log.Warn("close of an executor the runner never prepared", "executor", op.Executor)
		return daemon.CloseResult{}
	}
	retire := ex.Close
	if n.isUnused(op.Executor) {
		retire = func(context.Context) error { return n.retireUnused(ex) } // preparation.go
	}
	if err := retire(n.ctx); err != nil {
		return daemon.CloseResult{Err: err.Error()}
	}
	n.mu.Lock()
	delete(n.executors, op.Executor)
	delete(n.unused, op.Executor)
	n.forgetTurnsOf(op.Executor)
	n.mu.Unlock()
	return daemon.CloseResult{}
}

// executorConfig is what a factory receives: the configuration, the
// installed snapshot the machine loaded and the resolved MCP binding: the
// public servers, then the servers the installed plugins declare (read
// from their archives by inst, for a Turn with a local environment;
// installed capabilities belong to the bound Environment).
func executorConfig(op daemon.Prepare, inst *Installer) (agent.ExecutorConfig, error) {
	var servers []agent.InstalledMCPServer
	if le := op.Configuration.LocalEnvironment; le != nil && inst != nil {
		var err error
		if servers, err = inst.installedMCPServers(le.ID, op.Installed); err != nil {
			return agent.ExecutorConfig{}, err
		}
	}
	mcp, err := agent.ResolveMCPBindings(op.Configuration, servers)
	if err != nil {
		return agent.ExecutorConfig{}, err
	}
	installed := make([]agent.InstalledCapability, len(op.Installed))
	for i, c := range op.Installed {
		installed[i] = agent.InstalledCapability{Action: c.Action, Name: c.Name}
	}
	return agent.ExecutorConfig{SessionID: op.Session, Configuration: op.Configuration, Installed: installed, MCP: mcp}, nil
}

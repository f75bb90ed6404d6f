package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/internal/clirunner"
)

// Options configure the Harness.
type Options struct {
	// Binary is the path of the pinned codex binary.
	Binary string
	// Args replaces the default arguments ("app-server"); for fakes.
	Args []string
	// Home is CODEX_HOME for app-server (its config.toml, model providers
	// and thread rollouts); empty inherits the daemon's environment.
	Home string
	// Env is added to app-server's environment.
	Env []string
	// WorkDir holds the private working directory of each Executor without
	// a workspace (default os.TempDir()).
	WorkDir string
	// Grace is the TERM-to-KILL grace period (default 3 s).
	Grace time.Duration
	// StartTimeout bounds initialize and the thread's start or resume
	// (default 60 s).
	StartTimeout time.Duration
	// RetryBudget bounds how long a Turn may stay in native retries
	// (error notifications with willRetry) without progress before the
	// adapter interrupts it and reports connection_failed (default 60 s).
	RetryBudget time.Duration
	// Approvals is the approval mode: ApprovalsNever (the default, also
	// "") or ApprovalsOnRequest, in which app-server's approval requests
	// become permission requests of the Turn (see ApprovalCapabilities).
	Approvals string

	// spawn starts app-server; nil is clirunner.Start. Tests set it to run
	// the fake app-server in process.
	spawn func(clirunner.Spec) (appServer, error)
}

// appServer is the running app-server an Executor owns.
type appServer = clirunner.Child

func (o Options) withDefaults() Options {
	if len(o.Args) == 0 {
		o.Args = []string{"app-server"}
	}
	if o.Grace <= 0 {
		o.Grace = clirunner.DefaultGrace
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.RetryBudget <= 0 {
		o.RetryBudget = 60 * time.Second
	}
	return o
}

// Harness is the Codex ExecutorFactory and direct-call Factory.
type Harness struct{ opts Options }

// New returns a Harness over the binary opts name.
func New(opts Options) *Harness { return &Harness{opts: opts.withDefaults()} }

// Executor owns one app-server process and one thread.
type Executor struct {
	h       *Harness
	nc      nativeConfig
	proc    appServer
	rpc     *conn
	workDir string // removed on Close when the Executor created it
	ownDir  bool

	mu          sync.Mutex
	threadID    string
	recorded    bool   // the thread holds a recorded turn: it can be resumed
	lastStarted string // the thread's last turn/started turn ID
	applied     string // the sandbox policy app-server reported for the thread
	active      *Turn  // the unsettled Turn
	retired     string
	closing     bool
	closed      bool
	exited      bool
	// started: a Turn was returned, consuming the preparation; abandoned:
	// the unused preparation was cancelled or released.
	started, abandoned bool
}

// ErrResume reports a thread that could not be resumed; no fresh thread
// was started in its place.
var ErrResume = errors.New("codex: resume failed")

// NewExecutor starts app-server, initializes it and starts (or strictly
// resumes) the thread, without model input.
func (h *Harness) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	nc, err := buildConfig(cfg)
	if err != nil {
		return nil, err
	}
	resume := cfg.Configuration.AgentSessionID
	if resume == "" && cfg.Configuration.RequireExistingNativeSession {
		return nil, fmt.Errorf("%w: an existing native session is required but none is recorded", ErrResume)
	}
	e := &Executor{h: h, nc: nc, workDir: cfg.WorkspaceRoot}
	if e.workDir == "" {
		if e.workDir, err = os.MkdirTemp(h.opts.WorkDir, "turnstile-codex-"); err != nil {
			return nil, fmt.Errorf("codex: working directory: %w", err)
		}
		e.ownDir = true
	}
	if err := e.start(); err != nil {
		e.removeDir()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, h.opts.StartTimeout)
	defer cancel()
	if err := e.open(ctx, resume); err != nil {
		if cerr := e.Close(context.WithoutCancel(ctx)); cerr != nil {
			return nil, errors.Join(err, cerr)
		}
		return nil, err
	}
	return e, nil
}

func (e *Executor) start() error {
	env := append(os.Environ(), e.h.opts.Env...)
	if e.h.opts.Home != "" {
		env = append(env, "CODEX_HOME="+e.h.opts.Home)
	}
	spawn := e.h.opts.spawn
	if spawn == nil {
		spawn = clirunner.StartChild
	}
	p, err := spawn(clirunner.Spec{Path: e.h.opts.Binary, Args: e.h.opts.Args, Env: env, Dir: e.workDir, Grace: e.h.opts.Grace})
	if err != nil {
		return fmt.Errorf("%w: codex app-server: %w", agent.ErrExecutorUnavailable, err)
	}
	e.proc = p
	e.rpc = newConn(p.Stdin(), e.handle)
	go func() {
		e.rpc.readLoop(p.Stdout())
		e.onExit()
	}()
	return nil
}

// open runs initialize and thread/start or thread/resume.
func (e *Executor) open(ctx context.Context, resume string) error {
	if err := e.rpc.call(ctx, methodInitialize, initializeParams{ClientInfo: clientInfo{Name: "turnstile", Version: Version}}, nil); err != nil {
		return fmt.Errorf("codex: initialize: %w", err)
	}
	if err := e.rpc.notify(methodInitialized, nil); err != nil {
		return fmt.Errorf("codex: initialized: %w", err)
	}
	nc := e.nc
	if resume != "" {
		var res threadResumeResponse
		err := e.rpc.call(ctx, methodThreadResume, threadResumeParams{ThreadID: resume, Model: nc.model, ModelProvider: nc.provider,
			Cwd: e.workDir, ApprovalPolicy: e.h.approvalPolicy(), Sandbox: sandboxFull, DeveloperInstructions: nc.instructions, Config: nc.config}, &res)
		switch {
		case err != nil:
			return fmt.Errorf("%w: %w", ErrResume, err)
		case res.Thread.ID != resume:
			return fmt.Errorf("%w: app-server resumed another thread", ErrResume)
		}
		if err := e.h.checkApplied(res.ApprovalPolicy, res.Sandbox); err != nil {
			return err
		}
		e.threadID, e.recorded, e.applied = resume, true, res.Sandbox.Type
		return nil
	}
	var res threadStartResponse
	if err := e.rpc.call(ctx, methodThreadStart, threadStartParams{Model: nc.model, ModelProvider: nc.provider,
		Cwd: e.workDir, ApprovalPolicy: e.h.approvalPolicy(), Sandbox: sandboxFull, DeveloperInstructions: nc.instructions, Config: nc.config}, &res); err != nil {
		return fmt.Errorf("codex: thread/start: %w", err)
	}
	if res.Thread.ID == "" {
		return errors.New("codex: thread/start answered without a thread ID")
	}
	if err := e.h.checkApplied(res.ApprovalPolicy, res.Sandbox); err != nil {
		return err
	}
	e.threadID, e.applied = res.Thread.ID, res.Sandbox.Type
	return nil
}

// StartTurn submits req.Input with turn/start; see agent.Executor for the
// nil-Turn rule.
func (e *Executor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	text, err := req.Input.TextOnly()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", agent.Unsupported(reasonImages), err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	switch {
	case e.closed, e.closing, e.exited:
		e.mu.Unlock()
		return nil, fmt.Errorf("%w: executor closed", agent.ErrExecutorUnavailable)
	case e.retired != "":
		e.mu.Unlock()
		return nil, fmt.Errorf("%w: executor retired", agent.ErrExecutorUnavailable)
	case e.abandoned:
		e.mu.Unlock()
		return nil, fmt.Errorf("%w: preparation abandoned", agent.ErrExecutorUnavailable)
	case e.active != nil:
		e.mu.Unlock()
		return nil, agent.ErrExecutorBusy
	}
	t := newTurn(e, req)
	e.active = t
	e.mu.Unlock()
	refused := make(chan error, 1)
	_, err = e.rpc.send(methodTurnStart, turnStartParams{ThreadID: e.threadID, Input: textInput(text), OutputSchema: e.nc.outputSchema},
		func(result json.RawMessage, err error) { refused <- t.onStartAnswer(result, err) })
	if err != nil {
		e.release(t)
		return nil, fmt.Errorf("%w: %w", agent.ErrExecutorUnavailable, err)
	}
	go t.pump()
	select {
	case err := <-refused:
		if err != nil && !errors.Is(err, errConnClosed) {
			// A JSON-RPC error: app-server refused the turn, nothing ran.
			t.abort()
			return nil, fmt.Errorf("%w: turn/start refused: %w", agent.ErrExecutorUnavailable, err)
		}
		e.consumed()
		if err != nil {
			return t, fmt.Errorf("codex: turn/start outcome unknown: %w", err)
		}
		return t, nil
	case <-ctx.Done():
		e.consumed()
		return t, fmt.Errorf("codex: turn/start answer not received: %w", ctx.Err())
	}
}

// The Executor is an executable preparation (agent.ExecutorFactory)
// until StartTurn returns a Turn: its preparation is the running
// app-server with its started or resumed thread, the reader of
// app-server's output, and the private working directory.

// errPreparationStarted refuses CancelPrepared and Release once a Turn
// consumed the preparation (the Runtime then retires it with Close).
var errPreparationStarted = fmt.Errorf("%w: the preparation was started", agent.ErrInvalidRequest)

// consumed records that a Turn was returned: input may have been
// submitted, and the Turn owns its output.
func (e *Executor) consumed() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.started = true
}

// CancelPrepared stops the unused preparation and returns once its local
// cleanup finished: app-server is stopped (its process group, TERM then
// KILL), its output read to the end so nothing writes any more, and the
// private working directory removed. The Executor refuses every Turn
// afterwards. A failure keeps it owned; it is idempotent after success.
func (e *Executor) CancelPrepared(ctx context.Context) error { return e.abandon(ctx) }

// Release abandons the unused preparation and confirms its cleanup, the
// same stop as CancelPrepared (an unused preparation holds nothing else).
func (e *Executor) Release(ctx context.Context) error { return e.abandon(ctx) }

func (e *Executor) abandon(ctx context.Context) error {
	e.mu.Lock()
	if e.started {
		e.mu.Unlock()
		return errPreparationStarted
	}
	e.abandoned = true
	e.mu.Unlock()
	return e.Close(ctx)
}

// CancellationOutcome of an unused preparation is empty: no Turn ran, and
// its thread is not reported before it holds a recorded turn.
func (e *Executor) CancellationOutcome() agent.CancellationOutcome {
	return agent.CancellationOutcome{}
}

// release forgets a Turn that submitted nothing.
func (e *Executor) release(t *Turn) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.active == t {
		e.active = nil
	}
}

// settled is called by a Turn once its output is closed.
func (e *Executor) settled(t *Turn, s agent.TurnSettlement) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.active == t {
		e.active = nil
	}
	if !s.Reusable && e.retired == "" {
		e.retired = s.Reason
	}
}

// onExit runs once app-server's stdout ended: the active Turn can no
// longer complete natively and settles non-reusable.
func (e *Executor) onExit() {
	e.mu.Lock()
	e.exited = true
	t := e.active
	e.mu.Unlock()
	if t != nil {
		t.onExit()
	}
}

// Close interrupts an unsettled Turn, stops app-server (TERM, grace, KILL
// of its process group), waits for the Turn's settlement and the process's
// reaping, and removes the private working directory. It is idempotent
// after success.
func (e *Executor) Close(ctx context.Context) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closing = true
	active := e.active
	e.mu.Unlock()
	err := e.shutdown(ctx, active)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closing = false
	if err != nil {
		return err
	}
	e.closed = true
	return nil
}

func (e *Executor) shutdown(ctx context.Context, active *Turn) error {
	if active != nil {
		_ = active.Cancel(ctx)
		wait, cancel := context.WithTimeout(ctx, e.h.opts.Grace)
		_, _ = active.AwaitSettlement(wait)
		cancel()
	}
	if err := e.proc.Stop(ctx); err != nil {
		return fmt.Errorf("%w: app-server not stopped: %w", agent.ErrCloseFailed, err)
	}
	select {
	case <-e.rpc.done:
	case <-ctx.Done():
		return fmt.Errorf("%w: app-server output not drained: %w", agent.ErrCloseFailed, ctx.Err())
	}
	_ = e.proc.Wait(ctx)
	if active != nil {
		if _, err := active.AwaitSettlement(ctx); err != nil {
			return fmt.Errorf("%w: turn not settled: %w", agent.ErrCloseFailed, err)
		}
	}
	e.removeDir()
	return nil
}

func (e *Executor) removeDir() {
	if e.ownDir {
		_ = os.RemoveAll(e.workDir)
		e.ownDir = false
	}
}

// ThreadID returns the native thread identity.
func (e *Executor) ThreadID() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.threadID
}

// Pid returns app-server's process ID.
func (e *Executor) Pid() int { return e.proc.Pid() }

package claude

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/internal/clirunner"
)

// Options configure the Harness.
type Options struct {
	// Binary is the path of the pinned claude binary.
	Binary string
	// Home is HOME for the CLI (its settings and session transcripts);
	// empty inherits the daemon's environment.
	Home string
	// Env is added to the CLI's environment (ANTHROPIC_BASE_URL,
	// ANTHROPIC_API_KEY, ...).
	Env []string
	// WorkDir holds the private working directory of each Session without
	// a workspace (default os.TempDir()).
	WorkDir string
	// Grace is the TERM-to-KILL grace period (default 3 s); it also bounds
	// the wait for the result after an interrupt.
	Grace time.Duration
	// StartTimeout bounds the CLI's start and initialize (default 60 s).
	StartTimeout time.Duration
	// MaxRetries is CLAUDE_CODE_MAX_RETRIES, the CLI's API retries
	// (default 2).
	MaxRetries int
	// Stall is the adapter's own deadline: a Turn without native progress
	// (API retries are none) for this long is interrupted and fails
	// (default 5 minutes). A pending permission request pauses it.
	Stall time.Duration

	// spawn starts the CLI; nil is clirunner.Start. Tests set it to run
	// the process outside a testing/synctest bubble.
	spawn func(clirunner.Spec) (process, error)
}

// process is the running CLI an Executor owns.
type process = clirunner.Child

func (o Options) withDefaults() Options {
	if o.Grace <= 0 {
		o.Grace = clirunner.DefaultGrace
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 2
	}
	if o.Stall <= 0 {
		o.Stall = 5 * time.Minute
	}
	return o
}

// Harness is the Claude Code ExecutorFactory and direct-call Factory.
type Harness struct{ opts Options }

// New returns a Harness over the binary opts name.
func New(opts Options) *Harness { return &Harness{opts: opts.withDefaults()} }

// ErrResume reports a native session that could not be resumed; no fresh
// conversation was started in its place.
var ErrResume = errors.New("claude: resume failed")

// Executor owns one CLI process and its native session.
type Executor struct {
	h       *Harness
	proc    process
	session string
	workDir string
	ownDir  bool
	done    chan struct{} // the read loop ended (stdout drained)

	wmu sync.Mutex // serialises stdin writes

	mu       sync.Mutex
	recorded bool // the session holds a recorded user message: it can be resumed
	active   *Turn
	calls    map[string]chan controlResponse
	nextCall int
	startErr string // an error result before the first Turn (a failed resume)
	retired  string
	closing  bool
	closed   bool
	exited   bool
}

// NewExecutor starts the CLI with the chosen (or resumed) session and
// initializes it, without model input.
func (h *Harness) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	nc, err := buildConfig(cfg)
	if err != nil {
		return nil, err
	}
	resume := cfg.Configuration.AgentSessionID
	if resume == "" && cfg.Configuration.RequireExistingNativeSession {
		return nil, fmt.Errorf("%w: %s", ErrResume, reasonRecovery)
	}
	e := &Executor{h: h, session: resume, done: make(chan struct{}), calls: map[string]chan controlResponse{}}
	if resume == "" {
		e.session = newUUID()
	} else {
		e.recorded = true
	}
	if cfg.Configuration.LocalEnvironment != nil {
		e.workDir = cfg.WorkspaceRoot
	} else {
		// One directory per Session: the CLI files transcripts by working
		// directory, so a resume in a fresh process finds its history.
		sum := sha256.Sum256([]byte(cfg.SessionID))
		e.workDir = filepath.Join(h.opts.WorkDir, "turnstile-claude-"+hex.EncodeToString(sum[:8]))
		if h.opts.WorkDir == "" {
			e.workDir = filepath.Join(os.TempDir(), filepath.Base(e.workDir))
		}
		if err := os.MkdirAll(e.workDir, 0o700); err != nil {
			return nil, fmt.Errorf("claude: working directory: %w", err)
		}
		e.ownDir = true
	}
	if err := e.start(nc, resume != ""); err != nil {
		e.removeDir()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, h.opts.StartTimeout)
	defer cancel()
	if err := e.initialize(ctx, resume != ""); err != nil {
		if cerr := e.Close(context.WithoutCancel(ctx)); cerr != nil {
			return nil, errors.Join(err, cerr)
		}
		return nil, err
	}
	return e, nil
}

func (e *Executor) start(nc nativeConfig, resume bool) error {
	o := e.h.opts
	env := append(os.Environ(), o.Env...)
	if o.Home != "" {
		env = append(env, "HOME="+o.Home)
	}
	env = append(env, offlineEnv(o.MaxRetries)...)
	spawn := o.spawn
	if spawn == nil {
		spawn = clirunner.StartChild
	}
	p, err := spawn(clirunner.Spec{Path: o.Binary, Args: nc.args(e.session, resume), Env: env, Dir: e.workDir, Grace: o.Grace})
	if err != nil {
		return fmt.Errorf("%w: claude: %w", agent.ErrExecutorUnavailable, err)
	}
	e.proc = p
	go e.readLoop(p.Stdout())
	return nil
}

// initialize sends the initialize control request and waits for its
// answer. A resume of an unknown session ends in an error result and the
// CLI's exit instead: ErrResume.
func (e *Executor) initialize(ctx context.Context, resume bool) error {
	_, err := e.control(ctx, map[string]any{"subtype": "initialize"})
	if err == nil {
		return nil
	}
	e.mu.Lock()
	startErr := e.startErr
	e.mu.Unlock()
	if resume {
		return fmt.Errorf("%w: session %s: %w", ErrResume, e.session, err)
	}
	if startErr != "" {
		return fmt.Errorf("%w: claude failed to start: %s", agent.ErrExecutorUnavailable, startErr)
	}
	return fmt.Errorf("%w: claude initialize: %w", agent.ErrExecutorUnavailable, err)
}

var errExited = errors.New("claude: CLI exited")

// control sends one control request and waits for its response.
func (e *Executor) control(ctx context.Context, req any) (json.RawMessage, error) {
	ch, id, err := e.sendControl(req)
	if err != nil {
		return nil, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, errExited
		}
		if r.Subtype != subtypeSuccess {
			return nil, fmt.Errorf("claude: control request refused: %s", r.Error)
		}
		return r.Response, nil
	case <-ctx.Done():
		e.mu.Lock()
		delete(e.calls, id)
		e.mu.Unlock()
		return nil, ctx.Err()
	}
}

// sendControl writes a control request; its response arrives on the
// returned channel (closed without a value if the CLI exits first).
func (e *Executor) sendControl(req any) (chan controlResponse, string, error) {
	e.mu.Lock()
	if e.exited {
		e.mu.Unlock()
		return nil, "", errExited
	}
	e.nextCall++
	id := "turnstile-" + strconv.Itoa(e.nextCall)
	ch := make(chan controlResponse, 1)
	e.calls[id] = ch
	e.mu.Unlock()
	if err := e.write(controlRequestLine{Type: typeControlRequest, RequestID: id, Request: req}); err != nil {
		e.mu.Lock()
		delete(e.calls, id)
		e.mu.Unlock()
		return nil, "", err
	}
	return ch, id, nil
}

// write writes one JSON line to the CLI's stdin.
func (e *Executor) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	e.wmu.Lock()
	defer e.wmu.Unlock()
	_, err = e.proc.Stdin().Write(b)
	return err
}

// reply answers one of the CLI's control requests.
func (e *Executor) reply(id string, response any) error {
	raw, err := json.Marshal(response)
	if err != nil {
		return err
	}
	return e.write(controlResponseLine{Type: typeControlResponse,
		Response: controlResponse{Subtype: subtypeSuccess, RequestID: id, Response: raw}})
}

func (e *Executor) replyError(id, msg string) error {
	return e.write(controlResponseLine{Type: typeControlResponse,
		Response: controlResponse{Subtype: "error", RequestID: id, Error: msg}})
}

// readLoop reads stdout to its end, handling each line in order.
func (e *Executor) readLoop(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m outMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		e.handle(m)
	}
	_, _ = io.Copy(io.Discard, r)
	e.onExit()
	close(e.done)
}

// handle runs on the read loop for every line, in the CLI's order.
func (e *Executor) handle(m outMessage) {
	switch m.Type {
	case typeControlResponse:
		var r controlResponse
		if json.Unmarshal(m.Response, &r) != nil {
			return
		}
		e.mu.Lock()
		ch := e.calls[r.RequestID]
		delete(e.calls, r.RequestID)
		e.mu.Unlock()
		if ch != nil {
			ch <- r
		}
		return
	case typeControlRequest:
		var req canUseTool
		_ = json.Unmarshal(m.Request, &req)
		if req.Subtype == subtypeCanUseTool {
			if t := e.current(); t != nil && t.ask(m.RequestID, req) {
				return
			}
			_ = e.reply(m.RequestID, permissionDeny{Behavior: "deny", Message: "no running turn owns this request"})
			return
		}
		_ = e.replyError(m.RequestID, "not supported by this client")
		return
	case typeControlCancel:
		if t := e.current(); t != nil {
			t.withdraw(m.RequestID)
		}
		return
	}
	t := e.current()
	if t == nil {
		if m.Type == typeResult && m.IsError {
			e.mu.Lock()
			if e.startErr == "" {
				e.startErr = "error result before any turn (" + m.Subtype + ")"
			}
			e.mu.Unlock()
		}
		return // nothing runs: a late line of a settled Turn
	}
	t.onMessage(m)
}

func (e *Executor) current() *Turn {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.active
}

// markRecorded notes that the session holds a user message.
func (e *Executor) markRecorded() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.recorded = true
}

// nativeSession returns the session ID once it is resumable.
func (e *Executor) nativeSession() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.recorded {
		return ""
	}
	return e.session
}

// StartTurn writes req.Input as a user message carrying the Turn's own
// uuid; see agent.Executor for the nil-Turn rule.
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
	case e.active != nil:
		e.mu.Unlock()
		return nil, agent.ErrExecutorBusy
	}
	t := newTurn(e, req)
	e.active = t
	e.mu.Unlock()
	go t.pump()
	if err := t.writeInput(t.uuid, text); err != nil {
		// A failed pipe write: part of the line may have reached the CLI.
		t.finish(agent.Retire("claude stdin write failed"), nil, false)
		return t, fmt.Errorf("claude: input write outcome unknown: %w", err)
	}
	return t, nil
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

// onExit runs once stdout ended: pending control calls fail and the
// active Turn settles non-reusable.
func (e *Executor) onExit() {
	e.mu.Lock()
	e.exited = true
	t := e.active
	for id, ch := range e.calls {
		close(ch)
		delete(e.calls, id)
	}
	e.mu.Unlock()
	if t != nil {
		t.onExit()
	}
}

// Close interrupts an unsettled Turn, stops the CLI (TERM, grace, KILL of
// its process group), waits for the Turn's settlement and the process's
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
	_ = e.proc.Stdin().Close()
	if err := e.proc.Stop(ctx); err != nil {
		return fmt.Errorf("%w: claude not stopped: %w", agent.ErrCloseFailed, err)
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		return fmt.Errorf("%w: claude output not drained: %w", agent.ErrCloseFailed, ctx.Err())
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

// SessionID returns the native session identity (chosen with --session-id
// or resumed).
func (e *Executor) SessionID() string { return e.session }

// Pid returns the CLI's process ID (its process group).
func (e *Executor) Pid() int { return e.proc.Pid() }

// WorkDir returns the CLI's working directory.
func (e *Executor) WorkDir() string { return e.workDir }

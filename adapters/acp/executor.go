package acp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/internal/clirunner"
	"github.com/turnstile-sim/turnstile/wire"
)

// Options configure the Harness of one ACP kind.
type Options struct {
	// Profile is the vendor profile; its name makes the kind.
	Profile Profile
	// Command is the agent's command line (argv), e.g. node and the
	// entry point of claude-agent-acp, or `mcode acp`.
	Command []string
	// Env is added to the agent's environment (after the profile's).
	Env []string
	// Home is HOME for the agent; empty inherits the daemon's environment.
	Home string
	// WorkDir holds the private working directory of each Session without
	// a workspace (default os.TempDir()).
	WorkDir string
	// Grace is the TERM-to-KILL grace period (default 3 s); it also bounds
	// the wait for the prompt's answer after session/cancel.
	Grace time.Duration
	// StartTimeout bounds the agent's start, initialize and session setup
	// (default 60 s).
	StartTimeout time.Duration
	// Stall is the adapter's own deadline: a Turn without a session/update
	// for this long is cancelled and fails (default 5 minutes). A pending
	// permission request pauses it.
	Stall time.Duration

	// spawn starts the agent; nil is clirunner.StartChild.
	spawn func(clirunner.Spec) (clirunner.Child, error)
}

func (o Options) withDefaults() Options {
	if o.Grace <= 0 {
		o.Grace = clirunner.DefaultGrace
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.Stall <= 0 {
		o.Stall = 5 * time.Minute
	}
	return o
}

// Harness is the ExecutorFactory and direct-call Factory of one ACP kind.
type Harness struct {
	opts Options
	caps wire.AgentKindCapabilities // narrowed by discovery
}

// New returns the Harness of opts.Profile over the agent opts.Command
// starts.
func New(opts Options) *Harness {
	return &Harness{opts: opts.withDefaults(), caps: Capabilities(opts.Profile)}
}

// Kind is the Harness's kind.
func (h *Harness) Kind() string { return h.opts.Profile.Kind() }

// Errors of the agent's start.
var (
	// ErrResume reports a native session that could not be loaded; no
	// fresh session was created in its place.
	ErrResume = errors.New("acp: session load failed")
	// ErrProtocol reports an agent that speaks another ACP version, lacks
	// what the profile declares or reports an unqualified version.
	ErrProtocol = errors.New("acp: agent not qualified")
)

// Probe starts the agent, initializes it and stops it: what discovery
// reads. The answer is returned with an error for an agent that speaks
// another ACP version or, when the profile pins one, reports another
// version.
func (h *Harness) Probe(ctx context.Context) (initializeResult, error) {
	e := &Executor{h: h, workDir: h.opts.WorkDir}
	if e.workDir == "" {
		e.workDir = os.TempDir()
	}
	if err := e.start(); err != nil {
		return initializeResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, h.opts.StartTimeout)
	defer cancel()
	r, err := e.initialize(ctx)
	if cerr := e.Close(context.WithoutCancel(ctx)); err == nil {
		err = cerr
	}
	return r, err
}

// Executor owns one agent process, its connection and its native session.
type Executor struct {
	h       *Harness
	proc    clirunner.Child
	rpc     *conn
	caps    wire.AgentKindCapabilities
	session string
	model   string
	workDir string
	ownDir  bool

	mu       sync.Mutex
	recorded bool // the session holds a prompt: it can be loaded
	active   *Turn
	retired  string
	broken   error // the connection broke (malformed line)
	exited   bool  // the agent's stdout ended
	closing  bool
	closed   bool
}

// NewExecutor starts the agent, initializes it and creates (session/new)
// or loads (session/load of the recorded ID) its session, without model
// input.
func (h *Harness) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	model, err := buildConfig(h.opts.Profile, h.caps, cfg)
	if err != nil {
		return nil, err
	}
	resume := cfg.Configuration.AgentSessionID
	if resume == "" && cfg.Configuration.RequireExistingNativeSession {
		return nil, fmt.Errorf("%w: %s", ErrResume, reasonRecovery)
	}
	e := &Executor{h: h, session: resume, recorded: resume != "", model: model}
	if cfg.Configuration.LocalEnvironment != nil {
		e.workDir = cfg.WorkspaceRoot
	} else {
		// One directory per Session: an agent may file its sessions by
		// working directory, so a load in a fresh process finds them.
		sum := sha256.Sum256([]byte(cfg.SessionID))
		base := h.opts.WorkDir
		if base == "" {
			base = os.TempDir()
		}
		e.workDir = filepath.Join(base, "turnstile-acp-"+hex.EncodeToString(sum[:8]))
		if err := os.MkdirAll(e.workDir, 0o700); err != nil {
			return nil, fmt.Errorf("acp: working directory: %w", err)
		}
		e.ownDir = true
	}
	if err := e.start(); err != nil {
		e.removeDir()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, h.opts.StartTimeout)
	defer cancel()
	if err := e.setup(ctx, resume); err != nil {
		if cerr := e.Close(context.WithoutCancel(ctx)); cerr != nil {
			return nil, errors.Join(err, cerr)
		}
		return nil, err
	}
	return e, nil
}

func (e *Executor) start() error {
	o := e.h.opts
	if len(o.Command) == 0 {
		return fmt.Errorf("%w: acp: no agent command", agent.ErrExecutorUnavailable)
	}
	env := append(os.Environ(), o.Profile.Env...)
	env = append(env, o.Env...)
	if o.Home != "" {
		env = append(env, "HOME="+o.Home)
	}
	spawn := o.spawn
	if spawn == nil {
		spawn = clirunner.StartChild
	}
	p, err := spawn(clirunner.Spec{Path: o.Command[0], Args: o.Command[1:], Env: env, Dir: e.workDir, Grace: o.Grace})
	if err != nil {
		return fmt.Errorf("%w: acp: %w", agent.ErrExecutorUnavailable, err)
	}
	e.proc = p
	e.rpc = newConn(p.Stdin(), e.handle, e.onEnd)
	go e.rpc.readLoop(p.Stdout())
	return nil
}

// initialize negotiates ACP v1 and the profile's qualified version.
func (e *Executor) initialize(ctx context.Context) (initializeResult, error) {
	var r initializeResult
	err := e.rpc.call(ctx, methodInitialize, initializeParams{ProtocolVersion: ProtocolVersion,
		ClientInfo: implementation{Name: "turnstile", Version: "1"}}, &r)
	switch {
	case err != nil:
		return r, fmt.Errorf("%w: acp initialize: %w", agent.ErrExecutorUnavailable, err)
	case r.ProtocolVersion != ProtocolVersion:
		return r, fmt.Errorf("%w: %w: protocol version %d, want %d", agent.ErrExecutorUnavailable, ErrProtocol, r.ProtocolVersion, ProtocolVersion)
	}
	if v := e.h.opts.Profile.Version; v != "" && (r.AgentInfo == nil || r.AgentInfo.Version != v) {
		return r, fmt.Errorf("%w: %w: agent version is not %s", agent.ErrExecutorUnavailable, ErrProtocol, v)
	}
	return r, nil
}

// setup initializes the agent, checks that it still advertises what the
// kind declares, and creates or loads the session.
func (e *Executor) setup(ctx context.Context, resume string) error {
	r, err := e.initialize(ctx)
	if err != nil {
		return err
	}
	e.caps = advertised(e.h.opts.Profile, e.h.caps, r)
	if e.caps != e.h.caps {
		return fmt.Errorf("%w: %w: the agent no longer advertises what the kind declares", agent.ErrExecutorUnavailable, ErrProtocol)
	}
	p := sessionParams{Cwd: e.workDir, MCPServers: []any{}}
	var meta map[string]any
	if f := e.h.opts.Profile.SessionMeta; f != nil {
		meta = f(e.model)
	}
	if resume != "" {
		if !e.caps.Resume.IsSupported() {
			return fmt.Errorf("%w: the agent cannot load sessions", ErrResume)
		}
		p.SessionID = resume
		if err := e.rpc.call(ctx, methodSessionLoad, withMeta(p, meta), nil); err != nil {
			return fmt.Errorf("%w: %w", ErrResume, err)
		}
		return e.setMode(ctx)
	}
	// The session ID is set on the read loop, before any later line (an
	// update of the new session) is handled there.
	cl, err := e.rpc.send(methodSessionNew, withMeta(p, meta), func(raw json.RawMessage, err error) {
		var s sessionResult
		if err == nil && json.Unmarshal(raw, &s) == nil {
			e.session = s.SessionID
		}
	})
	if err == nil {
		err = cl.wait(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("%w: acp session/new: %w", agent.ErrExecutorUnavailable, err)
	}
	if e.session == "" {
		return fmt.Errorf("%w: %w: session/new without a session ID", agent.ErrExecutorUnavailable, ErrMalformed)
	}
	return e.setMode(ctx)
}

// setMode sets the profile's session mode.
func (e *Executor) setMode(ctx context.Context) error {
	mode := e.h.opts.Profile.Mode
	if mode == "" {
		return nil
	}
	if err := e.rpc.call(ctx, methodSessionSetMode, setModeParams{SessionID: e.session, ModeID: mode}, nil); err != nil {
		return fmt.Errorf("%w: acp session/set_mode: %w", agent.ErrExecutorUnavailable, err)
	}
	return nil
}

// withMeta adds the profile's _meta to session parameters.
func withMeta(p sessionParams, meta map[string]any) any {
	if meta == nil {
		return p
	}
	return struct {
		sessionParams
		Meta map[string]any `json:"_meta"`
	}{p, meta}
}

// handle runs on the read loop for every notification and agent request,
// in the agent's order. Updates of another session, or while no Turn runs
// (a load's replay, a late update of a settled Turn), are dropped.
func (e *Executor) handle(m rpcMessage) {
	switch m.Method {
	case methodSessionUpdate:
		var n sessionNotification
		if json.Unmarshal(m.Params, &n) != nil || n.SessionID != e.session {
			return
		}
		if t := e.current(); t != nil {
			t.onUpdate(n.Update)
		}
		return
	case e.proofMethod():
		proof := e.h.opts.Profile.Steer.Proof
		if session, ev, ok := proof.Read(m.Params); ok && session == e.session {
			if t := e.current(); t != nil {
				t.onProof(ev)
			}
		}
		return
	case methodRequestPermission:
		var p permissionParams
		if json.Unmarshal(m.Params, &p) == nil && p.SessionID == e.session {
			if t := e.current(); t != nil && t.ask(m.ID, p) {
				return
			}
		}
		// No running Turn owns it: nothing may run unasked.
		_ = e.rpc.reply(m.ID, permissionOutcome{Outcome: permissionChoice{Outcome: "cancelled"}})
		return
	}
	if len(m.ID) > 0 {
		// fs and terminal are declared false; nothing else is implemented.
		_ = e.rpc.replyError(m.ID, rpcMethodNotFound, "not supported by this client")
	}
}

// proofMethod is the method of the profile's proof of application, or ""
// (no notification has an empty method).
func (e *Executor) proofMethod() string {
	if st := e.h.opts.Profile.Steer; st != nil && st.Proof != nil {
		return st.Proof.Method
	}
	return ""
}

func (e *Executor) current() *Turn {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.active
}

// markRecorded notes that the session holds a prompt.
func (e *Executor) markRecorded() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.recorded = true
}

// nativeSession returns the session ID once it can be loaded.
func (e *Executor) nativeSession() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.recorded {
		return ""
	}
	return e.session
}

// onEnd runs once the read loop ended: the agent exited, or a malformed
// line broke the connection. The active Turn settles non-reusable.
func (e *Executor) onEnd(broken error) {
	e.mu.Lock()
	e.exited = true
	e.broken = broken
	t := e.active
	e.mu.Unlock()
	if t != nil {
		t.onEnd(broken)
	}
}

// StartTurn sends req.Input as one session/prompt; see agent.Executor for
// the nil-Turn rule.
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
	t.prompt = text
	e.active = t
	e.mu.Unlock()
	go t.pump()
	_, err = e.rpc.send(methodSessionPrompt, promptParams{SessionID: e.session,
		Prompt: []contentBlock{{Type: "text", Text: text}}}, t.onAnswer)
	if err != nil {
		// A failed pipe write: part of the request may have reached the agent.
		t.finish(agent.Retire("acp prompt write failed"), &wire.RunError{Error: "acp: prompt write failed"})
		return t, fmt.Errorf("acp: prompt write outcome unknown: %w", err)
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

// Close cancels an unsettled Turn, stops the agent (TERM, grace, KILL of
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
	if e.proc == nil {
		e.removeDir()
		return nil
	}
	if active != nil {
		_ = active.Cancel(ctx)
		wait, cancel := context.WithTimeout(ctx, e.h.opts.Grace)
		_, _ = active.AwaitSettlement(wait)
		cancel()
	}
	_ = e.proc.Stdin().Close()
	if err := e.proc.Stop(ctx); err != nil {
		return fmt.Errorf("%w: acp agent not stopped: %w", agent.ErrCloseFailed, err)
	}
	select {
	case <-e.rpc.done:
	case <-ctx.Done():
		return fmt.Errorf("%w: acp agent output not drained: %w", agent.ErrCloseFailed, ctx.Err())
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

// SessionID returns the native ACP session ID.
func (e *Executor) SessionID() string { return e.session }

// Pid returns the agent's process ID (its process group).
func (e *Executor) Pid() int { return e.proc.Pid() }

// WorkDir returns the agent's working directory.
func (e *Executor) WorkDir() string { return e.workDir }

// Capabilities returns what this Executor's agent advertised, narrowed
// from the kind's declaration.
func (e *Executor) Capabilities() wire.AgentKindCapabilities { return e.caps }

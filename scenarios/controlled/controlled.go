// Package controlled is the controlled Harness adapter the scenarios'
// harness steps drive (README.md, "Harness actions"): Do applies a step,
// Serve follows the control channel of `turnstile conform runtime`.
package controlled

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// Controlled is the adapter; it serves every kind.
type Controlled struct {
	mu         sync.Mutex
	armed      map[string]int
	turns      []*cTurn
	held       []chan struct{} // hanging calls, answered by release
	applies    []chan struct{} // written inputs held before consumption
	workspaces string          // the base directory of the Environments' workspaces
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
	return await(ctx, ch)
}

// await waits until ch closes (nil) or ctx ends.
func await(ctx context.Context, ch <-chan struct{}) error {
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

// cTurn is one native Turn.
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

// settle settles the Turn once: a settle step and Finish may race for
// it, and the later one does nothing.
func (t *cTurn) settle(s agent.TurnSettlement, o agent.CancellationOutcome, late bool) {
	t.mu.Lock()
	select {
	case <-t.settled:
		t.mu.Unlock()
		return
	default:
	}
	t.settlement, t.outcome = s, o
	close(t.settled)
	t.mu.Unlock()
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
	if err := await(ctx, t.settled); err != nil {
		return agent.TurnSettlement{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.settlement, nil
}

type receipt struct{ applied chan struct{} }

func (r receipt) AwaitApplied(ctx context.Context) error { return await(ctx, r.applied) }

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

// A decision applies at once (the Runtime refuses what no Turn asked).
func (t *cTurn) RespondPermission(context.Context, string, wire.PermissionDecision) error { return nil }

func (t *cTurn) RespondUserChoice(context.Context, string, wire.UserChoiceDecision) error { return nil }

func (t *cTurn) SubmitFunctionResult(context.Context, wire.FunctionResult) error { return nil }

// Do applies a harness action or "settle", or names why it cannot
// ("owned" is the host's to answer).
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
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.applies) == 0 {
			return fmt.Errorf("harness apply: no written input is held")
		}
		close(c.applies[0])
		c.applies = c.applies[1:]
	case "settle":
		t := c.live()
		if t == nil {
			return fmt.Errorf("settle: no live native Turn")
		}
		s := agent.Reuse()
		if cmd.Args["reusable"] == "false" {
			s = agent.Retire(cmd.Args["reason"])
		}
		t.settle(s, agent.CancellationOutcome{Content: cmd.Args["content"], NativeSessionID: cmd.Args["session"]}, c.take("late-event"))
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

// Config is the configuration of a daemon declaring kinds, with workspace
// writes.
func Config(version string, kinds []wire.SupportedAgentKind) daemon.Config {
	cfg := daemon.Config{DaemonVersion: version, Workspace: daemon.WorkspaceConfig{Writes: true}}
	for _, k := range kinds {
		cfg.Kinds = append(cfg.Kinds, daemon.KindConfig{Kind: k.Kind, Version: k.Version, Available: k.Available, Capabilities: k.Capabilities})
	}
	return cfg
}

// OwnedFunc reports the counts a Runtime owns, by name (the host's).
type OwnedFunc func(ctx context.Context) (map[string]int, error)

// OwnedCounts tallies a daemon's resources by kind, executors by state.
func OwnedCounts(res []daemon.Resource) map[string]int {
	have := map[string]int{"executors": 0, "turns": 0, "calls": 0, "idle": 0, "closing": 0}
	for _, r := range res {
		have[r.Kind+"s"]++
		if r.Kind == "executor" {
			state, _, _ := strings.Cut(r.State, ",")
			have[state]++
		}
	}
	return have
}

// Serve opens the control channel at url, trying until it opens or ctx
// ends, and answers every command until either ends; owned answers
// "owned" (nil: refused).
func (c *Controlled) Serve(ctx context.Context, url string, owned OwnedFunc) error {
	var ws *websocket.Conn
	for {
		var err error
		if ws, _, err = websocket.Dial(ctx, url, &websocket.DialOptions{HTTPClient: c.HTTPClient}); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("control channel %s: %w", url, err)
		case <-time.After(200 * time.Millisecond): // before the next attempt
		}
	}
	defer ws.CloseNow()
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return nil // the channel ends with the run or the scenario
		}
		var cmd scenarios.ControlCommand
		rep := scenarios.ControlReply{}
		if err := json.Unmarshal(b, &cmd); err != nil {
			rep.Error = "control command is not JSON: " + err.Error()
		} else {
			rep = c.answer(ctx, cmd, owned)
		}
		out, _ := json.Marshal(rep)
		if err := ws.Write(ctx, websocket.MessageText, out); err != nil {
			return nil
		}
	}
}

func (c *Controlled) answer(ctx context.Context, cmd scenarios.ControlCommand, owned OwnedFunc) scenarios.ControlReply {
	rep := scenarios.ControlReply{Seq: cmd.Seq}
	if cmd.Action == "owned" {
		if owned == nil {
			rep.Error = "owned: not reported by this Runtime"
			return rep
		}
		m, err := owned(ctx)
		if err != nil {
			rep.Error = "owned: " + err.Error()
		}
		rep.Owned = m
		return rep
	}
	if err := c.Do(cmd); err != nil {
		rep.Error = err.Error()
	}
	return rep
}

// SetWorkspaces names the base of the Environments' workspaces (as
// localworkspace.Binding binds them), where file steps write.
func (c *Controlled) SetWorkspaces(base string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.workspaces = base
}

// Preparations serves every kind's read-only profile locally.
func (c *Controlled) Preparations(string) (agent.PreparationFactory, bool, bool) {
	return localworkspace.Preparations{}, true, true
}

// putFile writes a file step's content into its Environment's workspace.
func (c *Controlled) putFile(cmd scenarios.ControlCommand) error {
	c.mu.Lock()
	base := c.workspaces
	c.mu.Unlock()
	var content string
	if err := json.Unmarshal(cmd.Payload, &content); err != nil {
		return fmt.Errorf("harness file: the content is not a JSON string: %v", err)
	}
	if base == "" {
		return fmt.Errorf("harness file: the Runtime binds no workspace directory")
	}
	root, err := localworkspace.Binding{Base: base}.Root(cmd.Args["environment"])
	if err != nil {
		return fmt.Errorf("harness file: environment %q: %v", cmd.Args["environment"], err)
	}
	p := filepath.Clean(cmd.Args["path"])
	if !filepath.IsLocal(p) {
		return fmt.Errorf("harness file: path %q is not inside the workspace", cmd.Args["path"])
	}
	p = filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("harness file: %v", err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return fmt.Errorf("harness file: %v", err)
	}
	return settle(root, p)
}

// settle gives the file and its directories up to root the modes and
// time of README.md, "Harness actions".
func settle(root, p string) error {
	mode := os.FileMode(0o644)
	for ; p != root; p, mode = filepath.Dir(p), 0o755 {
		if err := os.Chmod(p, mode); err != nil {
			return fmt.Errorf("harness file: %v", err)
		}
		if err := os.Chtimes(p, scenarios.Epoch, scenarios.Epoch); err != nil {
			return fmt.Errorf("harness file: %v", err)
		}
	}
	return nil
}

package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/turnstile-sim/turnstile/daemon/transport/transporttest"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// The Runtime's identity on the scripted Core (the scenarios' §7 values).
const (
	RuntimeDevice     = "runtime"
	RuntimeCredential = "synthetic-contract-credential"
)

// Environment the scripted Core gives a Runtime it starts (README.md,
// "Testing a Runtime").
const (
	EnvCoreURL          = "TURNSTILE_CORE_URL"
	EnvDevice           = "TURNSTILE_DEVICE_ID"
	EnvCredential       = "TURNSTILE_CREDENTIAL_FILE"
	EnvControl          = "TURNSTILE_CONFORM_CONTROL"
	EnvDeclaration      = "TURNSTILE_CONFORM_DECLARATION"
	EnvScenario         = "TURNSTILE_CONFORM_SCENARIO"
	EnvPrepareWorkspace = "TURNSTILE_PREPARE_WORKSPACE"
)

// Declaration is what EnvDeclaration holds.
type Declaration struct {
	DaemonVersion       string                    `json:"daemon_version"`
	SupportedAgentKinds []wire.SupportedAgentKind `json:"supported_agent_kinds"`
}

// RuntimeTarget is the Runtime under test.
type RuntimeTarget struct {
	// Command starts the Runtime once per scenario (empty: it was started
	// separately and connects to Listener, where the scripted Core
	// serves); Output, when set, gets its output; Grace bounds its stop
	// after SIGTERM (default 15s).
	Command  []string
	Listener net.Listener
	Output   io.Writer
	Grace    time.Duration
	// start and listen, in tests, start the Runtime in process and
	// listen for a scripted Core on its network.
	start  func(env []string) (runtimeProc, error)
	listen func() (net.Listener, error)
}

// runtimeProc is one start of the Runtime: a process, or in process.
type runtimeProc interface {
	stop(grace time.Duration)
	waitExit(ctx context.Context, d time.Duration) (bool, int)
	lines(n int) string // its last output
}

// started: the run starts the Runtime (else it was started separately).
func (t RuntimeTarget) started() bool { return len(t.Command) > 0 || t.start != nil }

// startRuntime starts the Runtime with env added to its environment.
func (t RuntimeTarget) startRuntime(env []string, out *lockedWriter) (runtimeProc, error) {
	if t.start != nil {
		return t.start(env)
	}
	return startProcess(t.Command, env, out)
}

// RunRuntime plays every scenario against the Runtime.
func RunRuntime(ctx context.Context, t RuntimeTarget, all []*scenarios.Scenario, o Options) (Report, error) {
	if t.Listener == nil {
		return Report{}, errNoCommand
	}
	if t.Grace <= 0 {
		t.Grace = 15 * time.Second
	}
	o = o.withDefaults()
	dir, err := os.MkdirTemp("", "turnstile-conform-")
	if err != nil {
		return Report{}, err
	}
	defer os.RemoveAll(dir)
	credFile := filepath.Join(dir, "credential")
	if err := os.WriteFile(credFile, []byte(RuntimeCredential+"\n"), 0o600); err != nil {
		return Report{}, err
	}
	fr := &front{hub: newControlHub()}
	srv := &http.Server{Handler: fr}
	go func() { _ = srv.Serve(t.Listener) }()
	defer srv.Close()
	env := rtEnv{base: "http://" + t.Listener.Addr().String(), credFile: credFile, dir: dir}
	var out *lockedWriter
	if t.Output != nil {
		out = &lockedWriter{w: t.Output}
	}
	since := time.Now() // the previous scenario's Runtime was gone by then
	return o.each(ctx, scenarios.Runtime, all, func(sc *scenarios.Scenario) Result {
		r := &rtRun{o: o, t: t, fr: fr, env: env, out: out, sc: sc, since: since}
		res := r.run(ctx)
		if !r.gone.IsZero() {
			since = r.gone
		}
		return res
	})
}

type rtEnv struct{ base, credFile, dir string }

func (e rtEnv) vars(sc *scenarios.Scenario, core string) []string {
	vars := []string{EnvCoreURL + "=" + core, EnvDevice + "=" + RuntimeDevice, EnvCredential + "=" + e.credFile,
		EnvControl + "=ws" + strings.TrimPrefix(e.base, "http") + scenarios.ControlPath, EnvScenario + "=" + sc.Name,
		EnvPrepareWorkspace + "=" + filepath.Join(e.dir, "prepare", sc.Name)}
	if hb, ok, _ := sc.Declaration(); ok {
		d, _ := json.Marshal(Declaration{DaemonVersion: hb.DaemonVersion, SupportedAgentKinds: hb.SupportedAgentKinds})
		vars = append(vars, EnvDeclaration+"="+string(d))
	}
	return vars
}

// rtRun is one scenario against the Runtime.
type rtRun struct {
	failures
	o   Options
	t   RuntimeTarget
	fr  *front
	env rtEnv
	out *lockedWriter
	sc  *scenarios.Scenario
	*corePeer
	proc runtimeProc
	ctl  *controlConn
	// since: a control channel opened earlier is an earlier Runtime's.
	since time.Time
	// gone: when this scenario's Runtime was gone (its process stopped,
	// or, started separately, its connection ended after device_shutdown).
	gone time.Time
	ctx  context.Context
}

func (r *rtRun) run(ctx context.Context) Result {
	start := time.Now()
	if why := r.o.skipReason(r.sc, scenarios.Runtime); why != "" {
		return Result{Name: r.sc.Name, Status: Skip, Reason: why}
	}
	r.corePeer = newCorePeer(&r.Log, &transporttest.Core{DeviceID: RuntimeDevice, Credential: RuntimeCredential}, r.o)
	r.fr.setCore(r.core.Handler())
	defer r.close()
	if r.t.started() {
		r.since = time.Now()
		p, err := r.t.startRuntime(r.env.vars(r.sc, r.env.base), r.out)
		if err != nil {
			return Result{Name: r.sc.Name, Status: Fail, Reason: err.Error()}
		}
		r.proc = p
	}
	needs := uses(r.sc, scenarios.KindHarness, scenarios.KindSettle)
	if needs || uses(r.sc, scenarios.KindRuntimeOwned) {
		if r.ctl = r.fr.hub.wait(r.o.FrameTimeout, r.since, nil); r.ctl == nil && needs {
			return Result{Name: r.sc.Name, Status: Skip, Reason: "needs harness control: the Runtime opened no control channel (" + EnvControl + ") within " + r.o.FrameTimeout.String()}
		}
	}
	r.ctx = ctx
	rep := scenarios.Play(r.sc, r)
	res := r.result(r.sc.Name, time.Since(start), rep.Failures)
	// A failed heartbeat of a Runtime started separately that declares
	// otherwise: the scenario cannot apply to it.
	if failed := rep.Failed; failed != nil && failed.Kind == scenarios.KindFrame && failed.Side == scenarios.Runtime && failed.Frame.Type == wire.TypeHeartbeat &&
		r.proc == nil && r.otherDeclaration(r.beat) {
		return Result{Name: r.sc.Name, Status: Skip, Reason: "declares other kinds or another daemon version than the Runtime started separately does; run it with a command (conform runtime -- CMD) that reads " + EnvDeclaration}
	}
	if res.Status == Fail && r.proc != nil {
		res.Reason += "\nthe Runtime's last output:\n" + indent(r.proc.lines(12), "  ")
	}
	return res
}

// close ends the scenario: the control channel and connections close,
// the process stops (one started separately is sent device_shutdown).
func (r *rtRun) close() {
	r.fr.hub.drop()
	if r.proc == nil {
		r.shutdownSeparate()
	}
	if r.sess != nil {
		r.sess.s.Close(websocket.StatusNormalClosure, "scenario over")
	}
	if r.proc != nil {
		r.proc.stop(r.t.Grace)
	}
	if r.gone.IsZero() {
		r.gone = time.Now()
	}
	r.fr.setCore(nil)
	r.core.Close()
}

func (r *rtRun) Harness(st scenarios.Step) { r.control(scenarios.HarnessCommand(st)) }

func (r *rtRun) Settle(args map[string]string) {
	r.control(scenarios.ControlCommand{Action: "settle", Args: args})
}

func (r *rtRun) Advance(d time.Duration) { time.Sleep(d); r.after() }

// otherDeclaration: the heartbeat declares otherwise than the scenario.
func (r *rtRun) otherDeclaration(got []byte) bool {
	var env struct {
		Payload Declaration `json:"payload"`
	}
	hb, ok, _ := r.sc.Declaration()
	if !ok || json.Unmarshal(got, &env) != nil {
		return false
	}
	want, _ := json.Marshal(Declaration{DaemonVersion: hb.DaemonVersion, SupportedAgentKinds: hb.SupportedAgentKinds})
	have, _ := json.Marshal(env.Payload)
	return string(want) != string(have)
}

// control sends one harness step to the Runtime's controlled adapter.
func (r *rtRun) control(cmd scenarios.ControlCommand) {
	if r.ctl == nil {
		r.Failf("%s: no control channel", cmd.Action)
		return
	}
	rep, err := r.controlDo(cmd)
	switch {
	case err != nil:
		r.Failf("%s: %v", cmd.Action, err)
	case rep.Error != "":
		r.Failf("the Runtime's controlled adapter refused %s: %s", cmd.Action, rep.Error)
	}
	r.after()
}

// controlDo sends cmd on the newest control channel opened since the
// scenario began. A Runtime started separately after the previous one
// left can find that one's channel still open, if it was dialled late:
// the newer channel replaces it, and a command that could not be written
// on a channel that closed goes on the next one (written nowhere, it ran
// nowhere).
func (r *rtRun) controlDo(cmd scenarios.ControlCommand) (scenarios.ControlReply, error) {
	for {
		if c := r.fr.hub.current(r.since); c != nil {
			r.ctl = c
		}
		rep, err := r.ctl.do(cmd, r.o.FrameTimeout)
		if !errors.Is(err, errControlWrite) {
			return rep, err
		}
		next := r.fr.hub.wait(r.o.FrameTimeout, r.since, r.ctl)
		if next == nil {
			return rep, err
		}
		r.ctl = next
	}
}

// RuntimeOwned asks the Runtime over the control channel; a count it does
// not report, or an answer it cannot give, is not checked.
func (r *rtRun) RuntimeOwned(args map[string]string) {
	var rep scenarios.ControlReply
	err := errors.New("no control channel open (the Runtime may have exited)")
	if c := r.fr.hub.current(r.since); c != nil {
		r.ctl = c
	}
	if r.ctl != nil && !r.ctl.closed() {
		if rep, err = r.controlDo(scenarios.ControlCommand{Action: "owned"}); err == nil && rep.Error != "" {
			err = errors.New(rep.Error)
		}
	}
	for _, k := range scenarios.KindRuntimeOwned.Members() {
		want, listed := args[k]
		have, reported := rep.Owned[k]
		switch {
		case !listed:
		case err != nil:
			r.notf("runtime-owned %s=%s: %v", k, want, err)
		case !reported:
			r.notf("runtime-owned %s=%s: the Runtime does not report it", k, want)
		case strconv.Itoa(have) != want:
			r.Failf("runtime-owned %s=%d, want %s (reported %v)", k, have, want, rep.Owned)
		}
	}
}

// shutdownSeparate sends device_shutdown to a Runtime started separately
// (waiting for it to reconnect first if the scenario ended disconnected)
// and waits for its connection to end.
func (r *rtRun) shutdownSeparate() {
	if r.sess != nil && r.sess.frames != nil {
		if ended, _ := r.sess.frames.ended(); ended {
			r.sess = nil // the Runtime left already; a new process will dial
		}
	}
	if r.sess == nil {
		ctx, cancel := context.WithTimeout(context.Background(), r.o.FrameTimeout)
		s, err := r.core.Next(ctx)
		cancel()
		if err != nil {
			return
		}
		r.sess = &rtSession{s: s}
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.o.FrameTimeout)
	defer cancel()
	if r.sess.s.SendRaw(ctx, []byte(`{"type":"device_shutdown","payload":{"reason":"conform: scenario over"}}`)) != nil {
		return
	}
	if r.sess.frames != nil {
		r.sess.frames.waitEnd(r.t.Grace) // its reader sees the connection end
		r.gone = time.Now()
		return
	}
	wait, stop := context.WithTimeout(context.Background(), r.t.Grace)
	defer stop()
	for {
		if _, err := r.sess.s.RecvRaw(wait); err != nil {
			return // the Runtime closed the connection (or the grace ran out)
		}
	}
}

// VersionRefused starts the Runtime once more against a scripted Core
// speaking another version: it must exit with a failure after exactly
// one upgrade (one started separately: not checked).
func (r *rtRun) VersionRefused(args map[string]string) {
	ctx := r.ctx
	v := strings.ReplaceAll(args["version"], "$version", wire.Version)
	if v == wire.Version {
		r.Failf("version %q is this protocol's own", v)
		return
	}
	if !r.t.started() {
		r.notf("version-refused version=%s: the Runtime was started separately and cannot be started against another Core", v)
		return
	}
	listen := func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
	if r.t.listen != nil {
		listen = r.t.listen
	}
	l, err := listen()
	if err != nil {
		r.Failf("version-refused: %v", err)
		return
	}
	core := &transporttest.Core{DeviceID: RuntimeDevice, Credential: RuntimeCredential, Version: v}
	srv := &http.Server{Handler: core.Handler()}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	defer core.Close()
	base := "http://" + l.Addr().String()
	env := rtEnv{base: base, credFile: r.env.credFile}
	p, err := r.t.startRuntime(env.vars(r.sc, base), r.out)
	if err != nil {
		r.Failf("version-refused: %v", err)
		return
	}
	defer p.stop(r.t.Grace)
	exited, code := p.waitExit(ctx, 2*r.o.FrameTimeout)
	switch {
	case !exited:
		r.Failf("Core at version %q: the Runtime was still running after %v (%d upgrade attempts)", v, 2*r.o.FrameTimeout, core.Dials())
	case core.Dials() != 1:
		r.Failf("Core at version %q: %d upgrade attempts, want 1 (the Runtime exited with %d)", v, core.Dials(), code)
	case code == 0:
		r.Failf("Core at version %q: the Runtime exited with status 0 after a permanent refusal, want a failure status", v)
	}
}

// front serves the current scenario's Core routes and the control channel.
type front struct {
	mu   sync.Mutex
	core http.Handler
	hub  *controlHub
}

func (f *front) setCore(h http.Handler) { f.mu.Lock(); f.core = h; f.mu.Unlock() }

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == scenarios.ControlPath {
		f.hub.accept(w, r)
		return
	}
	f.mu.Lock()
	h := f.core
	f.mu.Unlock()
	if h == nil {
		http.Error(w, `{"error":"internal","detail":"no scenario is running"}`, http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
}

// controlHub holds the Runtime's control channel: the latest one opened.
type controlHub struct {
	mu      sync.Mutex
	conn    *controlConn
	arrived chan struct{}
}

func newControlHub() *controlHub { return &controlHub{arrived: make(chan struct{}, 1)} }

type controlConn struct {
	at      time.Time // when it opened
	ws      *websocket.Conn
	replies chan scenarios.ControlReply
	done    chan struct{}
	seq     int
}

func (h *controlHub) accept(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	c := &controlConn{at: time.Now(), ws: ws, replies: make(chan scenarios.ControlReply, 16), done: make(chan struct{})}
	h.swap(c, "replaced")
	select {
	case h.arrived <- struct{}{}:
	default:
	}
	go func() {
		defer close(c.done)
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			var rep scenarios.ControlReply
			if json.Unmarshal(b, &rep) == nil {
				c.replies <- rep
			}
		}
	}()
}

// wait returns, within d, the open channel opened since then (an earlier
// one is an earlier scenario's Runtime's) other than stale.
func (h *controlHub) wait(d time.Duration, since time.Time, stale *controlConn) *controlConn {
	deadline := time.After(d)
	for {
		if c := h.current(since); c != nil && c != stale {
			return c
		}
		select {
		case <-h.arrived:
		case <-deadline:
			return nil
		}
	}
}

// current is the newest channel if it is open and was opened since then.
func (h *controlHub) current(since time.Time) *controlConn {
	h.mu.Lock()
	c := h.conn
	h.mu.Unlock()
	if c == nil || c.closed() || c.at.Before(since) {
		return nil
	}
	return c
}

// drop closes the current channel (the scenario's Runtime is stopping).
func (h *controlHub) drop() { h.swap(nil, "scenario over") }

// swap makes c the channel and closes the one before, on its own
// goroutine: a gone peer must not stall the caller.
func (h *controlHub) swap(c *controlConn, why string) {
	h.mu.Lock()
	old := h.conn
	h.conn = c
	h.mu.Unlock()
	if old != nil {
		go old.ws.Close(websocket.StatusNormalClosure, why)
	}
}

func (c *controlConn) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// errControlWrite: a command could not be written on the channel, or was
// not, the channel being closed already.
var errControlWrite = errors.New("control channel")

// do sends one command and waits up to d for its answer.
func (c *controlConn) do(cmd scenarios.ControlCommand, d time.Duration) (scenarios.ControlReply, error) {
	if c.closed() {
		return scenarios.ControlReply{}, fmt.Errorf("%w: closed by the Runtime", errControlWrite)
	}
	c.seq++
	cmd.Seq = c.seq
	b, _ := json.Marshal(cmd)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return scenarios.ControlReply{}, fmt.Errorf("%w: %w", errControlWrite, err)
	}
	for {
		select {
		case rep := <-c.replies:
			if rep.Seq == cmd.Seq {
				return rep, nil
			}
		case <-c.done:
			return scenarios.ControlReply{}, fmt.Errorf("control channel closed before answering %s", cmd.Action)
		case <-ctx.Done():
			return scenarios.ControlReply{}, fmt.Errorf("no answer to %s on the control channel within %v", cmd.Action, d)
		}
	}
}

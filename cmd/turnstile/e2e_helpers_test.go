package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
	dmachine "github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/daemon/transport/transporttest"
)

const (
	e2eDevice     = "dev-e2e"
	e2eCredential = "tsd_e2e-device-credential-51f0"
	e2eToken      = "operator-token-e2e-9a7c"
	e2eCore       = "http://core.test"
)

// stack is a real Core (server loop, gateway, API, SQLite in a temp dir)
// and a real daemon with the synthetic Harness, connected over an
// in-memory network of net.Pipe connections so that it runs inside a
// testing/synctest bubble.
type stack struct {
	t       *testing.T
	net     *transporttest.Network
	store   *sqlitestore.Store
	srv     *server.Server
	gw      *gateway.Gateway
	hs      *http.Server
	client  *http.Client // the API's
	link    *transporttest.Group
	dclient *http.Client // the daemon's, in link
	h       *synthetic.Harness
	d       *runner.Daemon
	res     chan daemonEnd
	logs    *lockedBuffer
	stopped bool
	coreRan chan error
	stopRun context.CancelFunc
	decls   []agent.Declaration // the daemon's kinds (nil: the synthetic Harness h)
	wsDir   string              // the daemon's workspaces directory ("": none)
	policy  *engine.Policy      // Core's qualification (nil: the built-in catalog)
	tracing stackTracing        // tracers and Vault key (zero: none)
	// metrics: Core and the daemon record into coreReg and daemonReg
	// (Core's served on its /metrics).
	metrics            bool
	coreReg, daemonReg *prometheus.Registry
}

type daemonEnd struct {
	r   runner.Result
	err error
}

type stackOptions struct {
	version string // the daemon's protocol version ("": wire.Version)
	dir     string // SQLite directory ("": a temp dir)
	decls   []agent.Declaration
	// workspaces is the daemon's -workspaces directory ("": none).
	workspaces string
	// policy is the one qualification Core's API admission, device
	// selection and final dispatch read (nil: the built-in catalog).
	policy *engine.Policy
	// tracing gives Core and the daemon tracers, and Core a Vault key.
	tracing stackTracing
	// metrics registers Core's and the daemon's collectors.
	metrics bool
}

// stackTracing is what a tracing test sets on a stack: Core's and the
// daemon's tracers, and a Vault key (Core's /v1 objects then live in the
// SQLite store and its frames get their Vault secrets).
type stackTracing struct {
	core, daemon trace.Tracer
	vaultKey     *api.VaultKey
}

// newStack starts Core and a daemon and waits until Core has the device's
// first heartbeat. It must run inside synctest.Test.
func newStack(t *testing.T, o stackOptions) *stack {
	t.Helper()
	s := &stack{t: t, net: transporttest.NewNetwork(), h: synthetic.New(), res: make(chan daemonEnd, 1), logs: &lockedBuffer{},
		decls: o.decls, wsDir: o.workspaces, policy: o.policy, tracing: o.tracing, metrics: o.metrics}
	s.client = s.net.HTTPClient()
	s.link = s.net.Group()
	s.dclient = s.link.HTTPClient()
	s.startCore(o.dir)
	t.Cleanup(s.close)
	s.startDaemon(o.version)
	return s
}

func (s *stack) startCore(dir string) {
	t := s.t
	if dir == "" {
		dir = t.TempDir()
	}
	st, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.store = st
	back := sqliteBackend{st}
	if _, ok, _ := back.Device(e2eDevice); !ok {
		if err := back.AddDevice(e2eDevice, sha256.Sum256([]byte(e2eCredential)), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(slog.NewTextHandler(s.logs, nil))
	var metrics *server.Metrics
	if s.metrics {
		s.coreReg = prometheus.NewRegistry()
		metrics = registerCoreMetrics(s.coreReg)
	}
	opt := server.Options{Config: core.Config{Policy: s.policy}, Logger: log, RevocationPoll: time.Second, Tracer: s.tracing.core, Metrics: metrics}
	apiOpt := api.Options{OperatorToken: e2eToken, Logger: log, Keys: api.StaticKey("e2e", e2eToken)}
	if k := s.tracing.vaultKey; k != nil {
		opt.PrepareFrame = api.NewVaults(st, k).FrameSecrets
		apiOpt.Resources, apiOpt.VaultKey = st, k
	}
	s.srv, err = server.New(back, opt)
	if err != nil {
		t.Fatal(err)
	}
	s.gw, err = gateway.New(s.srv, gateway.Options{PublicURL: e2eCore, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	a, err := api.New(s.srv, apiOpt)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	s.gw.Register(mux)
	a.Register(mux)
	if s.metrics {
		s.coreReg.MustRegister(turnsCollector(s.srv))
		registerProbes(mux, s.srv, s.coreReg)
	}
	s.hs = &http.Server{Handler: mux}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopRun, s.coreRan = cancel, make(chan error, 1)
	go func() { s.coreRan <- s.srv.Run(ctx) }()
	go func() { _ = s.hs.Serve(s.net) }()
}

func (s *stack) startDaemon(version string) {
	t := s.t
	decls := s.decls
	if decls == nil {
		decls = []agent.Declaration{synthetic.Declaration(s.h)}
	}
	reg, kinds, err := runner.Install(context.Background(), decls, nil, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var metrics *runner.Metrics
	if s.metrics {
		s.daemonReg, metrics = daemonRegistry()
	}
	s.d = runner.New(withWorkspaces(runner.Config{
		Machine:   dmachine.Config{Kinds: kinds, DaemonVersion: "e2e"},
		Executors: reg,
		Client: &transport.Client{CoreURL: e2eCore, DeviceID: e2eDevice, Credential: e2eCredential,
			Version: version, HTTP: s.dclient},
		Policy:  transport.Policy{Base: 500 * time.Millisecond, Max: 2 * time.Second},
		Rand:    rand.New(rand.NewPCG(11, 12)),
		Log:     newDaemonLogger(s.logs, slog.LevelDebug, e2eCredential),
		Metrics: metrics,
		Tracer:  s.tracing.daemon,
	}, s.wsDir))
	go func() {
		r, err := s.d.Run(context.Background())
		s.res <- daemonEnd{r, err}
	}()
}

// waitDaemon returns how the daemon ended.
func (s *stack) waitDaemon() daemonEnd {
	s.t.Helper()
	r := <-s.res
	s.stopped = true
	return r
}

// restartCore stops the daemon and Core, then starts Core again on the
// same SQLite directory (and a fresh network): what it answers then is
// what was persisted.
func (s *stack) restartCore(dir string) {
	s.t.Helper()
	s.stopAll()
	s.net = transporttest.NewNetwork()
	s.client = s.net.HTTPClient()
	s.link = s.net.Group()
	s.dclient = s.link.HTTPClient()
	s.startCore(dir)
}

// close stops the daemon gracefully, then Core, and checks that no log
// line holds a secret.
func (s *stack) close() {
	s.stopAll()
	for _, secret := range []string{e2eCredential, e2eToken} {
		if strings.Contains(s.logs.String(), secret) {
			s.t.Errorf("a log line holds a secret:\n%s", s.logs.String())
		}
	}
}

func (s *stack) stopAll() {
	if !s.stopped {
		s.d.Shutdown("test finished")
		s.waitDaemon()
	}
	_ = s.hs.Close()
	s.stopRun()
	if err := <-s.coreRan; err != nil {
		s.t.Errorf("core loop: %v", err)
	}
	s.gw.Wait(10 * time.Second)
	_ = s.net.Close()
	s.client.CloseIdleConnections()
	s.dclient.CloseIdleConnections()
	_ = s.store.Close()
}

// call sends one API request with the operator token and decodes the
// JSON answer into out (when not nil); it returns the status.
func (s *stack) call(method, path string, body any, out any) int {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e2eCore+path, rd)
	req.Header.Set("Authorization", "Bearer "+e2eToken)
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			s.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	if resp.StatusCode >= 300 {
		s.t.Logf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return resp.StatusCode
}

// session creates a Session of the synthetic Harness without an
// environment through /v1 and returns its ID.
func (s *stack) session() string {
	s.t.Helper()
	return s.createSession(map[string]any{"agent": map[string]any{"model": "synthetic-1",
		"x_agents_core": map[string]any{"harness": synthetic.Kind}}, "environment": map[string]any{"type": "none"}})
}

// createSession creates a Session through /v1 from body and returns its
// ID.
func (s *stack) createSession(body map[string]any) string {
	s.t.Helper()
	var out struct {
		ID string `json:"id"`
	}
	if code := s.call("POST", "/v1/agents/sessions", body, &out); code != http.StatusOK {
		s.t.Fatalf("create session: %d", code)
	}
	return out.ID
}

// submit sends a message to the idle Session through /v1 and returns the
// Turn it started.
func (s *stack) submit(session, text string) string {
	s.t.Helper()
	return s.submitInput(session, text)
}

// submitInput is submit with any /v1 message input (a string or
// messages).
func (s *stack) submitInput(session string, input any) string {
	s.t.Helper()
	r := s.send(session, map[string]any{"type": api.InputMessage, "input": input})
	if r.Action != "turn_started" {
		s.t.Fatalf("submit: %+v, want a Turn started", r)
	}
	return r.TurnID
}

// send posts one input event to the Session through /v1 and returns its
// receipt.
func (s *stack) send(session string, event map[string]any) api.Receipt {
	s.t.Helper()
	var out api.EventsReceipt
	if code := s.call("POST", "/v1/agents/sessions/"+session+"/events", map[string]any{"events": []any{event}}, &out); code != http.StatusOK || len(out.Receipts) != 1 {
		s.t.Fatalf("send %v: %d %+v", event, code, out)
	}
	return out.Receipts[0]
}

// steer sends a message while the Turn runs (a steering input) and
// returns its input ID.
func (s *stack) steer(session, text string) string {
	s.t.Helper()
	r := s.send(session, map[string]any{"type": api.InputMessage, "input": text})
	if r.Action != "steered" {
		s.t.Fatalf("steer: %+v", r)
	}
	return r.InputID
}

// cancel sends the cancel event for the Session's unfinished Turn.
func (s *stack) cancel(session string) {
	s.t.Helper()
	s.send(session, map[string]any{"type": api.InputCancel})
}

// turn is Core's operator view of a Turn (GET /core/v1/turns/{turn}).
func (s *stack) turn(id string) api.TurnJSON {
	s.t.Helper()
	var out api.TurnJSON
	if code := s.call("GET", "/core/v1/turns/"+id, nil, &out); code != http.StatusOK {
		s.t.Fatalf("get turn: %d", code)
	}
	return out
}

// e2eEvent is one Server-Sent Event of a /v1 Session stream.
type e2eEvent struct {
	ID, Event, Data string
}

// turnEnd reports whether a /v1 event type ends a Turn.
func turnEnd(typ string) bool {
	return typ == api.EvTurnCompleted || typ == api.EvTurnFailed || typ == api.EvTurnCancelled
}

// events opens the /v1 event stream of the Turn's Session from the
// Turn's start and returns the Turn's run events as they arrive: its
// output text deltas, errors and its terminal event, after which the
// channel closes (it closes early when the stream breaks).
func (s *stack) events(turn string) <-chan e2eEvent {
	s.t.Helper()
	return streamTurn(s.t, s.client, e2eCore, e2eToken, s.turn(turn).SessionID, turn)
}

// streamTurn reads the /v1 stream of Session sid from Turn turn's start
// with API key key; see stack.events.
func streamTurn(t testing.TB, c *http.Client, base, key, sid, turn string) <-chan e2eEvent {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/agents/sessions/"+sid+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Last-Event-ID", turn+":0:0:0:0")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	out := make(chan e2eEvent, 256)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev e2eEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				var d struct {
					TurnID string `json:"turn_id"`
				}
				_ = json.Unmarshal([]byte(ev.Data), &d)
				run := ev.Event == api.EvOutputTextDelta || ev.Event == api.EvError || turnEnd(ev.Event)
				if run && (d.TurnID == turn || ev.Event == api.EvError) {
					out <- ev
				}
				if turnEnd(ev.Event) && d.TurnID == turn {
					return
				}
				ev = e2eEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Event = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.Data = line[6:]
			}
		}
	}()
	return out
}

// next returns the next event of the stream, failing when it ended.
func e2eNext(t *testing.T, ch <-chan e2eEvent) e2eEvent {
	t.Helper()
	ev, ok := <-ch
	if !ok {
		t.Fatal("event stream ended")
	}
	return ev
}

// owned returns what the daemon machine owns now.
func (s *stack) owned() []dmachine.Resource {
	s.t.Helper()
	r, err := s.d.Owned(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	return r
}

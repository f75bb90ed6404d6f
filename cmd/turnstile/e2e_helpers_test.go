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

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/api"
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
}

// newStack starts Core and a daemon and waits until Core has the device's
// first heartbeat. It must run inside synctest.Test.
func newStack(t *testing.T, o stackOptions) *stack {
	t.Helper()
	s := &stack{t: t, net: transporttest.NewNetwork(), h: synthetic.New(), res: make(chan daemonEnd, 1), logs: &lockedBuffer{},
		decls: o.decls, wsDir: o.workspaces}
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
	s.srv, err = server.New(back, server.Options{Logger: log, RevocationPoll: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s.gw, err = gateway.New(s.srv, gateway.Options{PublicURL: e2eCore, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	a, err := api.New(s.srv, api.Options{OperatorToken: e2eToken, Logger: log, Keys: api.StaticKey("e2e", e2eToken)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	s.gw.Register(mux)
	a.Register(mux)
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
	s.d = runner.New(withWorkspaces(runner.Config{
		Machine:   dmachine.Config{Kinds: kinds, DaemonVersion: "e2e"},
		Executors: reg,
		Client: &transport.Client{CoreURL: e2eCore, DeviceID: e2eDevice, Credential: e2eCredential,
			Version: version, HTTP: s.dclient},
		Policy: transport.Policy{Base: 500 * time.Millisecond, Max: 2 * time.Second},
		Rand:   rand.New(rand.NewPCG(11, 12)),
		Log:    newDaemonLogger(s.logs, slog.LevelDebug, e2eCredential),
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

func (s *stack) session() string {
	s.t.Helper()
	var out struct {
		SessionID string `json:"session_id"`
	}
	body := map[string]any{"agent": map[string]any{"kind": synthetic.Kind, "model": "synthetic-1"}, "environment": map[string]any{"type": "none"}}
	if code := s.call("POST", "/api/v1/sessions", body, &out); code != http.StatusCreated {
		s.t.Fatalf("create session: %d", code)
	}
	return out.SessionID
}

func (s *stack) submit(session, text string) string {
	s.t.Helper()
	var out struct {
		TurnID string `json:"turn_id"`
	}
	if code := s.call("POST", "/api/v1/sessions/"+session+"/turns", map[string]any{"text": text}, &out); code != http.StatusCreated {
		s.t.Fatalf("submit: %d", code)
	}
	return out.TurnID
}

func (s *stack) turn(id string) api.TurnJSON {
	s.t.Helper()
	var out api.TurnJSON
	if code := s.call("GET", "/api/v1/turns/"+id, nil, &out); code != http.StatusOK {
		s.t.Fatalf("get turn: %d", code)
	}
	return out
}

// e2eEvent is one Server-Sent Event.
type e2eEvent struct {
	ID, Event, Data string
}

// events opens the Turn's event stream and returns its events as they
// arrive; the channel closes when the stream ends.
func (s *stack) events(turn string) <-chan e2eEvent {
	s.t.Helper()
	req, _ := http.NewRequest("GET", e2eCore+"/api/v1/turns/"+turn+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+e2eToken)
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("events: %d", resp.StatusCode)
	}
	out := make(chan e2eEvent, 256)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var ev e2eEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" {
					out <- ev
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

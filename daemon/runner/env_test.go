package runner_test

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/daemon/transport"
	"github.com/turnstile-sim/turnstile/daemon/transport/transporttest"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	deviceID   = "dev-1"
	credential = "runner-test-credential"
)

// env is one daemon against the scripted Core, inside a synctest bubble.
type env struct {
	t       *testing.T
	ctx     context.Context
	core    *transporttest.Core
	h       *synthetic.Harness
	d       *runner.Daemon
	s       *transporttest.Session
	res     chan runResult
	logs    *syncBuffer
	reports chan daemon.Report
	http    interface{ CloseIdleConnections() }
	ended   bool
}

type runResult struct {
	r   runner.Result
	err error
}

// options tune one env.
type options struct {
	heartbeatSeconds int
	version          string
	refuse           func(attempt int) (int, string)
	bootstrapDown    bool             // every bootstrap answers 503
	executors        runner.Executors // nil: the synthetic Harness
	grace            time.Duration
	noConnect        bool
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newEnv starts Core and a daemon, and waits for the first connection
// (unless o.noConnect). It must run inside synctest.Test.
func newEnv(t *testing.T, o options) *env {
	t.Helper()
	e := &env{t: t, ctx: t.Context(), h: synthetic.New(), res: make(chan runResult, 1),
		logs: &syncBuffer{}, reports: make(chan daemon.Report, 64),
		core: &transporttest.Core{DeviceID: deviceID, Credential: credential, HeartbeatSeconds: o.heartbeatSeconds,
			Version: o.version, Refuse: o.refuse}}
	if o.bootstrapDown {
		e.core.RefuseBootstrap = func(int) int { return http.StatusServiceUnavailable }
	}
	n := e.core.Start()
	client := n.HTTPClient()
	e.http = client
	reg, kinds, err := runner.Install(e.ctx, []agent.Declaration{synthetic.Declaration(e.h)}, nil, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var executors runner.Executors = reg
	if o.executors != nil {
		executors = o.executors
	}
	e.d = runner.New(runner.Config{
		Machine:   daemon.Config{Kinds: kinds, DaemonVersion: "runner-test"},
		Executors: executors,
		Client:    &transport.Client{CoreURL: transporttest.URL, DeviceID: deviceID, Credential: credential, HTTP: client},
		Policy:    transport.Policy{Base: time.Second, Max: 4 * time.Second},
		Rand:      rand.New(rand.NewPCG(7, 7)),
		Log:       slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Grace:     o.grace,
		OnReport:  func(r daemon.Report) { e.reports <- r },
	})
	// The daemon runs on its own context: t.Context is cancelled before
	// the cleanup's graceful shutdown runs, and a hard stop leaves
	// native work behind by design.
	go func() {
		r, err := e.d.Run(context.Background())
		e.res <- runResult{r, err}
	}()
	t.Cleanup(e.close)
	if !o.noConnect {
		e.s = e.next()
	}
	return e
}

func (e *env) next() *transporttest.Session {
	e.t.Helper()
	s, err := e.core.Next(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// close shuts the daemon down (if still running) and stops Core.
func (e *env) close() {
	if !e.ended {
		e.d.Shutdown("test finished")
		<-e.res
	}
	e.core.Close()
	e.http.CloseIdleConnections()
	if strings.Contains(e.logs.String(), credential) {
		e.t.Errorf("the log holds the credential:\n%s", e.logs.String())
	}
}

// wait returns how the daemon ended.
func (e *env) wait() runResult {
	e.t.Helper()
	r := <-e.res
	e.ended = true
	return r
}

func (e *env) send(id string, p wire.Payload) {
	e.t.Helper()
	if err := e.s.Send(e.ctx, wire.Frame{ID: id, Payload: p}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) expect(typ string) wire.Frame {
	e.t.Helper()
	f, err := e.s.Expect(e.ctx, typ)
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

func expectPayload[P wire.Payload](e *env) (string, P) {
	e.t.Helper()
	var zero P
	f := e.expect(zero.MessageType())
	return f.ID, f.Payload.(P)
}

func (e *env) status(want string) wire.PreparationStatus {
	e.t.Helper()
	_, st := expectPayload[wire.PreparationStatus](e)
	if st.State != want {
		e.t.Fatalf("preparation_status %s (code %q), want %s", st.State, st.ErrorCode, want)
	}
	return st
}

func prepareFor(session string) wire.ExecutionPrepare {
	return wire.ExecutionPrepare{SessionID: session, Configuration: wire.ExecutionConfiguration{
		AgentKind: synthetic.Kind, AgentStateKey: "agents-api-" + session,
		StrictResume: true, DisableExecutionEnvironment: true,
	}}
}

// ready prepares session under request req and returns the ready status.
func (e *env) ready(req, session string) wire.PreparationStatus {
	e.t.Helper()
	e.send(req, prepareFor(session))
	e.status(wire.StatePreparing)
	return e.status(wire.StateReady)
}

// run prepares and starts one Turn of run with text, up to `started`.
func (e *env) run(req, session, run, text string) {
	e.t.Helper()
	st := e.ready(req, session)
	e.send(req, wire.ExecutionStart{ExecutorID: st.ExecutorID, Handle: st.Handle, RunID: run, Input: wire.TextInput(text)})
	e.status(wire.StateStarting)
	e.status(wire.StateStarted)
}

// deltas collects delta texts of run until done, and returns both.
func (e *env) untilDone(run string) ([]string, wire.Done) {
	e.t.Helper()
	var texts []string
	for {
		f, err := e.s.Recv(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		switch p := f.Payload.(type) {
		case wire.Heartbeat, wire.UsageUpdate, wire.Thinking:
		case wire.Delta:
			if f.ID != run {
				e.t.Fatalf("delta of run %q, want %q", f.ID, run)
			}
			texts = append(texts, p.Delta)
		case wire.Done:
			if f.ID != run {
				e.t.Fatalf("done of run %q, want %q", f.ID, run)
			}
			return texts, p
		default:
			e.t.Fatalf("unexpected %s before done", wire.Describe(f))
		}
	}
}

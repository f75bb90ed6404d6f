package acp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/acp/acptest"
	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestMain runs the scripted agent when the test binary is started as one.
func TestMain(m *testing.M) {
	acptest.Main()
	os.Exit(m.Run())
}

// scripted is the mcode profile over the scripted agent (this test binary
// run as acptest), with its log.
type scripted struct {
	h   *Harness
	log string
}

func newScripted(t *testing.T, edit func(*Options)) scripted {
	t.Helper()
	log := filepath.Join(t.TempDir(), "agent.log")
	opts := Options{Profile: MCode(), Command: []string{os.Args[0]},
		Env:     []string{acptest.EnvAgent + "=1", acptest.EnvLog + "=" + log},
		WorkDir: t.TempDir(), Grace: 2 * time.Second, Stall: time.Minute}
	if edit != nil {
		edit(&opts)
	}
	return scripted{New(opts), log}
}

// mcodeConfig is what the mcode profile accepts: no execution controls,
// no subagent control.
func mcodeConfig() agent.ExecutorConfig {
	return agent.ExecutorConfig{SessionID: "session-1", Configuration: wire.ExecutionConfiguration{
		AgentKind: MCode().Kind(), DisableExecutionEnvironment: true, StrictResume: true}}
}

// lines returns the log lines the agent read that contain every part.
func (s scripted) lines(t *testing.T, parts ...string) []string {
	t.Helper()
	b, err := os.ReadFile(s.log)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		ok := l != ""
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

func steerIn(t *testing.T, turn agent.Turn, id, text string, d time.Duration) (agent.AppliedReceipt, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return turn.(agent.DurableSteerer).SteerDurable(ctx, agent.SteerInput{InputID: id, Input: wire.TextInput(text)})
}

// A plain Turn over the scripted agent: text, usage, done, reusable.
func TestScriptedEchoTurn(t *testing.T) {
	s := newScripted(t, nil)
	ex := newExecutor(t, s.h, mcodeConfig())
	r := startRun(t, ex, "run-echo", "echo hi there")
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	done := doneOf(t, r.got)
	if text(r.got) != "echo: hi there" || done.Usage == nil || done.Usage.Tokens.TotalTokens != 9 || errorOf(r.got) != nil {
		t.Fatalf("events %v", r.got)
	}
	if n := len(s.lines(t, `"method":"initialize"`, `"fs":{"readTextFile":false,"writeTextFile":false}`, `"terminal":false`)); n != 1 {
		t.Fatalf("initialize did not declare fs and terminal false: %q", s.lines(t, "initialize"))
	}
}

// The client's fs and terminal capabilities are declared false, and an
// agent that asks anyway gets method-not-found; the Turn goes on.
func TestScriptedClientMethodsRefused(t *testing.T) {
	s := newScripted(t, nil)
	ex := newExecutor(t, s.h, mcodeConfig())
	r := startRun(t, ex, "run-fs", "fs")
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	if got := text(r.got); !strings.Contains(got, `"code":-32601`) || errorOf(r.got) != nil {
		t.Fatalf("events %v", r.got)
	}
}

// A pending permission request is withdrawn when its Turn is cancelled:
// a permission_cancel names it, the agent is answered cancelled, and a
// late answer is ErrNotPending.
func TestScriptedPermissionWithdrawnOnCancel(t *testing.T) {
	s := newScripted(t, func(o *Options) { o.Profile = Profile{Name: "acptest", Permissions: true} })
	cfg := mcodeConfig()
	cfg.Configuration.AgentKind = s.h.Kind()
	ex := newExecutor(t, s.h, cfg)
	r := startRun(t, ex, "run-perm", "permission")
	req := r.until(t, isPermission).Payload.(wire.PermissionRequest)
	if req.Tool != "edit" || req.Title != "touch a file" || string(req.Payload) != `{"path":"a.txt"}` {
		t.Fatalf("permission request %+v", req)
	}
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.settle(t)
	withdrawn := false
	for _, ev := range r.got {
		_, ok := ev.Payload.(wire.PermissionCancel)
		withdrawn = withdrawn || (ok && ev.InteractionID == req.RequestID)
	}
	if !withdrawn || !strings.Contains(text(r.got), `permission: {"outcome":{"outcome":"cancelled"}}`) {
		t.Fatalf("events %v", r.got)
	}
	if err := r.turn.(agent.PermissionResponder).RespondPermission(context.Background(), req.RequestID,
		wire.PermissionDecision{Approved: true}); !errors.Is(err, agent.ErrNotPending) {
		t.Fatalf("answer after the withdrawal = %v", err)
	}
	if err := r.turn.(agent.UserChoiceResponder).RespondUserChoice(context.Background(), "ask-1",
		wire.UserChoiceDecision{}); !errors.Is(err, agent.ErrNotPending) {
		t.Fatalf("user choice = %v", err)
	}
}

// MiniMax Code's mcode/session/steer: steered is native acceptance (the
// input streams into the running Turn) and the receipt stays open; a
// repeat of the input ID returns the same receipt without a second
// request; a steer whose answer never came is unknown (neither accepted
// nor inactive) and its retry carries the same clientRequestId, which the
// agent answers duplicate (accepted, no second effect); a refusal is
// ErrTurnInactive. Once the Turn ended every accepted receipt answers
// ErrApplyUnknown: acceptance never proves consumption.
func TestScriptedMCodeSteerOutcomes(t *testing.T) {
	s := newScripted(t, nil)
	ex := newExecutor(t, s.h, mcodeConfig())
	if !ex.Capabilities().Steering.IsSupported() {
		t.Fatal("the scripted agent advertises mcode/session/steer; steering must be supported")
	}
	r := startRun(t, ex, "run-steer", "hold")
	r.until(t, isDelta)
	rc, err := steerIn(t, r.turn, "in-1", "go north", 10*time.Second)
	if err != nil {
		t.Fatalf("steered: %v", err)
	}
	r.until(t, func(ev agent.Event) bool { return text([]agent.Event{ev}) == "steered: go north" })
	if err := awaitShort(rc); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an accepted steer's receipt = %v, want still open", err)
	}
	if again, err := steerIn(t, r.turn, "in-1", "go north", 10*time.Second); err != nil || again != rc {
		t.Fatalf("repeat: %v, %v", again, err)
	}
	if _, err := steerIn(t, r.turn, "in-1", "go south", 10*time.Second); !errors.Is(err, agent.ErrInputConflict) {
		t.Fatalf("conflict = %v", err)
	}
	if n := len(s.lines(t, "mcode/session/steer", `"clientRequestId":"in-1"`)); n != 1 {
		t.Fatalf("%d steer requests for in-1, want 1", n)
	}

	// The first answer never comes: unknown, not inactive.
	if _, err := steerIn(t, r.turn, "in-2", "mute east", 300*time.Millisecond); err == nil ||
		errors.Is(err, agent.ErrTurnInactive) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("unanswered steer = %v, want the caller's deadline", err)
	}
	rc2, err := steerIn(t, r.turn, "in-2", "mute east", 10*time.Second)
	if err != nil {
		t.Fatalf("retry answered duplicate: %v", err)
	}
	if n := len(s.lines(t, "mcode/session/steer", `"clientRequestId":"in-2"`)); n != 2 {
		t.Fatalf("%d steer requests for in-2, want 2 (one key)", n)
	}
	if _, err := steerIn(t, r.turn, "in-3", "refuse west", 10*time.Second); !errors.Is(err, agent.ErrTurnInactive) {
		t.Fatalf("refused steer = %v", err)
	}
	if _, err := steerIn(t, r.turn, "in-3", "refuse west", 10*time.Second); !errors.Is(err, agent.ErrTurnInactive) {
		t.Fatalf("repeat of a refused steer = %v", err)
	}

	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	for _, rcpt := range []agent.AppliedReceipt{rc, rc2} {
		if err := awaitShort(rcpt); !errors.Is(err, ErrApplyUnknown) {
			t.Fatalf("receipt after the Turn = %v, want ErrApplyUnknown", err)
		}
	}
	if _, err := steerIn(t, r.turn, "in-4", "late", 10*time.Second); !errors.Is(err, agent.ErrTurnInactive) {
		t.Fatalf("steer after the Turn = %v", err)
	}
	if n := len(s.lines(t, "mcode/session/steer", "in-4")); n != 0 {
		t.Fatal("a steer after the Turn reached the agent")
	}
}

func awaitShort(rc agent.AppliedReceipt) error {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	return rc.AwaitApplied(ctx)
}

// The agent crashes in the middle of a prompt: the Turn fails and settles
// non-reusable; the Executor takes no further Turn.
func TestScriptedCrashMidPrompt(t *testing.T) {
	s := newScripted(t, nil)
	ex := newExecutor(t, s.h, mcodeConfig())
	r := startRun(t, ex, "run-crash", "crash")
	st := r.settle(t)
	if st.Reusable || st.Reason == "" {
		t.Fatalf("settlement %+v", st)
	}
	if e := errorOf(r.got); e == nil || !strings.Contains(e.Error, "exited") || text(r.got) != "crashing" {
		t.Fatalf("events %v", r.got)
	}
	if _, err := ex.StartTurn(context.Background(), agent.TurnRequest{RunID: "after", Input: wire.TextInput("echo x"),
		Output: make(chan agent.Event, 4)}); !errors.Is(err, agent.ErrExecutorUnavailable) {
		t.Fatalf("StartTurn after the crash = %v", err)
	}
	closeExec(t, ex)
}

// A permission request the agent sends after session/cancel is answered
// cancelled at once, never handed to the caller; the Turn settles on the
// prompt's cancelled answer without error and the Executor stays healthy.
func TestScriptedPermissionAfterCancel(t *testing.T) {
	// A profile that hands permissions to the Turn, over the scripted agent.
	s := newScripted(t, func(o *Options) { o.Profile = Profile{Name: "acptest", Permissions: true} })
	cfg := mcodeConfig()
	cfg.Configuration.AgentKind = s.h.Kind()
	ex := newExecutor(t, s.h, cfg)
	r := startRun(t, ex, "run-late", "late-permission")
	r.until(t, isDelta)
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := r.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	for _, ev := range r.got {
		if isPermission(ev) {
			t.Fatalf("a permission request after the cancel reached the caller: %v", r.got)
		}
	}
	if got := text(r.got); !strings.Contains(got, `late permission: {"outcome":{"outcome":"cancelled"}}`) || errorOf(r.got) != nil {
		t.Fatalf("events %v", r.got)
	}
	next := startRun(t, ex, "run-next", "echo fine")
	next.settle(t)
	if text(next.got) != "echo: fine" {
		t.Fatalf("next Turn %v", next.got)
	}
}

// The mcode profile runs tools unattended (the seed's MiniMax bypasses
// permissions): the agent's request is answered with its allow option and
// no permission_request reaches the caller; RespondPermission is
// unsupported.
func TestScriptedMCodePermissionUnattended(t *testing.T) {
	s := newScripted(t, nil)
	ex := newExecutor(t, s.h, mcodeConfig())
	r := startRun(t, ex, "run-perm", "permission")
	r.settle(t)
	if got := text(r.got); got != `permission: {"outcome":{"outcome":"selected","optionId":"yes"}}` {
		t.Fatalf("events %v", r.got)
	}
	for _, ev := range r.got {
		if isPermission(ev) {
			t.Fatalf("a permission request reached the caller: %v", r.got)
		}
	}
	if err := r.turn.(agent.PermissionResponder).RespondPermission(context.Background(), "acp-agent-1",
		wire.PermissionDecision{Approved: true}); !errors.Is(err, agent.ErrUnsupportedOperation) {
		t.Fatalf("RespondPermission = %v", err)
	}
}

// A prompt whose answer never comes: after session/cancel the grace
// period ends the Turn non-reusable; without a cancel the adapter's
// deadline cancels it and fails it with request_timeout.
func TestScriptedPromptAnswerNeverComes(t *testing.T) {
	t.Run("after cancel", func(t *testing.T) {
		s := newScripted(t, func(o *Options) { o.Grace = 300 * time.Millisecond })
		ex := newExecutor(t, s.h, mcodeConfig())
		r := startRun(t, ex, "run-never", "never")
		r.until(t, isDelta)
		if err := r.turn.Cancel(context.Background()); err != nil {
			t.Fatal(err)
		}
		st := r.settle(t)
		if st.Reusable || !strings.Contains(st.Reason, "did not answer") || errorOf(r.got) != nil {
			t.Fatalf("settlement %+v events %v", st, r.got)
		}
		if len(s.lines(t, "session/cancel")) != 1 {
			t.Fatal("no session/cancel reached the agent")
		}
	})
	t.Run("deadline", func(t *testing.T) {
		s := newScripted(t, func(o *Options) { o.Grace = 300 * time.Millisecond; o.Stall = 300 * time.Millisecond })
		ex := newExecutor(t, s.h, mcodeConfig())
		r := startRun(t, ex, "run-stall", "never")
		st := r.settle(t)
		if e := errorOf(r.got); st.Reusable || e == nil || e.Code != wire.EngineRequestTimeout {
			t.Fatalf("settlement %+v events %v", st, r.got)
		}
		if len(s.lines(t, "session/cancel")) != 1 {
			t.Fatal("the deadline sent no session/cancel")
		}
	})
}

// A line that is not JSON-RPC 2.0 breaks the connection: the Turn fails,
// settles non-reusable, and the Executor takes no further Turn.
func TestScriptedMalformedJSONRPC(t *testing.T) {
	s := newScripted(t, nil)
	ex := newExecutor(t, s.h, mcodeConfig())
	r := startRun(t, ex, "run-bad", "malformed")
	st := r.settle(t)
	if e := errorOf(r.got); st.Reusable || e == nil || !strings.Contains(e.Error, "malformed") {
		t.Fatalf("settlement %+v events %v", st, r.got)
	}
	if _, err := ex.StartTurn(context.Background(), agent.TurnRequest{RunID: "after", Input: wire.TextInput("echo x"),
		Output: make(chan agent.Event, 4)}); !errors.Is(err, agent.ErrExecutorUnavailable) {
		t.Fatalf("StartTurn after the broken connection = %v", err)
	}
	closeExec(t, ex)
}

// Every malformed shape is named by parseLine; well-formed lines pass.
func TestParseLineRejects(t *testing.T) {
	for _, bad := range []string{
		`not json`, `[]`, `{"id":1,"result":{}}`, `{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1}}`,
		`{"jsonrpc":"2.0","method":"x","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":{},"result":{}}`,
	} {
		if _, err := parseLine([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	for _, good := range []string{
		`{"jsonrpc":"2.0","id":1,"result":null}`, `{"jsonrpc":"2.0","id":"a","error":{"code":-32002,"message":"m"}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{}}`, `{"jsonrpc":"2.0","id":3,"method":"session/request_permission"}`,
	} {
		if _, err := parseLine([]byte(good)); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// A session/load of an unknown session (the agent's -32002) is ErrResume,
// never a fresh session.
func TestScriptedLoadRefused(t *testing.T) {
	s := newScripted(t, nil)
	cfg := mcodeConfig()
	cfg.Configuration.AgentSessionID = "acptest-session-9"
	if ex, err := s.h.NewExecutor(context.Background(), cfg); ex != nil || !errors.Is(err, ErrResume) {
		t.Fatalf("load = %v, %v", ex, err)
	}
	if len(s.lines(t, "session/new")) != 0 {
		t.Fatal("a failed load created a fresh session")
	}
}

package codex

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/codex/codextest"
	"github.com/turnstile-sim/turnstile/wire"
)

// realHarness is the pinned codex binary against a fake model server.
func realHarness(t *testing.T) (*Harness, *codextest.ModelServer) {
	t.Helper()
	bin := realBinary(t)
	m := codextest.NewModelServer(t)
	return New(Options{Binary: bin, Home: codextest.Home(t, m), WorkDir: t.TempDir(), Grace: 3 * time.Second}), m
}

func realConfig() agent.ExecutorConfig {
	cfg := fakeConfig()
	cfg.Configuration.ExecutionControls.TextVerbosity = "low"
	return cfg
}

func newRealExecutor(t *testing.T, h *Harness, cfg agent.ExecutorConfig) *Executor {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ex, err := h.NewExecutor(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close(context.Background()) })
	return ex.(*Executor)
}

// Two turns on one thread and one process: deltas, usage and done with the
// thread ID; the second model request carries the first turn's history;
// the request honours the controls (verbosity, no web search, no shell,
// patch or multi-agent tools).
func TestRealTwoTurnsOneThread(t *testing.T) {
	h, m := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	pid := ex.Pid()
	m.Queue(codextest.Reply{Deltas: []string{"Hello", ", world"}, Usage: [2]int{10, 3}}, codextest.Reply{Deltas: []string{"again"}})
	r1 := startRun(t, ex, "run-1", "first question")
	if r1.err != nil {
		t.Fatal(r1.err)
	}
	if s := r1.settle(t); !s.Reusable {
		t.Fatalf("settlement %+v", s)
	}
	done := doneOf(t, r1.got)
	if text(r1.got) != "Hello, world" || done.Content != "Hello, world" {
		t.Fatalf("events %v", r1.got)
	}
	if done.Usage == nil || done.Usage.Tokens == nil || done.Usage.Tokens.InputTokens != 10 || done.Usage.Tokens.OutputTokens != 3 {
		t.Fatalf("done usage %+v", done.Usage)
	}
	if done.Metadata == nil || done.Metadata.AgentSessionID != ex.ThreadID() || done.Metadata.AgentSessionType != Kind {
		t.Fatalf("done metadata %+v, thread %s", done.Metadata, ex.ThreadID())
	}
	r2 := startRun(t, ex, "run-2", "second question")
	r2.settle(t)
	if text(r2.got) != "again" || ex.Pid() != pid {
		t.Fatalf("second turn %v on pid %d (was %d)", r2.got, ex.Pid(), pid)
	}
	bodies := m.Requests()
	if len(bodies) != 2 || !strings.Contains(codextest.InputText(bodies[1]), "first question") || !strings.Contains(codextest.InputText(bodies[1]), "Hello, world") {
		t.Fatalf("second request lacks the history:\n%s", codextest.InputText(bodies[len(bodies)-1]))
	}
	first := bodies[0]
	if v, _ := first["text"].(map[string]any); v == nil || v["verbosity"] != "low" {
		t.Fatalf("request text settings %v, want verbosity low", first["text"])
	}
	for _, banned := range []string{"web_search", "exec_command", "write_stdin", "shell", "multi_agent_v1", "create_goal"} {
		if slices.Contains(codextest.ToolNames(first), banned) {
			t.Errorf("request offers the %s tool: %v", banned, codextest.ToolNames(first))
		}
	}
}

// A steer mid-stream is written, then applied by its userMessage echo; the
// next model request carries it.
func TestRealSteerWrittenThenApplied(t *testing.T) {
	h, m := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	hold := make(chan struct{})
	m.Queue(codextest.Reply{Deltas: []string{"working", " done"}, Hold: hold}, codextest.Reply{Deltas: []string{"steered"}})
	r := startRun(t, ex, "run-steer", "start")
	r.next(t)
	rc, err := r.turn.SteerDurable(context.Background(), agent.SteerInput{InputID: "input-7f", Input: wire.TextInput("also this")})
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.turn.SteerDurable(context.Background(), agent.SteerInput{InputID: "input-7f", Input: wire.TextInput("also this")})
	if err != nil || again != rc {
		t.Fatalf("repeat of the same input: %v, %v", again, err)
	}
	if _, err := r.turn.SteerDurable(context.Background(), agent.SteerInput{InputID: "input-7f", Input: wire.TextInput("other")}); !errors.Is(err, agent.ErrInputConflict) {
		t.Fatalf("conflicting repeat = %v", err)
	}
	close(hold)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rc.AwaitApplied(ctx); err != nil {
		t.Fatalf("AwaitApplied = %v", err)
	}
	r.settle(t)
	bodies := m.Requests()
	if len(bodies) < 2 || !strings.Contains(codextest.InputText(bodies[len(bodies)-1]), "also this") {
		t.Fatalf("no model request carried the steered input (%d requests)", len(bodies))
	}
	if !strings.Contains(text(r.got), "steered") {
		t.Fatalf("streamed %q", text(r.got))
	}
}

// Cancel of the exact Turn while the model hangs: turn/interrupt, then
// turn/completed interrupted; the content so far is kept, the Executor is
// reusable and the next Turn is healthy and sees none of the old events.
func TestRealCancelExactTurn(t *testing.T) {
	h, m := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	hold := make(chan struct{})
	defer close(hold)
	m.Queue(codextest.Reply{Deltas: []string{"partial", " never"}, Hold: hold}, codextest.Reply{Deltas: []string{"fresh"}})
	r := startRun(t, ex, "run-cancel", "start")
	r.next(t)
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := r.settle(t); !s.Reusable {
		t.Fatalf("settlement %+v", s)
	}
	o := r.turn.CancellationOutcome()
	if o.Completed || o.Content != "partial" || doneOf(t, r.got).Content != "partial" {
		t.Fatalf("outcome %+v events %v", o, r.got)
	}
	next := startRun(t, ex, "run-next", "next")
	next.settle(t)
	if text(next.got) != "fresh" {
		t.Fatalf("next Turn streamed %q", text(next.got))
	}
	for _, ev := range next.got {
		if ev.RunID != "run-next" || strings.Contains(text([]agent.Event{ev}), "never") {
			t.Fatalf("an event of the cancelled Turn reached the next one: %+v", ev)
		}
	}
}

// Cancel right after StartTurn, before turn/started may have arrived: the
// interrupt waits for it, and the Turn settles cancelled.
func TestRealCancelBeforeStarted(t *testing.T) {
	h, m := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	m.Queue(codextest.Reply{Hang: true, Match: "early start"}, codextest.Reply{Deltas: []string{"after"}, Match: "next"})
	r := startRun(t, ex, "run-early", "early start")
	if err := r.turn.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := r.settle(t); !s.Reusable {
		t.Fatalf("settlement %+v", s)
	}
	if r.turn.CancellationOutcome().Completed || errorOf(r.got) != nil {
		t.Fatalf("events %v", r.got)
	}
	next := startRun(t, ex, "run-after", "next")
	next.settle(t)
	if text(next.got) != "after" {
		t.Fatalf("next Turn streamed %q", text(next.got))
	}
}

// Resume in a fresh process continues the same thread with its history;
// an unknown thread ID fails and starts no fresh thread.
func TestRealResume(t *testing.T) {
	h, m := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	m.Queue(codextest.Reply{Deltas: []string{"remember 42"}})
	r := startRun(t, ex, "run-1", "the number is 42")
	r.settle(t)
	thread := doneOf(t, r.got).Metadata.AgentSessionID
	closeExec(t, ex)
	cfg := realConfig()
	cfg.Configuration.AgentSessionID = thread
	ex2 := newRealExecutor(t, h, cfg)
	if ex2.ThreadID() != thread {
		t.Fatalf("resumed thread %s, want %s", ex2.ThreadID(), thread)
	}
	r2 := startRun(t, ex2, "run-2", "what was it")
	r2.settle(t)
	bodies := m.Requests()
	if !strings.Contains(codextest.InputText(bodies[len(bodies)-1]), "the number is 42") {
		t.Fatal("the resumed thread lost its history")
	}
	if md := doneOf(t, r2.got).Metadata; md == nil || md.AgentSessionID != thread {
		t.Fatalf("resumed done metadata %+v", md)
	}
	cfg.Configuration.AgentSessionID = "01a23152-0000-7000-8000-000000000000"
	if ex3, err := h.NewExecutor(context.Background(), cfg); !errors.Is(err, ErrResume) || ex3 != nil {
		t.Fatalf("resume of an unknown thread = %v, %v", ex3, err)
	}
}

// Model errors map to engine codes: 401 is authentication_error, a 500 a
// server_error (app-server reports internalServerError); the Executor
// stays reusable.
func TestRealErrorMapping(t *testing.T) {
	h, m := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	for _, c := range []struct {
		status int
		want   wire.RunError
	}{
		{401, wire.RunError{Code: wire.EngineAuthenticationError}},
		{500, wire.RunError{Code: wire.EngineServerError}},
	} {
		m.Queue(codextest.Reply{Status: c.status})
		r := startRun(t, ex, "run-"+string(rune('a'+c.status%26)), "hi")
		if s := r.settle(t); !s.Reusable {
			t.Fatalf("%d: settlement %+v", c.status, s)
		}
		e := errorOf(r.got)
		if e == nil || e.Code != c.want.Code || e.HTTPStatus != c.want.HTTPStatus {
			t.Fatalf("%d: error %+v, want %+v", c.status, e, c.want)
		}
	}
}

// The configured output schema reaches the model request as a strict
// json_schema text format, and the final message is an output message.
func TestRealOutputSchema(t *testing.T) {
	h, m := realHarness(t)
	cfg := realConfig()
	schema := json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`)
	cfg.Configuration.ExecutionControls.OutputFormat = &wire.OutputFormat{Type: "json_schema", Schema: schema}
	cfg.Configuration.ObserveMessages = true
	ex := newRealExecutor(t, h, cfg)
	m.Queue(codextest.Reply{Deltas: []string{`{"answer":"yes"}`}})
	r := startRun(t, ex, "run-schema", "answer in JSON")
	r.settle(t)
	format, _ := m.Requests()[0]["text"].(map[string]any)["format"].(map[string]any)
	if format["type"] != "json_schema" || format["strict"] != true {
		t.Fatalf("request text.format %v", format)
	}
	got, _ := json.Marshal(format["schema"])
	var a, b any
	_ = json.Unmarshal(got, &a)
	_ = json.Unmarshal(schema, &b)
	if ga, _ := json.Marshal(a); string(ga) != func() string { gb, _ := json.Marshal(b); return string(gb) }() {
		t.Fatalf("request schema %s, want %s", got, schema)
	}
	var msg *wire.OutputMessage
	for _, ev := range r.got {
		if om, ok := ev.Payload.(wire.OutputMessage); ok {
			msg = &om
		}
	}
	if msg == nil || msg.Text == nil || *msg.Text != `{"answer":"yes"}` {
		t.Fatalf("output message %+v", msg)
	}
}

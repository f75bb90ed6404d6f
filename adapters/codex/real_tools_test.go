package codex

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/codex/codextest"
	"github.com/turnstile-sim/turnstile/wire"
)

// A native tool call (apply_patch, from the model) is observed as a
// tool_call before and after, each with its engine-neutral observation
// (kind function, name apply_patch, the changes app-server reported as
// arguments, in_progress then completed), runs in the Executor's private
// working directory, and its output goes back to the model before the
// answer.
func TestRealToolObservation(t *testing.T) {
	h, m := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	m.Queue(codextest.Reply{Patch: "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"}, codextest.Reply{Deltas: []string{"patched"}})
	r := startRun(t, ex, "run-tool", "add a file")
	r.settle(t)
	calls := toolCalls(r.got)
	if len(calls) != 2 || calls[0].Stage != wire.ToolStageBefore || calls[1].Stage != wire.ToolStageAfter {
		t.Fatalf("tool calls %+v in %v", calls, r.got)
	}
	for i, want := range []string{obsInProgress, obsCompleted} {
		c := calls[i]
		o := c.Observation
		if c.Name != "apply_patch" || c.ID != calls[0].ID || o == nil || o.Kind != obsKindFunction || o.Name != "apply_patch" || o.Status != want {
			t.Fatalf("tool call %d: %+v observation %+v", i, c, o)
		}
		var args struct {
			Changes []struct{ Path, Diff string }
		}
		if err := json.Unmarshal(o.Arguments, &args); err != nil || len(args.Changes) != 1 ||
			args.Changes[0].Path != filepath.Join(ex.workDir, "hello.txt") || args.Changes[0].Diff != "hi\n" {
			t.Fatalf("observed arguments %s (%v)", o.Arguments, err)
		}
		if err := wire.Validate(c); err != nil {
			t.Fatalf("tool call %d invalid on the wire: %v", i, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ex.workDir, "hello.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("patched file: %q, %v", b, err)
	}
	if text(r.got) != "patched" || len(m.Requests()) != 2 || !strings.Contains(codextest.InputText(m.Requests()[1]), "call_1") {
		t.Fatalf("answer %q after %d requests", text(r.got), len(m.Requests()))
	}
}

// A web search of the model (web_search live) is observed as a tool_call
// whose observation is kind web_search with the search action and query
// app-server reported.
func TestRealWebSearchObservation(t *testing.T) {
	h, m := realHarness(t)
	cfg := realConfig()
	cfg.Configuration.ExecutionControls.WebSearch = "live"
	ex := newRealExecutor(t, h, cfg)
	m.Queue(codextest.Reply{Search: "turnstile weather", Deltas: []string{"sunny"}})
	r := startRun(t, ex, "run-search", "search")
	r.settle(t)
	calls := toolCalls(r.got)
	if len(calls) == 0 {
		t.Fatalf("no tool call in %v", r.got)
	}
	last := calls[len(calls)-1]
	o := last.Observation
	if last.Name != "web_search" || last.Stage != wire.ToolStageAfter || o == nil || o.Kind != obsKindWebSearch || o.Status != obsCompleted ||
		o.Action == nil || o.Action.Type != "search" || o.Action.Query != "turnstile weather" {
		t.Fatalf("web search call %+v observation %+v action %+v", last, o, o.Action)
	}
	for _, c := range calls {
		if c.Observation == nil || wire.Validate(c) != nil {
			t.Fatalf("tool call without a valid observation: %+v", c)
		}
	}
	if text(r.got) != "sunny" {
		t.Fatalf("answer %q", text(r.got))
	}
}

// With messages observed, each agentMessage is an output_message
// in_progress when app-server starts it (before its deltas) and completed
// with its text, both carrying the native phase the model gave it.
func TestRealOutputMessageStartAndPhase(t *testing.T) {
	h, m := realHarness(t)
	cfg := realConfig()
	cfg.Configuration.ObserveMessages = true
	ex := newRealExecutor(t, h, cfg)
	m.Queue(codextest.Reply{Deltas: []string{"fi", "nal"}, Phase: "final_answer"})
	r := startRun(t, ex, "run-phase", "answer")
	r.settle(t)
	var msgs []wire.OutputMessage
	firstDelta, started := -1, -1
	for i, ev := range r.got {
		switch p := ev.Payload.(type) {
		case wire.OutputMessage:
			msgs = append(msgs, p)
			if p.Status == wire.OutputStatusInProgress && started < 0 {
				started = i
			}
		case wire.Delta:
			if firstDelta < 0 {
				firstDelta = i
			}
		}
	}
	if len(msgs) != 2 || started < 0 || started > firstDelta {
		t.Fatalf("output messages %+v (start at %d, first delta at %d) in %v", msgs, started, firstDelta, r.got)
	}
	begin, end := msgs[0], msgs[1]
	if begin.Status != wire.OutputStatusInProgress || begin.Phase != "final_answer" || begin.Text != nil ||
		end.Status != wire.OutputStatusCompleted || end.Phase != "final_answer" || end.Text == nil || *end.Text != "final" || end.ID != begin.ID {
		t.Fatalf("output messages %+v %+v", begin, end)
	}
	for _, p := range []wire.OutputMessage{begin, end} {
		if err := wire.Validate(p); err != nil {
			t.Fatal(err)
		}
	}

	// A model that gives no phase: the phase stays absent (unknown).
	m.Queue(codextest.Reply{Deltas: []string{"plain"}})
	r = startRun(t, ex, "run-nophase", "again")
	r.settle(t)
	n := 0
	for _, ev := range r.got {
		if p, ok := ev.Payload.(wire.OutputMessage); ok {
			n++
			if p.Phase != "" {
				t.Fatalf("phase %q invented", p.Phase)
			}
		}
	}
	if n != 2 {
		t.Fatalf("output messages of the second turn: %v", r.got)
	}
}

func toolCalls(evs []agent.Event) []wire.ToolCall {
	var out []wire.ToolCall
	for _, ev := range evs {
		if c, ok := ev.Payload.(wire.ToolCall); ok {
			out = append(out, c)
		}
	}
	return out
}

// A slow stream arrives delta by delta, in order, with increasing
// sequences; web_search "live" turns the native tool on (the control is
// honoured both ways).
func TestRealSlowStreamAndLiveSearch(t *testing.T) {
	h, m := realHarness(t)
	cfg := realConfig()
	cfg.Configuration.ExecutionControls.WebSearch = "live"
	ex := newRealExecutor(t, h, cfg)
	m.Queue(codextest.Reply{Deltas: []string{"one ", "two ", "three"}, Interval: 100 * time.Millisecond})
	r := startRun(t, ex, "run-slow", "count")
	r.settle(t)
	var seq []uint64
	for _, ev := range r.got {
		if d, ok := ev.Payload.(wire.Delta); ok {
			seq = append(seq, d.Sequence)
		}
	}
	if text(r.got) != "one two three" || len(seq) != 3 || seq[0] >= seq[1] || seq[1] >= seq[2] {
		t.Fatalf("deltas %v", r.got)
	}
	found := false
	for _, name := range codextest.ToolNames(m.Requests()[0]) {
		found = found || name == "web_search"
	}
	if !found {
		t.Fatalf("web_search live: tools %v", codextest.ToolNames(m.Requests()[0]))
	}
}

// Close stops app-server: its process is gone and the private working
// directory removed.
func TestRealCloseReleasesProcess(t *testing.T) {
	h, _ := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	pid, dir := ex.Pid(), ex.workDir
	closeExec(t, ex)
	if err := syscall.Kill(pid, 0); err == nil {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(b), ") Z") {
			t.Fatalf("app-server %d still running after Close", pid)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("working directory left: %v", err)
	}
	closeExec(t, ex) // idempotent
}

// With a local Environment, app-server runs in the workspace the Runtime
// bound (ExecutorConfig.WorkspaceRoot): an apply_patch of the model lands
// there, the model sees it as the working directory, and Close leaves the
// workspace in place (it is the Environment's, not the Executor's).
func TestRealLocalEnvironmentRunsInTheBoundWorkspace(t *testing.T) {
	h, m := realHarness(t)
	root := t.TempDir()
	cfg := realConfig()
	cfg.Configuration.DisableExecutionEnvironment = false
	cfg.Configuration.LocalEnvironment = &wire.LocalEnvironment{ID: "env-1"}
	cfg.WorkspaceRoot = root
	ex := newRealExecutor(t, h, cfg)
	if ex.workDir != root {
		t.Fatalf("working directory %q, want the bound workspace %q", ex.workDir, root)
	}
	m.Queue(codextest.Reply{Patch: "*** Begin Patch\n*** Add File: bound.txt\n+in the workspace\n*** End Patch\n"}, codextest.Reply{Deltas: []string{"done"}})
	r := startRun(t, ex, "run-local", "write a file")
	r.settle(t)
	if b, err := os.ReadFile(filepath.Join(root, "bound.txt")); err != nil || string(b) != "in the workspace\n" {
		t.Fatalf("patched file in the bound workspace: %q, %v (events %v)", b, err, r.got)
	}
	if !strings.Contains(codextest.InputText(m.Requests()[0]), root) {
		t.Fatalf("the model request does not name the bound workspace %s", root)
	}
	closeExec(t, ex)
	if _, err := os.Stat(filepath.Join(root, "bound.txt")); err != nil {
		t.Fatalf("Close removed the Environment's workspace: %v", err)
	}
}

// An unused preparation cancelled: app-server is stopped and its private
// working directory removed before CancelPrepared returns; the Executor
// refuses a Turn with a nil Turn, and Release and Close confirm again.
// Once a Turn started, the preparation is consumed: CancelPrepared and
// Release refuse, Close retires.
func TestRealCancelPreparedStopsAppServer(t *testing.T) {
	h, _ := realHarness(t)
	ex := newRealExecutor(t, h, realConfig())
	pid, dir := ex.Pid(), ex.workDir
	if err := ex.CancelPrepared(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(b), ") Z") {
			t.Fatalf("app-server %d still running after CancelPrepared", pid)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("working directory left: %v", err)
	}
	out := make(chan agent.Event, wire.OutputFramesMax)
	if turn, err := ex.StartTurn(t.Context(), agent.TurnRequest{RunID: "run-after", Input: wire.TextInput("hi"), Output: out}); turn != nil || !errors.Is(err, agent.ErrExecutorUnavailable) {
		t.Fatalf("a cancelled preparation started: %v, %v", turn, err)
	}
	if err := ex.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	closeExec(t, ex)

	used := newRealExecutor(t, h, realConfig())
	r := startRun(t, used, "run-used", "hi")
	r.settle(t)
	if err := used.CancelPrepared(t.Context()); !errors.Is(err, agent.ErrInvalidRequest) {
		t.Fatalf("CancelPrepared after a Turn: %v", err)
	}
	if err := used.Release(t.Context()); !errors.Is(err, agent.ErrInvalidRequest) {
		t.Fatalf("Release after a Turn: %v", err)
	}
	closeExec(t, used)
}

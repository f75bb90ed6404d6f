package acp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
)

// Two Turns on one agent process and one ACP session: deltas, usage and
// done with the session ID; the second model request carries the first
// Turn's history; the removed tools are not offered.
func TestRealTwoTurnsShareHistory(t *testing.T) {
	h, s := realHarness(t)
	cfg := testConfig(h.Kind())
	cfg.Configuration.AgentOptions = map[string]json.RawMessage{"model": json.RawMessage(`"claude-acp-test"`)}
	ex := newExecutor(t, h, cfg)
	pid := ex.Pid()
	s.Queue(claudetest.Reply{Text: []string{"Hello", ", world"}, Usage: [2]int{10, 3}}, claudetest.Reply{Text: []string{"again"}})
	r1 := startRun(t, ex, "run-1", "first question")
	if st := r1.settle(t); !st.Reusable {
		t.Fatalf("settlement %+v", st)
	}
	done := doneOf(t, r1.got)
	if text(r1.got) != "Hello, world" || done.Content != "Hello, world" {
		t.Fatalf("events %v", r1.got)
	}
	if done.Usage == nil || done.Usage.Tokens == nil || done.Usage.Tokens.InputTokens != 10 || done.Usage.Tokens.OutputTokens != 3 {
		t.Fatalf("done usage %+v", done.Usage)
	}
	if done.Metadata == nil || done.Metadata.AgentSessionID != ex.SessionID() || done.Metadata.AgentSessionType != h.Kind() {
		t.Fatalf("done metadata %+v, session %s", done.Metadata, ex.SessionID())
	}
	if !r1.turn.CancellationOutcome().Completed {
		t.Fatal("a completed Turn is not reported completed")
	}
	r2 := startRun(t, ex, "run-2", "second question")
	r2.settle(t)
	if text(r2.got) != "again" || ex.Pid() != pid {
		t.Fatalf("second Turn %v on pid %d (was %d)", r2.got, ex.Pid(), pid)
	}
	for _, ev := range r2.got {
		if ev.RunID != "run-2" {
			t.Fatalf("event of another run: %+v", ev)
		}
	}
	bodies := s.Requests()
	if len(bodies) != 2 {
		t.Fatalf("%d main requests", len(bodies))
	}
	if all := claudetest.AllText(bodies[1]); !strings.Contains(all, "first question") || !strings.Contains(all, "Hello, world") {
		t.Fatalf("second request lacks the history:\n%s", all)
	}
	for _, banned := range claudeRemovedTools {
		if slices.Contains(claudetest.ToolNames(bodies[0]), banned) {
			t.Errorf("request offers the removed %s tool: %v", banned, claudetest.ToolNames(bodies[0]))
		}
	}
	if bodies[0]["model"] != "claude-acp-test" {
		t.Errorf("the session's model did not reach the model request: %v", bodies[0]["model"])
	}
	if !slices.Contains(claudetest.ToolNames(bodies[0]), "Bash") {
		t.Errorf("request lacks the native Bash tool: %v", claudetest.ToolNames(bodies[0]))
	}
}

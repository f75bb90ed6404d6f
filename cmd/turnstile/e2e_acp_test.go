package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/acp"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/core/api"
)

// acpAgentCommand is the pinned ACP agent claude-agent-acp (the entry
// point `make acp` installs, run with node), driving the pinned Claude
// Code binary (claudeBinary). Under -short the test is skipped (make test
// runs it); a missing agent fails in CI (CI=true) and skips elsewhere.
func acpAgentCommand(t *testing.T) string {
	t.Helper()
	bin := claudeBinary(t)
	entry, err := acp.CachedAgent()
	if err != nil {
		t.Fatal(err)
	}
	node, nodeErr := exec.LookPath("node")
	_, statErr := os.Stat(entry)
	if statErr != nil || nodeErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no claude-agent-acp at %s or no node (%v, %v): run make acp", entry, statErr, nodeErr)
		}
		t.Skipf("no claude-agent-acp at %s or no node: run make acp", entry)
	}
	t.Setenv("CLAUDE_CODE_EXECUTABLE", bin)
	if os.Geteuid() == 0 {
		t.Setenv("IS_SANDBOX", "1") // the agent refuses root outside a sandbox
	}
	return node + " " + entry
}

// End to end over processes: `turnstile core`, `turnstile daemon -kinds
// acp:claude-agent-acp -acp-cmd` running the pinned claude-agent-acp (and
// the Claude Code binary it drives) against the fake Messages API. A Turn
// through the public API streams to completion; a steer through the
// public API into a running Turn is admitted (the kind declares steering
// and durable input receipts, as Core requires of every kind), reaches
// the model inside the same Turn and is recorded accepted, since Claude
// Code's replay of it proved it applied, and the Turn completes; a cancel
// ends a Turn cancelled with its partial text and the Session continues
// with its history. An image input, which the kind does not declare, is
// refused by Core before any native work.
func TestEndToEndACPTurnSteerCancelRefusal(t *testing.T) {
	cmd := acpAgentCommand(t)
	m := claudetest.NewServer(t)
	t.Setenv("ANTHROPIC_BASE_URL", m.URL())
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-e2e-dummy")
	dir, tokenFile, token, cred := setup(t)
	credFile := filepath.Join(filepath.Dir(tokenFile), "device.cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	core := startCore(t, dir, tokenFile)
	kind := acp.ClaudeAgentACP().Kind()
	d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile,
		"-kinds", kind, "-acp-cmd", cmd, "-acp-home", t.TempDir())
	c := newAPIClient(t, core.base, dir, token)
	sid := c.session(kind, "claude-e2e")

	m.Queue(claudetest.Reply{Text: []string{"Hello", ", world"}, Usage: [2]int{12, 4}})
	tid := c.submit(sid, "hi")
	evs, err := c.events(tid, "")
	names, text := sseText(evs)
	if err != nil || text != "Hello, world" || names[len(names)-1] != api.EvTurnCompleted {
		t.Fatalf("events %v text %q err %v\n%s", names, text, err, d.stderr.String())
	}
	if tr := turnOf(t, c, tid); tr.State != "completed" || tr.Content != "Hello, world" {
		t.Fatalf("turn %+v", tr)
	}

	hold := make(chan struct{})
	m.Queue(claudetest.Reply{Text: []string{"working", " on it"}, Hold: hold},
		claudetest.Reply{Text: []string{" steered"}, Match: "also this"})
	tid2 := c.submit(sid, "start")
	firstDelta(t, c, sid, tid2)
	c.steer(sid, "also this")
	waitInputState(t, c, tid2, "accepted")
	close(hold)
	evs2, err := c.events(tid2, "")
	names2, text2 := sseText(evs2)
	if err != nil || names2[len(names2)-1] != api.EvTurnCompleted || !strings.HasSuffix(text2, " steered") {
		t.Fatalf("steered turn: events %v text %q (%v)", names2, text2, err)
	}
	if tr := turnOf(t, c, tid2); tr.State != "completed" || len(tr.Inputs) != 1 || tr.Inputs[0].State != "accepted" {
		t.Fatalf("steered turn %+v", tr)
	}
	bodies := m.Requests()
	if !strings.Contains(claudetest.LastUserText(bodies[len(bodies)-1]), "also this") {
		t.Fatal("no model request carried the steer")
	}

	hold3 := make(chan struct{})
	defer close(hold3)
	m.Queue(claudetest.Reply{Text: []string{"partial", " never"}, Hold: hold3})
	tid3 := c.submit(sid, "long")
	firstDelta(t, c, sid, tid3)
	c.cancel(sid)
	evs3, err := c.events(tid3, "")
	names3, _ := sseText(evs3)
	if err != nil || names3[len(names3)-1] != api.EvTurnCancelled {
		t.Fatalf("events after cancel %v (%v)", names3, err)
	}
	if tr := turnOf(t, c, tid3); tr.State != "cancelled" || tr.Content != "partial" {
		t.Fatalf("cancelled turn %+v", tr)
	}

	requests := len(m.Requests())
	c.must("POST", "/v1/agents/sessions/"+sid+"/events",
		`{"events":[{"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_image","image_url":"https://example.com/a.png"}]}]}]}`, 400)
	if len(m.Requests()) != requests {
		t.Fatal("the refused image input reached the model")
	}
	m.Queue(claudetest.Reply{Text: []string{"still here"}, Match: "again"})
	tid4 := c.submit(sid, "again")
	evs4, _ := c.events(tid4, "")
	all := m.Requests()
	if _, text4 := sseText(evs4); text4 != "still here" || !strings.Contains(claudetest.AllText(all[len(all)-1]), "Hello, world") {
		t.Fatalf("the Turn after the cancel streamed %q or lost the history", text4)
	}
	for _, b := range all {
		if strings.Contains(claudetest.AllText(b), "example.com/a.png") {
			t.Fatal("the refused image input reached the model")
		}
		if strings.Contains(claudetest.LastUserText(b), "SUGGESTION MODE") {
			t.Fatal("the agent asked the model for a predicted follow-up prompt")
		}
	}
	if code := d.terminate(t); code != 0 {
		t.Fatalf("daemon exit %d:\n%s", code, d.stderr.String())
	}
	_ = core.terminate()
}

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/claude"
	"github.com/turnstile-sim/turnstile/adapters/claude/claudetest"
	"github.com/turnstile-sim/turnstile/core/api"
)

// claudeBinary is the pinned Claude Code binary ($TURNSTILE_CLAUDE_BIN or
// the cache `make claude` fills). Under -short the test is skipped (make
// test runs it); a missing binary fails in CI (CI=true) and skips
// elsewhere.
func claudeBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real Claude Code CLI; make test runs it")
	}
	path := os.Getenv(claude.EnvBinary)
	if path == "" {
		var err error
		if path, err = claude.CachedBinary(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); err != nil && os.Getenv("CI") != "true" {
		t.Skipf("no Claude Code binary at %s: run make claude or set %s", path, claude.EnvBinary)
	}
	if _, err := claude.CheckBinary(context.Background(), path); err != nil {
		t.Fatalf("%v (run make claude)", err)
	}
	return path
}

// The daemon's version check: a binary of another program leaves kind
// claude unavailable (no Executor factory) with a diagnostic naming it;
// the pinned binary makes it available.
func TestDaemonClaudeVersionCheck(t *testing.T) {
	cred := writeFile(t, "cred", testCredential+"\n")
	f := &daemonFlags{core: "http://127.0.0.1:1", device: "d", credFile: cred, kinds: "claude", logLevel: "info", claudeBin: "/bin/echo"}
	var diag strings.Builder
	setup, err := prepareDaemon(f, &diag)
	if err != nil {
		t.Fatal(err)
	}
	if len(setup.kinds) != 1 || setup.kinds[0].Kind != claude.Kind || setup.kinds[0].Available || !strings.Contains(diag.String(), "claude: kind unavailable") {
		t.Fatalf("wrong binary: kinds %+v, diagnostic %q", setup.kinds, diag.String())
	}
	if _, ok := setup.reg.Executors(claude.Kind); ok {
		t.Fatal("an unavailable kind installed an Executor factory")
	}
	f.claudeBin = claudeBinary(t)
	diag.Reset()
	if setup, err = prepareDaemon(f, &diag); err != nil || !setup.kinds[0].Available || setup.kinds[0].Version != claude.Version {
		t.Fatalf("pinned binary: %+v, %v, %q", setup, err, diag.String())
	}
}

// turnOf is Core's operator view of a Turn.
func turnOf(t *testing.T, c *client, tid string) api.TurnJSON {
	t.Helper()
	return c.turn(tid)
}

func sseText(evs []sseEvent) (names []string, text string) {
	for _, ev := range evs {
		names = append(names, ev.Event)
		if ev.Event == api.EvOutputTextDelta {
			var d struct{ Delta string }
			_ = json.Unmarshal([]byte(ev.Data), &d)
			text += d.Delta
		}
	}
	return names, text
}

// End to end over processes: `turnstile core`, `turnstile daemon -kinds
// claude -claude-bin` running the pinned Claude Code CLI against the fake
// Messages API. A Turn through the public API streams to completion; a
// steer written while the model streams is folded at the tool boundary
// and accepted; a cancel interrupts the Turn, which ends cancelled with
// its partial text, and the Session continues.
func TestEndToEndClaudeTurnSteerCancel(t *testing.T) {
	bin := claudeBinary(t)
	m := claudetest.NewServer(t)
	t.Setenv("ANTHROPIC_BASE_URL", m.URL())
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-e2e-dummy")
	dir, tokenFile, token, cred := setup(t)
	credFile := filepath.Join(filepath.Dir(tokenFile), "device.cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	core := startCore(t, dir, tokenFile)
	d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile,
		"-kinds", "claude", "-claude-bin", bin, "-claude-home", t.TempDir())
	c := newAPIClient(t, core.base, dir, token)
	sid := c.session("claude", "claude-e2e")

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
	m.Queue(claudetest.Reply{Text: []string{"working", " on it"}, Hold: hold,
		Tool: &claudetest.ToolUse{Name: "Bash", Input: map[string]any{"command": "echo boundary", "description": "print"}}},
		claudetest.Reply{Text: []string{" steered"}, Match: "also this"})
	tid2 := c.submit(sid, "start")
	firstDelta(t, c, sid, tid2)
	c.steer(sid, "also this")
	waitInputState(t, c, tid2, "written", "accepted")
	close(hold)
	evs2, err := c.events(tid2, "")
	_, text2 := sseText(evs2)
	waitInputState(t, c, tid2, "accepted")
	if err != nil || text2 != "working on it steered" {
		t.Fatalf("steered turn streamed %q (%v)", text2, err)
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

	m.Queue(claudetest.Reply{Text: []string{"still here"}})
	tid4 := c.submit(sid, "again")
	evs4, _ := c.events(tid4, "")
	if _, text4 := sseText(evs4); text4 != "still here" || !strings.Contains(claudetest.AllText(m.Requests()[len(m.Requests())-1]), "Hello, world") {
		t.Fatalf("the Turn after the cancel streamed %q or lost the history", text4)
	}
	if code := d.terminate(t); code != 0 {
		t.Fatalf("daemon exit %d:\n%s", code, d.stderr.String())
	}
	_ = core.terminate()
}

// waitInputState polls the Turn until its first steered input reaches one
// of states.
func waitInputState(t *testing.T, c *client, tid string, states ...string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if in := turnOf(t, c, tid).Inputs; len(in) > 0 {
			for _, s := range states {
				if in[0].State == s {
					return
				}
			}
		}
		timer := time.NewTimer(50 * time.Millisecond)
		<-timer.C
	}
	t.Fatalf("input never reached %v: %+v", states, turnOf(t, c, tid).Inputs)
}

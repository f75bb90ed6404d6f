package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// freeLoopbackAddr returns a loopback address nothing listens on now, so
// a restarted Core can take the address its daemon dials.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// A Session of a kind without native_session_recovery (synthetic) whose
// running Turn was cut short by a Core crash shows, once the daemon is
// back, that it cannot continue and why (the /v1 Session's x_agents_core),
// and a message event is refused early with that reason instead of
// queueing a Turn that fails at once.
func TestSessionUnrecoverableAfterCoreCrash(t *testing.T) {
	dir, tokenFile, token, cred := setup(t)
	root := filepath.Dir(tokenFile)
	credFile := filepath.Join(root, "device.cred")
	script := filepath.Join(root, "script.json")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(`{"turns":[{"deltas":["working"],"hold":true}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeLoopbackAddr(t)
	core := startCore(t, dir, tokenFile, "-listen", addr)
	d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile, "-synthetic-script", script)
	c := newAPIClient(t, core.base, dir, token)
	sid := c.session("synthetic", "synthetic-1")
	tid := c.submit(sid, "hold on")
	firstDelta(t, c, sid, tid)

	core.kill()
	core = startCore(t, dir, tokenFile, "-listen", addr)
	key := c.key
	c = newClient(t, core.base, token)
	c.key = key
	d.waitMark(t, markReconnected)
	var sess struct {
		XAgentsCore struct {
			RecoveryRequired bool    `json:"recovery_required"`
			Usable           bool    `json:"usable"`
			UnusableReason   *string `json:"unusable_reason"`
		} `json:"x_agents_core"`
	}
	// The daemon's heartbeat follows its connection; the state is judged
	// on it, so read until it has arrived (each read is a round trip).
	for deadline := time.Now().Add(20 * time.Second); ; {
		if err := json.Unmarshal([]byte(c.must("GET", "/v1/agents/sessions/"+sid, "", 200)), &sess); err != nil {
			t.Fatal(err)
		}
		if !sess.XAgentsCore.Usable || time.Now().After(deadline) {
			break
		}
	}
	st := sess.XAgentsCore
	if !st.RecoveryRequired || st.Usable || st.UnusableReason == nil || !strings.Contains(*st.UnusableReason, "native_session_recovery") {
		t.Fatalf("session state after the crash: %+v\ncore:\n%s", st, core.stderr.String())
	}
	code, body, _, err := c.do("POST", "/v1/agents/sessions/"+sid+"/events", `{"events":[`+messageEvent("again")+`]}`)
	var refusal struct {
		Error struct{ Message, Code string }
	}
	_ = json.Unmarshal([]byte(body), &refusal)
	if err != nil || code != 409 || refusal.Error.Code != "session_unrecoverable" || !strings.Contains(refusal.Error.Message, "native_session_recovery") {
		t.Fatalf("message after the crash: %d %s %v", code, body, err)
	}
	if code := d.terminate(t); code != 0 {
		t.Fatalf("daemon exit %d:\n%s", code, d.stderr.String())
	}
	_ = core.terminate()
}

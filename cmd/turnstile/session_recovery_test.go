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
// back, that it cannot continue and why, and the API refuses a new Turn
// early with that reason instead of queueing one that fails at once.
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
	c := newClient(t, core.base, token)
	sid := jsonField(c.must("POST", "/api/v1/sessions",
		`{"agent":{"kind":"synthetic","model":"synthetic-1"},"environment":{"type":"none"}}`, 201), "session_id")
	tid := jsonField(c.must("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"hold on"}`, 201), "turn_id")
	firstDelta(t, core.base, token, tid)

	core.kill()
	core = startCore(t, dir, tokenFile, "-listen", addr)
	c = newClient(t, core.base, token)
	d.waitMark(t, markReconnected)
	type sessionJSON struct {
		RecoveryRequired bool   `json:"recovery_required"`
		Usable           bool   `json:"usable"`
		UnusableReason   string `json:"unusable_reason"`
	}
	var page struct{ Session sessionJSON }
	// The daemon's heartbeat follows its connection; the state is judged
	// on it, so read until it has arrived (each read is a round trip).
	for deadline := time.Now().Add(20 * time.Second); ; {
		if err := json.Unmarshal([]byte(c.must("GET", "/api/v1/sessions/"+sid+"/turns", "", 200)), &page); err != nil {
			t.Fatal(err)
		}
		if !page.Session.Usable || time.Now().After(deadline) {
			break
		}
	}
	if !page.Session.RecoveryRequired || page.Session.Usable || !strings.Contains(page.Session.UnusableReason, "native_session_recovery") {
		t.Fatalf("session state after the crash: %+v\ncore:\n%s", page.Session, core.stderr.String())
	}
	st, body, _, err := c.do("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"again"}`)
	if err != nil || st != 409 || jsonField(body, "error") != "session_unrecoverable" || !strings.Contains(jsonField(body, "detail"), "native_session_recovery") {
		t.Fatalf("submit after the crash: %d %s %v", st, body, err)
	}
	if code := d.terminate(t); code != 0 {
		t.Fatalf("daemon exit %d:\n%s", code, d.stderr.String())
	}
	_ = core.terminate()
}

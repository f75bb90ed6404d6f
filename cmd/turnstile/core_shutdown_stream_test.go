package main

import (
	"bufio"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	coreapi "github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// TestCoreStopEndsAStreamWithTheTurnsEnd: SIGTERM to Core with a Turn
// running fails the Turn (its Runtime connection closes before done), and
// an event stream open on the Session sends that Turn's terminal event
// before it ends: a client never sees a stream close on a running Turn
// without learning how the Turn ended.
func TestCoreStopEndsAStreamWithTheTurnsEnd(t *testing.T) {
	testgate.Long(t) // real core and daemon processes
	dir, tokenFile, token, cred := setup(t)
	root := filepath.Dir(tokenFile)
	credFile := filepath.Join(root, "device.cred")
	script := filepath.Join(root, "script.json")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(`{"turns":[{"deltas":["still"],"hold":true}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	core := startCore(t, dir, tokenFile)
	startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile, "-synthetic-script", script)
	c := newAPIClient(t, core.base, dir, token)
	sid := c.session("synthetic", "synthetic-1")
	tid := c.submit(sid, "hold on")

	req, _ := http.NewRequest("GET", c.base+"/v1/agents/sessions/"+sid+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Last-Event-ID", tid+":0:0:0:0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && sc.Text() != "event: "+coreapi.EvOutputTextDelta {
	}
	if code := core.terminate(); code != 0 {
		t.Fatalf("core exit %d:\n%s", code, core.stderr.String())
	}
	var rest []string
	for sc.Scan() {
		rest = append(rest, sc.Text())
	}
	tail := strings.Join(rest, "\n")
	if !strings.Contains(tail, "event: "+coreapi.EvTurnFailed) || !strings.Contains(tail, "event_stream_incomplete") {
		t.Fatalf("the stream ended without the Turn's failure:\n%s\ncore:\n%s", tail, core.stderr.String())
	}
}

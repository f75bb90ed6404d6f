package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// TestCoreOnPostgresKeepsTurnsAcrossSIGKILL: `turnstile core -store URL`
// with a real `turnstile daemon` runs a Turn to its end; Core is
// SIGKILLed and started again on the same schema, and the Turn, its
// events and the device are all there; the daemon's next Turn runs too.
func TestCoreOnPostgresKeepsTurnsAcrossSIGKILL(t *testing.T) {
	testgate.Long(t)
	dsn, tokenFile, token, cred := setupPG(t)
	if code, out, errOut := cliDevice(t, dsn, "list"); code != 0 || !strings.Contains(out, "d1") || !strings.Contains(out, "active") {
		t.Fatalf("device list -store: %d %q %s", code, out, errOut)
	}
	root := filepath.Dir(tokenFile)
	credFile := filepath.Join(root, "device.cred")
	script := filepath.Join(root, "script.json")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(`{"turns":[{"deltas":["one","two","three"]},{"deltas":["again"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	core := startCore(t, dsn, tokenFile)
	if !strings.Contains(core.stderr.String(), `"store":"postgres `) {
		t.Fatalf("Core does not log its PostgreSQL store:\n%s", core.stderr.String())
	}
	d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile, "-synthetic-script", script)
	c := newAPIClient(t, core.base, dsn, token)
	// A stuck stream shows the processes' logs.
	first := core
	watch := time.AfterFunc(2*time.Minute, func() {
		fmt.Fprintf(os.Stderr, "turnstile core:\n%s\nturnstile daemon:\n%s\n", first.stderr.String(), d.stderr.String())
	})
	defer watch.Stop()
	sid := c.session("synthetic", "synthetic-1")
	tid := c.submit(sid, "first")
	before, err := c.events(tid, "")
	if err != nil {
		t.Fatal(err)
	}
	if turn := c.turn(tid); turn.State != "completed" || len(before) < 4 {
		t.Fatalf("turn before the crash: %+v, events %v", turn, before)
	}
	core.kill()

	// Same address: the daemon reconnects to the URL it was given.
	core = startCore(t, dsn, tokenFile, "-listen", strings.TrimPrefix(core.base, "http://"))
	if strings.Contains(core.stderr.String(), "store created") {
		t.Fatalf("restart created a new store:\n%s", core.stderr.String())
	}
	key := c.key
	c = newClient(t, core.base, token)
	c.key = key
	if got := c.turn(tid); got.State != "completed" {
		t.Fatalf("turn after the restart: %+v", got)
	}
	after, err := c.events(tid, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("events changed across the restart:\n before %v\n after  %v", before, after)
	}
	// The daemon reconnects (its backoff) and runs the next Turn.
	tid2 := c.submit(sid, "second")
	if _, err := c.events(tid2, ""); err != nil {
		t.Fatal(err)
	}
	if got := c.turn(tid2); got.State != "completed" {
		t.Fatalf("second turn: %+v", got)
	}
	if code := core.terminate(); code != 0 {
		t.Fatalf("SIGTERM exit %d", code)
	}
	_ = d.terminate(t)
	// The device and key commands work on the same schema.
	var out, errOut bytes.Buffer
	if code := run([]string{"core", "key", "add", "ci", "-store", dsn}, &out, &errOut); code != 0 {
		t.Fatalf("key add -store: %d %s", code, errOut.String())
	}
	out.Reset()
	if code := run([]string{"core", "key", "list", "-store", dsn}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "ci") {
		t.Fatalf("key list -store: %d %q %s", code, out.String(), errOut.String())
	}
}

// TestCoreStoreFlag: -store takes only a PostgreSQL URL (exit 2
// otherwise); an unreachable server fails Core's start with a named
// error; list and revoke on an empty schema create nothing (exit 5).
func TestCoreStoreFlag(t *testing.T) {
	root := t.TempDir()
	tokenFile := filepath.Join(root, "token")
	if err := os.WriteFile(tokenFile, []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"core", "-store", "/var/lib/core", "-operator-token-file", tokenFile}, &out, &errOut); code != exitUsage ||
		!strings.Contains(errOut.String(), "-store must be a PostgreSQL URL") {
		t.Fatalf("-store path: %d %s", code, errOut.String())
	}
	errOut.Reset()
	t.Setenv("TURNSTILE_STORE", "mysql://x")
	if code := run([]string{"core", "device", "list"}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "TURNSTILE_STORE") {
		t.Fatalf("TURNSTILE_STORE: %d %s", code, errOut.String())
	}
	errOut.Reset()
	nowhere := "postgres://core:sekret@/core?host=" + root + "&connect_timeout=5"
	t.Setenv("TURNSTILE_STORE", nowhere)
	if code := run([]string{"core", "-operator-token-file", tokenFile, "-listen", "127.0.0.1:0"}, &out, &errOut); code != exitFail ||
		!strings.Contains(errOut.String(), pgstore.ErrUnreachable.Error()) || strings.Contains(errOut.String(), "sekret") {
		t.Fatalf("unreachable server: %d %s", code, errOut.String())
	}
	dsn := pgtest.Schema(t)
	for _, verb := range []string{"list", "revoke"} {
		errOut.Reset()
		args := []string{"core", "device", verb, "-store", dsn}
		if verb == "revoke" {
			args = append(args, "d1")
		}
		if code := run(args, &out, &errOut); code != exitNoStore {
			t.Fatalf("device %s on an empty schema: %d %s", verb, code, errOut.String())
		}
	}
	if n := pgtest.QueryInt(t, dsn, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`); n != 0 {
		t.Fatalf("list and revoke created %d tables", n)
	}
}

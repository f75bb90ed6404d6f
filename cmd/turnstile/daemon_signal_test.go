package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A stopped daemon never makes Core record a cut-short Turn as completed:
// SIGTERM or SIGINT mid-Turn ends the Turn failed (engine_failed, with the
// daemon's interruption as the detail) while the daemon exits cleanly, and
// a Turn Core was already cancelling ends cancelled.
func TestDaemonSignalMidTurnNeverCompletes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sig    syscall.Signal
		cancel bool
		state  string
		code   string
	}{
		{"sigterm", syscall.SIGTERM, false, "failed", "engine_failed"},
		{"sigint", syscall.SIGINT, false, "failed", "engine_failed"},
		{"sigterm-while-cancelling", syscall.SIGTERM, true, "cancelled", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, tokenFile, token, cred := setup(t)
			root := filepath.Dir(tokenFile)
			credFile := filepath.Join(root, "device.cred")
			script := filepath.Join(root, "script.json")
			if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(script, []byte(`{"turns":[{"deltas":["part","ial"],"hold":true,"cancel_latency":"300ms"}]}`), 0o600); err != nil {
				t.Fatal(err)
			}
			core := startCore(t, dir, tokenFile)
			d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile, "-synthetic-script", script)
			c := newAPIClient(t, core.base, dir, token)
			sid := c.session("synthetic", "synthetic-1")
			tid := c.submit(sid, "hold on")
			firstDelta(t, c, sid, tid)
			if tc.cancel {
				c.cancel(sid)
			}
			if err := d.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-d.exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("no exit after %v:\n%s", tc.sig, d.stderr.String())
			}
			if code := d.cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("daemon exit %d:\n%s", code, d.stderr.String())
			}
			tv := c.turn(tid)
			if tv.State != tc.state || tv.ErrorCode != tc.code {
				t.Fatalf("turn after %v: %+v\ndaemon:\n%s", tc.sig, tv, d.stderr.String())
			}
			if tc.code != "" && tv.ErrorDetail == "" {
				t.Fatalf("no reason given: %+v", tv)
			}
			_ = core.terminate()
		})
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// daemonProc is a `turnstile daemon` child process.
type daemonProc struct {
	cmd       *exec.Cmd
	stderr    *syncBuffer
	exited    chan error
	connected chan struct{}
}

// startDaemonProc starts `turnstile daemon` with args and waits until it
// is connected to Core.
func startDaemonProc(t *testing.T, args ...string) *daemonProc {
	t.Helper()
	raw, _ := json.Marshal(append([]string{"daemon"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+string(raw))
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &daemonProc{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan error, 1), connected: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(pipe)
		seen := false
		for sc.Scan() {
			line := sc.Text()
			p.stderr.Write([]byte(line + "\n"))
			if !seen && strings.Contains(line, `msg="connected to Core"`) {
				seen = true
				close(p.connected)
			}
		}
		p.exited <- cmd.Wait()
	}()
	select {
	case <-p.connected:
	case err := <-p.exited:
		t.Fatalf("turnstile daemon exited before connecting: %v\n%s", err, p.stderr.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("turnstile daemon never connected:\n%s", p.stderr.String())
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

func (p *daemonProc) terminate(t *testing.T) int {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit after SIGTERM:\n%s", p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// TestTryItWalkthrough walks the README's "Try it" steps with real child
// processes and a plain HTTP client: add a device, start Core, start a
// daemon, create a Session, submit a Turn, watch its events, then SIGTERM
// both and check their exit codes and that no log line holds a secret.
func TestTryItWalkthrough(t *testing.T) {
	// turnstile core device add -data data d1 > device.cred
	dir, tokenFile, token, cred := setup(t)
	credFile := filepath.Join(filepath.Dir(tokenFile), "device.cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// turnstile core -data data -operator-token-file operator.token
	core := startCore(t, dir, tokenFile)
	// turnstile daemon -core http://127.0.0.1:8080 -device d1 -credential-file device.cred
	d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile)
	c := newClient(t, core.base, token)
	// curl -X POST .../api/v1/sessions
	sid := jsonField(c.must("POST", "/api/v1/sessions",
		`{"agent":{"kind":"synthetic","model":"synthetic-1"},"environment":{"type":"none"}}`, 201), "session_id")
	// curl -X POST .../api/v1/sessions/$SESSION/turns
	tid := jsonField(c.must("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"hello, turnstile"}`, 201), "turn_id")
	// curl -N .../api/v1/turns/$TURN/events
	evs, err := c.events(tid, "")
	if err != nil {
		t.Fatalf("events: %v\n%s\n%s", err, core.stderr.String(), d.stderr.String())
	}
	var names []string
	for _, ev := range evs {
		names = append(names, ev.Event)
	}
	if got := strings.Join(names, ","); got != "delta,done,end" || !strings.Contains(evs[0].Data, "hello, turnstile") {
		t.Fatalf("events %s: %+v", got, evs)
	}
	if st := jsonField(c.must("GET", "/api/v1/turns/"+tid, "", 200), "state"); st != "completed" {
		t.Fatalf("turn state %q", st)
	}
	// kill -TERM (the daemon first: it releases everything, then Core)
	if code := d.terminate(t); code != 0 {
		t.Fatalf("daemon exit %d:\n%s", code, d.stderr.String())
	}
	if code := core.terminate(); code != 0 {
		t.Fatalf("core exit %d:\n%s", code, core.stderr.String())
	}
	for name, log := range map[string]string{"daemon": d.stderr.String(), "core": core.stderr.String()} {
		for _, secret := range []string{cred, token} {
			if strings.Contains(log, secret) {
				t.Fatalf("%s log holds a secret:\n%s", name, log)
			}
		}
	}
	if !strings.Contains(d.stderr.String(), "everything released") {
		t.Fatalf("daemon log:\n%s", d.stderr.String())
	}
}

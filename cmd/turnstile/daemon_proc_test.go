package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	coreapi "github.com/turnstile-sim/turnstile/core/api"
)

// daemonProc is a `turnstile daemon` child process.
type daemonProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan error
	// marks are closed when a log line first holds their text.
	marks map[string]chan struct{}
	// connects receives once for every markConnected line (a reconnect
	// after a Core restart logs it again).
	connects chan struct{}
}

// Log texts a daemonProc watches for.
const (
	markConnected    = `msg="connected to Core"`
	markShuttingDown = `msg="shutting down"`
	// markReconnected: the second connection (after Core restarted).
	markReconnected = `msg="connected to Core" gen=2`
)

// startDaemonProc starts `turnstile daemon` with args and waits until it
// is connected to Core.
func startDaemonProc(t *testing.T, args ...string) *daemonProc {
	t.Helper()
	if !slices.Contains(args, "-kinds") {
		args = append(args, "-kinds", "synthetic") // the test fixture, on request
	}
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
	p := &daemonProc{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan error, 1),
		marks: map[string]chan struct{}{markConnected: make(chan struct{}), markShuttingDown: make(chan struct{}),
			markReconnected: make(chan struct{})},
		connects: make(chan struct{}, 64)}
	go func() {
		sc := bufio.NewScanner(pipe)
		seen := map[string]bool{}
		for sc.Scan() {
			line := sc.Text()
			p.stderr.Write([]byte(line + "\n"))
			if strings.Contains(line, markConnected) {
				select {
				case p.connects <- struct{}{}:
				default:
				}
			}
			for text, ch := range p.marks {
				if !seen[text] && strings.Contains(line, text) {
					seen[text] = true
					close(ch)
				}
			}
		}
		p.exited <- cmd.Wait()
	}()
	select {
	case <-p.connects:
	case err := <-p.exited:
		t.Fatalf("turnstile daemon exited before connecting: %v\n%s", err, p.stderr.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("turnstile daemon never connected:\n%s", p.stderr.String())
	}
	// Stopped as an operator stops it, so that it closes its native
	// processes (their own process groups, which a kill of the daemon
	// leaves running, still writing in the test's directories); killed
	// only if it does not exit.
	t.Cleanup(func() {
		if p.cmd.ProcessState != nil {
			return
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
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

// waitMark waits until the child logged mark.
func (p *daemonProc) waitMark(t *testing.T, mark string) {
	t.Helper()
	select {
	case <-p.marks[mark]:
	case <-p.exited:
		t.Fatalf("daemon exited before logging %q:\n%s", mark, p.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("daemon never logged %q:\n%s", mark, p.stderr.String())
	}
}

// firstDelta opens the /v1 stream of Session sid from Turn turn's start
// and returns once the Turn's first output text delta arrived.
func firstDelta(t *testing.T, c *client, sid, turn string) {
	t.Helper()
	req, _ := http.NewRequest("GET", c.base+"/v1/agents/sessions/"+sid+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Last-Event-ID", turn+":0:0:0:0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == "event: "+coreapi.EvOutputTextDelta {
			return
		}
	}
	t.Fatalf("event stream ended without a delta: %v", sc.Err())
}

// The first SIGTERM starts the graceful shutdown, which here waits for a
// Turn whose cancel takes a minute; the second exits at once with code 1.
func TestDaemonSecondSignalExitsAtOnce(t *testing.T) {
	dir, tokenFile, token, cred := setup(t)
	root := filepath.Dir(tokenFile)
	credFile := filepath.Join(root, "device.cred")
	script := filepath.Join(root, "script.json")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(`{"turns":[{"deltas":["working"],"hold":true,"cancel_latency":"1m"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	core := startCore(t, dir, tokenFile)
	d := startDaemonProc(t, "-core", core.base, "-device", "d1", "-credential-file", credFile, "-synthetic-script", script, "-log-level", "debug")
	c := newAPIClient(t, core.base, dir, token)
	sid := c.session("synthetic", "synthetic-1")
	tid := c.submit(sid, "hold on")
	firstDelta(t, c, sid, tid)
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	d.waitMark(t, markShuttingDown)
	start := time.Now()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit after the second signal:\n%s", d.stderr.String())
	}
	if code := d.cmd.ProcessState.ExitCode(); code != exitFail || time.Since(start) > 5*time.Second {
		t.Fatalf("exit %d after %v:\n%s", code, time.Since(start), d.stderr.String())
	}
	if !strings.Contains(d.stderr.String(), "second signal") {
		t.Fatalf("daemon log:\n%s", d.stderr.String())
	}
	_ = core.terminate()
}

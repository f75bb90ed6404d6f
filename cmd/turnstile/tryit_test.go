package main

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// daemonProc is a `turnstile daemon` child process.
type daemonProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan error
	// marks are closed when a log line first holds their text.
	marks map[string]chan struct{}
}

// Log texts a daemonProc watches for.
const (
	markConnected    = `msg="connected to Core"`
	markShuttingDown = `msg="shutting down"`
)

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
	p := &daemonProc{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan error, 1),
		marks: map[string]chan struct{}{markConnected: make(chan struct{}), markShuttingDown: make(chan struct{})}}
	go func() {
		sc := bufio.NewScanner(pipe)
		seen := map[string]bool{}
		for sc.Scan() {
			line := sc.Text()
			p.stderr.Write([]byte(line + "\n"))
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
	case <-p.marks[markConnected]:
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

// readmeJobs are the background commands (`… &`) of a README block, in
// the order the block started them (%1, %2, ...).
type readmeJobs struct {
	cmds []*exec.Cmd
	logs []*syncBuffer
}

func (j *readmeJobs) start(t *testing.T, dir string, env []string, cmdline string) {
	t.Helper()
	job := exec.Command("bash", "-c", "exec "+strings.TrimSuffix(cmdline, "&"))
	buf := &syncBuffer{}
	job.Dir, job.Env, job.Stderr = dir, env, buf
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if job.ProcessState == nil {
			_ = job.Process.Kill()
			_ = job.Wait()
		}
	})
	j.cmds, j.logs = append(j.cmds, job), append(j.logs, buf)
}

// terminate runs `kill -TERM %N && wait %N`: the job must exit 0.
func (j *readmeJobs) terminate(t *testing.T, cmdline string) {
	t.Helper()
	n := int(cmdline[len("kill -TERM %")] - '1')
	if err := j.cmds[n].Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := j.cmds[n].Wait(); err != nil {
		t.Fatalf("%s: job %d: %v\n%s", cmdline, n+1, err, j.logs[n].String())
	}
}

// checkTryItOutput checks what one foreground line of "Try it" printed.
func checkTryItOutput(t *testing.T, cmdline, out string, jobs *readmeJobs) {
	t.Helper()
	switch {
	case strings.HasSuffix(cmdline, "/api/v1/sessions"):
		if strings.TrimSpace(out) != `{"session_id":"s-1"}` {
			t.Fatalf("%s: %q", cmdline, out)
		}
	case strings.HasSuffix(cmdline, "/sessions/s-1/turns"):
		if strings.TrimSpace(out) != `{"turn_id":"t-1"}` {
			t.Fatalf("%s: %q", cmdline, out)
		}
	case strings.HasSuffix(cmdline, "/turns/t-1/events"):
		if !strings.Contains(out, "event: delta") || !strings.Contains(out, "hello, turnstile") ||
			!strings.Contains(out, "event: done") || !strings.Contains(out, "event: end") {
			t.Fatalf("%s: %q\n%s\n%s", cmdline, out, jobs.logs[0].String(), jobs.logs[1].String())
		}
	}
}

// TestReadmeTryIt runs every line of the README's "Try it" block, in
// order, in a fresh directory: it builds the binary, adds a device, starts
// `turnstile core` and `turnstile daemon` as child processes (Core on a
// free port through TURNSTILE_LISTEN), walks the curl steps, sends SIGTERM
// to both and checks their exit codes and that no log line holds a secret.
func TestReadmeTryIt(t *testing.T) {
	testgate.Long(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	env := append(os.Environ(), "TURNSTILE_LISTEN="+addr)
	jobs := &readmeJobs{}
	for _, line := range readmeBlock(t, "## Try it") {
		cmdline := strings.ReplaceAll(line, "localhost:8080", addr)
		runDir := dir
		if strings.HasPrefix(cmdline, "go build") {
			runDir = root
			cmdline = strings.ReplaceAll(cmdline, "-o turnstile", "-o "+filepath.Join(dir, "turnstile"))
		}
		switch {
		case strings.HasPrefix(cmdline, "export "):
			name, value, _ := strings.Cut(strings.TrimPrefix(cmdline, "export "), "=")
			env = append(env, name+"="+runLine(t, dir, env, `printf %s `+value))
		case strings.HasSuffix(cmdline, "&"):
			jobs.start(t, dir, env, cmdline)
		case strings.HasPrefix(cmdline, "kill -TERM %"):
			jobs.terminate(t, cmdline)
		default:
			checkTryItOutput(t, cmdline, runLine(t, runDir, env, cmdline), jobs)
		}
	}
	if len(jobs.cmds) != 2 || jobs.cmds[0].ProcessState == nil || jobs.cmds[1].ProcessState == nil {
		t.Fatal("the README block did not start and stop Core and the daemon")
	}
	secrets := []string{strings.TrimSpace(readFile(t, filepath.Join(dir, "d1.credential"))),
		strings.TrimSpace(readFile(t, filepath.Join(dir, "operator.token")))}
	for i, log := range jobs.logs {
		for _, secret := range secrets {
			if secret != "" && strings.Contains(log.String(), secret) {
				t.Fatalf("job %d's log holds a secret:\n%s", i+1, log.String())
			}
		}
	}
	if !strings.Contains(jobs.logs[1].String(), "everything released") {
		t.Fatalf("daemon log:\n%s", jobs.logs[1].String())
	}
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

// firstDelta opens the Turn's event stream and returns once its first
// delta arrived (the Turn is running natively).
func firstDelta(t *testing.T, base, token, turn string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/v1/turns/"+turn+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == "event: delta" {
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
	c := newClient(t, core.base, token)
	sid := jsonField(c.must("POST", "/api/v1/sessions",
		`{"agent":{"kind":"synthetic","model":"synthetic-1"},"environment":{"type":"none"}}`, 201), "session_id")
	tid := jsonField(c.must("POST", "/api/v1/sessions/"+sid+"/turns", `{"text":"hold on"}`, 201), "turn_id")
	firstDelta(t, core.base, token, tid)
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

package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// readmeBlock returns the first sh block after heading, as written.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readmeText(t), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q", heading)
	}
	if next := strings.Index(rest, "\n## "); next >= 0 {
		rest = rest[:next]
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	if !ok {
		t.Fatalf("README section %q has no sh block", heading)
	}
	block, _, _ := strings.Cut(rest, "```")
	return block
}

// runningCoreDeadline bounds the whole block: the build, both servers and
// the Turn. The block's own event stream gives up after 60 s.
const runningCoreDeadline = 4 * time.Minute

// TestReadmeRunningCore runs the README's "Running Core" block as a user
// pasting it would: the whole block, unchanged but for the port, as one
// bash script (with -e, so any failing line fails it) at the repository
// root. The port 8080 is replaced by a free one, which Core listens on
// through TURNSTILE_LISTEN; TMPDIR points into the test's directory, so the
// block's `mktemp -d` scratch directory, and what it leaves there, lands
// in it. The block must start a daemon before its Turn is watched: the
// test checks that the Turn completed with the synthetic Harness's echo of
// its input, that the daemon connected and released everything, that both
// servers exited 0 (the block waits for them), and that no log holds the
// device credential, the operator token or the API key. Every process the block starts
// shares its process group, which the deadline and the cleanup kill.
func TestReadmeRunningCore(t *testing.T) {
	testgate.Long(t) // builds the binary, runs Core and a daemon
	block := readmeBlock(t, "## Running Core")
	if strings.Count(block, "localhost:8080") < 2 {
		t.Fatalf("the block no longer talks to localhost:8080; update the port substitution:\n%s", block)
	}
	tmp := t.TempDir()
	addr := freeAddr(t)
	out, errOut, runErr := runReadmeBlock(t, tmp, strings.ReplaceAll(block, "localhost:8080", addr), runningCoreDeadline,
		"TURNSTILE_LISTEN="+addr)

	demo := readmeDemoDir(t, tmp)
	logs := map[string]string{}
	for _, name := range []string{"core.log", "daemon.log"} {
		b, _ := os.ReadFile(filepath.Join(demo, name))
		logs[name] = string(b)
	}
	if runErr != nil {
		t.Fatalf("the block failed: %v\nstdout:\n%s\nstderr:\n%s\ncore.log:\n%s\ndaemon.log:\n%s",
			runErr, out, errOut, logs["core.log"], logs["daemon.log"])
	}
	checkRunningCoreOutput(t, out, logs)
	secrets := []string{strings.TrimSpace(readFile(t, filepath.Join(demo, "d1.credential"))),
		strings.TrimSpace(readFile(t, filepath.Join(demo, "operator.token"))),
		strings.TrimSpace(readFile(t, filepath.Join(demo, "api.key")))}
	for name, log := range logs {
		for _, secret := range secrets {
			if secret == "" || strings.Contains(log, secret) {
				t.Fatalf("%s holds a secret (or a secret is empty):\n%s", name, log)
			}
		}
	}
}

// freeAddr is a loopback address no one listens on (for a moment).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// runReadmeBlock runs a README block as one bash script (with -e, so any
// failing line fails it) at the repository root, with TMPDIR in tmp, so
// that the block's `mktemp -d` lands there. Every process the block
// starts shares its process group, which the deadline and the cleanup
// kill.
func runReadmeBlock(t *testing.T, tmp, block string, deadline time.Duration, env ...string) (stdout, stderr string, err error) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(tmp, "readme-block.sh")
	if err := os.WriteFile(script, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-eu", "-o", "pipefail", script)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err = cmd.Wait()
	return out.String(), errOut.String(), err
}

// readmeDemoDir is the one scratch directory the block made with mktemp.
func readmeDemoDir(t *testing.T, tmp string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(tmp, "tmp.*"))
	if len(dirs) != 1 {
		t.Fatalf("the block made %d scratch directories under TMPDIR, want 1: %v", len(dirs), dirs)
	}
	return dirs[0]
}

// checkRunningCoreOutput checks what the block printed, in order, and the
// servers' logs.
func checkRunningCoreOutput(t *testing.T, out string, logs map[string]string) {
	t.Helper()
	want := []string{
		`ready`,                        // readyz
		"event: agent.session.created", // the Session...
		`"id":"s-1"`,                   // ...s-1
		"event: agent.session.turn.output_text.delta", // the daemon's output...
		"hello, turnstile",                            // ...the synthetic Harness's echo of the input
		"event: agent.session.turn.completed",         // the Turn's end
		"event: agent.session.idle",                   // the end of the stream
		`"status":"completed"`,                        // GET /v1/agents/sessions/s-1/turns/t-1
		"d1  active",                                  // device list
	}
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("the block's output lacks %q after the earlier steps:\n%s", w, out)
		}
		rest = rest[i+len(w):]
	}
	for _, w := range []string{markConnected, "everything released"} {
		if !strings.Contains(logs["daemon.log"], w) {
			t.Fatalf("daemon.log lacks %q:\n%s", w, logs["daemon.log"])
		}
	}
}

func runLine(t *testing.T, dir string, env []string, line string) string {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", line, err, out.String(), errOut.String())
	}
	return out.String()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

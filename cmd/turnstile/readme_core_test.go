package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// readmeBlock returns the lines of the first sh block after heading.
func readmeBlock(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q", heading)
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, _ := strings.Cut(rest, "```")
	var out []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestReadmeRunningCore runs every command of the README's "Running Core"
// block, in order, in a fresh directory (the listen address is moved off
// 8080 through TURNSTILE_LISTEN), with a scripted Runtime connecting once
// Core is ready, and checks what each prints.
func TestReadmeRunningCore(t *testing.T) {
	testgate.Long(t) // builds the binary
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
	var core *exec.Cmd
	var served chan error
	for _, line := range readmeBlock(t, "## Running Core") {
		cmdline := strings.ReplaceAll(line, "localhost:8080", addr)
		runDir := dir
		if strings.HasPrefix(cmdline, "go build") { // run at the repository root, the binary lands in dir
			runDir = root
			cmdline = strings.ReplaceAll(cmdline, "-o turnstile", "-o "+filepath.Join(dir, "turnstile"))
		}
		switch {
		case strings.HasPrefix(cmdline, "export "):
			name, value, _ := strings.Cut(strings.TrimPrefix(cmdline, "export "), "=")
			out := runLine(t, dir, env, `printf %s `+value)
			env = append(env, name+"="+out)
			continue
		case strings.HasSuffix(cmdline, "&"):
			core = exec.Command("bash", "-c", "exec "+strings.TrimSuffix(cmdline, "&"))
			core.Dir, core.Env = dir, env
			var logs bytes.Buffer
			core.Stderr = &logs
			if err := core.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if core.ProcessState == nil {
					_ = core.Process.Kill()
					_ = core.Wait()
				}
			})
			continue
		}
		out := runLine(t, runDir, env, cmdline)
		if strings.Contains(cmdline, "/readyz") {
			served = connectReadmeRuntime(t, dir, addr)
		}
		checkReadmeLine(t, line, cmdline, out, dir, served)
	}
	if core == nil || served == nil {
		t.Fatal("the README block never started Core")
	}
	if err := core.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := core.Wait(); err != nil {
		t.Fatalf("turnstile core after SIGTERM: %v", err)
	}
}

func runLine(t *testing.T, dir string, env []string, line string) string {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, errOut.String())
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

// connectReadmeRuntime connects a scripted Runtime as d1 with the
// credential the README's device add wrote.
func connectReadmeRuntime(t *testing.T, dir, addr string) chan error {
	t.Helper()
	cred := strings.TrimSpace(readFile(t, filepath.Join(dir, "d1.credential")))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	boot, err := scripted.DoBootstrap(ctx, http.DefaultClient, "http://"+addr, "d1", cred)
	if err != nil {
		t.Fatal(err)
	}
	c, err := scripted.Dial(ctx, http.DefaultClient, boot.WSURL, "d1", cred, &scripted.Runtime{Deltas: 1, DeclaredKind: "synthetic"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Serve(context.Background()) }()
	t.Cleanup(func() { c.WS.CloseNow() })
	return done
}

// checkReadmeLine checks what one README command printed or did.
func checkReadmeLine(t *testing.T, line, cmdline, out, dir string, served chan error) {
	t.Helper()
	bad := func() { t.Fatalf("%s: %q", line, out) }
	switch {
	case strings.Contains(cmdline, "/readyz"):
		if !strings.Contains(out, "ready") {
			bad()
		}
	case strings.HasSuffix(cmdline, "/api/v1/sessions"):
		if strings.TrimSpace(out) != `{"session_id":"s-1"}` {
			bad()
		}
	case strings.HasSuffix(cmdline, "/sessions/s-1/turns"):
		if strings.TrimSpace(out) != `{"turn_id":"t-1"}` {
			bad()
		}
	case strings.HasSuffix(cmdline, "/turns/t-1/events"):
		if !strings.Contains(out, "event: done") || !strings.Contains(out, "event: end") {
			bad()
		}
	case strings.HasSuffix(cmdline, "/turns/t-1"):
		if jsonField(out, "state") != "completed" {
			bad()
		}
	case strings.Contains(cmdline, "device add"):
		if !strings.HasPrefix(readFile(t, filepath.Join(dir, "d1.credential")), credentialPrefix) {
			t.Fatalf("%s: no credential written", line)
		}
	case strings.Contains(cmdline, "device list"):
		if !strings.Contains(out, "d1  active") {
			bad()
		}
	case strings.Contains(cmdline, "device revoke"):
		if err := <-served; websocket.CloseStatus(err) != 4001 {
			t.Fatalf("after revoke the Runtime's connection ended with %v", err)
		}
	}
}

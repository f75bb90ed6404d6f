//go:build unix

package clirunner

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid is a live (non-zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// startShell starts sh -c script and reads the first stdout line, the
// grandchild's PID the script prints.
func startShell(t *testing.T, script string, grace time.Duration) (*Process, *bufio.Reader, int) {
	t.Helper()
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", script}, Grace: grace})
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(p.Stdout())
	line, err := rd.ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("first line %q", line)
	}
	return p, rd, pid
}

// A child that ignores TERM, with a grandchild that ignores it too and
// holds stdout open: Stop waits the grace period, KILLs the group, stdout
// reaches EOF, and Wait joins with the KILL.
func TestStopKillsGroupIgnoringTerm(t *testing.T) {
	const grace = 300 * time.Millisecond
	p, rd, grandchild := startShell(t, `trap '' TERM; sleep 1000 & echo $!; wait`, grace)
	if !alive(grandchild) {
		t.Fatal("grandchild not running")
	}
	began := time.Now()
	if err := p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d < grace {
		t.Fatalf("Stop confirmed after %v, before the %v grace period a TERM-ignoring child gets", d, grace)
	}
	if _, err := io.ReadAll(rd); err != nil {
		t.Fatal(err)
	}
	err := p.Wait(context.Background())
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("Wait = %v, want the child's exit error", err)
	}
	if ws := exit.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended %v, want SIGKILL", ws)
	}
	if alive(p.Pid()) || alive(grandchild) {
		t.Fatalf("group member alive after Stop: child %v grandchild %v", alive(p.Pid()), alive(grandchild))
	}
}

// The direct child exits on its own while a grandchild holds stdout open:
// the reaper KILLs the rest of the group, so stdout reaches EOF and Wait
// returns the child's own exit status.
func TestExitReapsGroupHoldingStdout(t *testing.T) {
	p, rd, grandchild := startShell(t, `sleep 1000 & echo $!; exit 3`, time.Second)
	if _, err := io.ReadAll(rd); err != nil {
		t.Fatal(err)
	}
	err := p.Wait(context.Background())
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("Wait = %v, want exit status 3", err)
	}
	if alive(grandchild) {
		t.Fatal("grandchild holding stdout survived the child's exit")
	}
}

// A child that honours TERM ends with it; Stop is idempotent.
func TestStopTerminates(t *testing.T) {
	p, rd, _ := startShell(t, `echo $$; exec sleep 1000`, time.Minute)
	for range 2 {
		if err := p.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = io.ReadAll(rd)
	var exit *exec.ExitError
	if err := p.Wait(context.Background()); !errors.As(err, &exit) ||
		exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("Wait = %v, want SIGTERM", err)
	}
}

// Stdin reaches the child, stderr is kept as a tail, and a missing
// executable is refused at Start with nothing owned.
func TestPipesAndStartFailure(t *testing.T) {
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", `read x; echo "got $x"; echo oops >&2`}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(p.Stdin(), "hello\n"); err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(p.Stdout())
	if err := p.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if string(out) != "got hello\n" || p.StderrTail() != "oops\n" {
		t.Fatalf("stdout %q stderr %q", out, p.StderrTail())
	}
	if _, err := Start(Spec{Path: "/nonexistent/codex"}); !errors.Is(err, ErrStart) {
		t.Fatalf("Start of a missing binary = %v", err)
	}
}

// The parent's cancellation stops the child as Stop does: TERM first.
func TestContextEndStopsChild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, err := StartContext(ctx, Spec{Path: "/bin/sh", Args: []string{"-c", `echo $$; exec sleep 1000`}, Grace: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(p.Stdout())
	if _, err := rd.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, _ = io.ReadAll(rd)
	var exit *exec.ExitError
	if err := p.Wait(context.Background()); !errors.As(err, &exit) ||
		exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("Wait = %v, want SIGTERM from the context's end", err)
	}
}

// A Stop under way keeps its grace period when the context ends after it:
// the KILL of a TERM-ignoring group comes one grace period after the Stop,
// and the context's end does not confirm the stop earlier.
func TestContextEndDuringStopSharesGrace(t *testing.T) {
	const grace = 300 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	p, err := StartContext(ctx, Spec{Path: "/bin/sh", Args: []string{"-c", `trap '' TERM; echo $$; while :; do read x || exit 0; done`}, Grace: grace})
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(p.Stdout())
	if _, err := rd.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- p.Stop(context.Background()) }()
	cancel()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d < grace {
		t.Fatalf("stop confirmed after %v, before the %v grace period", d, grace)
	}
	_, _ = io.ReadAll(rd)
	var exit *exec.ExitError
	if err := p.Wait(context.Background()); !errors.As(err, &exit) ||
		exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("Wait = %v, want SIGKILL after the grace period", err)
	}
}

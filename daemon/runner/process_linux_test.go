package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// becomeSubreaper makes this test process the reaper of orphaned
// descendants, so a test can wait for a grandchild the daemon killed.
func becomeSubreaper(t *testing.T) {
	t.Helper()
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Skipf("cannot become a child subreaper: %v", errno)
	}
}

// reapKilled waits for the orphaned grandchild pid and requires that a
// KILL ended it.
func reapKilled(t *testing.T, pid int) {
	t.Helper()
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(pid, &ws, 0, nil)
	if errors.Is(err, syscall.ECHILD) {
		// Reaped before it was handed to this process (its parent died
		// after it): it must be gone, or a zombie of another reaper.
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) == 0 || f[0] != "Z" {
				t.Fatalf("grandchild %d is still running and not ours to wait for", pid)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("wait for grandchild %d: %v", pid, err)
	}
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("grandchild %d ended with %v, not by the group KILL", pid, ws)
	}
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("child did not record its grandchild: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestOwnedProcessIgnoringTermIsKilledWithItsGrandchild: the direct
// process ignores TERM and leaves a grandchild holding stdout; a
// cancellation sends TERM, then KILL to the whole group after the grace,
// and Run returns only once the grandchild is gone and the pipe closed.
func TestOwnedProcessIgnoringTermIsKilledWithItsGrandchild(t *testing.T) {
	becomeSubreaper(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild")
	ready := readyFIFO(t, dir)
	script := `trap '' TERM
sleep 600 &
echo $! > "$1"
echo started
echo ok > "$2"
while :; do sleep 1; done`
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var res OwnedResult
	var err error
	go func() {
		defer close(done)
		res, err = Owned{Path: "/bin/sh", Args: []string{"-c", script, "sh", pidFile, ready}, Grace: 300 * time.Millisecond}.Run(ctx)
	}()
	waitReady(t, ready)
	grandchild := readPID(t, pidFile)
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the grace: the TERM-ignoring child or its grandchild survived")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.ExitCode != 128+9 {
		t.Fatalf("result %+v, want stopped by KILL (137)", res)
	}
	if !strings.Contains(string(res.Output), "started") {
		t.Fatalf("output %q lost", res.Output)
	}
	reapKilled(t, grandchild)
}

// TestOwnedProcessExitReapsDescendantHoldingStdout: the direct process
// exits on its own while a grandchild keeps stdout open; Run reports the
// exit code at once and the grandchild is killed.
func TestOwnedProcessExitReapsDescendantHoldingStdout(t *testing.T) {
	becomeSubreaper(t)
	pidFile := filepath.Join(t.TempDir(), "grandchild")
	script := `sleep 600 &
echo $! > "$1"
echo bye
exit 3`
	res, err := Owned{Path: "/bin/sh", Args: []string{"-c", script, "sh", pidFile}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Stopped || strings.TrimSpace(string(res.Output)) != "bye" {
		t.Fatalf("result %+v, want exit 3 with its output", res)
	}
	reapKilled(t, readPID(t, pidFile))
}

func TestOwnedProcessTermWithinGrace(t *testing.T) {
	dir := t.TempDir()
	ready := readyFIFO(t, dir)
	script := `trap 'exit 7' TERM
echo ok > "$1"
while :; do sleep 1; done`
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitReady(t, ready)
		cancel()
	}()
	res, err := Owned{Path: "/bin/sh", Args: []string{"-c", script, "sh", ready}, Grace: time.Minute}.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.ExitCode != 7 {
		t.Fatalf("result %+v, want the TERM handler's exit 7 well before the grace", res)
	}
}

func TestOwnedProcessStartFailure(t *testing.T) {
	_, err := Owned{Path: filepath.Join(t.TempDir(), "missing")}.Run(context.Background())
	if err == nil {
		t.Fatal("a missing program started")
	}
}

// readyFIFO makes a named pipe the child writes once it is set up;
// waitReady blocks until it did (no polling: the open blocks).
func readyFIFO(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func waitReady(t *testing.T, path string) {
	if _, err := os.ReadFile(path); err != nil {
		t.Errorf("ready pipe: %v", err)
	}
}

package conform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is one Runtime process started for a scenario.
type process struct {
	*tail // its output
	cmd   *exec.Cmd
	done  chan struct{}
	err   error // Wait's result, once done is closed
}

// startProcess runs argv with env added; its output's tail is kept, and
// copied to also when set.
func startProcess(argv, env []string, also *lockedWriter) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	p := &process{cmd: cmd, tail: &tail{also: also}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.tail, p.tail
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the Runtime %q: %w", argv[0], err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, nil
}

// exited reports whether the process ended, and its exit code.
func (p *process) exited() (bool, int) {
	select {
	case <-p.done:
		return true, p.cmd.ProcessState.ExitCode()
	default:
		return false, 0
	}
}

// stop asks the process to stop (SIGTERM), then kills it after grace.
func (p *process) stop(grace time.Duration) {
	if ok, _ := p.exited(); ok {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// waitExit waits up to d for the process to end.
func (p *process) waitExit(ctx context.Context, d time.Duration) (bool, int) {
	select {
	case <-p.done:
	case <-time.After(d):
	case <-ctx.Done():
	}
	return p.exited()
}

// tail keeps the last lines a process wrote.
type tail struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	also *lockedWriter
}

const tailBytes = 4 << 10

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(b)
	if t.buf.Len() > 2*tailBytes {
		rest := t.buf.Bytes()[t.buf.Len()-tailBytes:]
		t.buf.Reset()
		t.buf.Write(rest)
	}
	if t.also != nil {
		t.also.Write(b)
	}
	return len(b), nil
}

// lines returns the last n lines written.
func (t *tail) lines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ls := strings.Split(strings.TrimRight(t.buf.String(), "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// lockedWriter serialises writes from several processes.
type lockedWriter struct {
	mu sync.Mutex
	w  interface{ Write([]byte) (int, error) }
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

var errNoCommand = errors.New("conform runtime: a Runtime command or a listener is required")

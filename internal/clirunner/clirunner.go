// Package clirunner owns native child processes for Harness adapters.
//
// Every child starts in its own group: a process group on Unix, a Job
// object on Windows (group_windows.go); Start refuses on any other
// platform with ErrUnsupportedPlatform. Stop asks the group to terminate
// (TERM on Unix, CTRL_BREAK on Windows), waits the grace period (default
// 3 s) and then kills the group. StartContext ties the child to a context:
// its end starts the same Stop, so an explicit Stop and the parent's
// cancellation share one grace period.
// When the direct child exits, the remaining members of its group are
// KILLed as well (after the rest of the grace period when a Stop is in
// progress), even if one of them still holds stdout open. The owned output
// pipes stay readable after the child exited: the consumer drains stdout
// (and the runner drains stderr into a bounded tail) before Wait joins the
// child's result. A descendant that left the group is not supervised; if
// it keeps a pipe open, the pipe is closed after DrainGrace.
//
// The group is lifecycle supervision, not isolation.
package clirunner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Defaults of Spec.
const (
	DefaultGrace      = 3 * time.Second
	DefaultDrainGrace = time.Second
	stderrTailMax     = 64 << 10
	groupPoll         = 20 * time.Millisecond
)

// Spec describes one child process.
type Spec struct {
	Path string
	Args []string
	Env  []string // nil: the parent's environment
	Dir  string
	// Grace is the TERM-to-KILL grace period (DefaultGrace when zero).
	Grace time.Duration
	// DrainGrace bounds the wait for a pipe's EOF after the group was
	// cleaned up (DefaultDrainGrace when zero).
	DrainGrace time.Duration
}

// ErrStart reports a child that could not be started; nothing is owned.
var ErrStart = errors.New("clirunner: start failed")

// Process is one started child and its group.
type Process struct {
	spec  Spec
	cmd   *exec.Cmd
	grp   group
	stdin *os.File
	out   *pipeReader
	errp  *pipeReader

	stopOnce sync.Once
	stopping chan struct{} // closed by Stop
	stopAt   time.Time     // written before stopping closes
	exited   chan struct{} // the direct child was reaped
	done     chan struct{} // group cleaned up and pipes drained
	waitErr  error         // written before exited closes

	tailMu sync.Mutex
	tail   []byte
}

// ErrUnsupportedPlatform: the platform has no group supervision here.
var ErrUnsupportedPlatform = errors.New("clirunner: child process supervision is not available on this platform")

// Start starts the child in a new group.
func Start(spec Spec) (*Process, error) {
	return StartContext(context.Background(), spec)
}

// StartContext starts the child in a new group; when ctx ends first, the
// child is stopped as by Stop (the grace period runs from that moment,
// and a Stop already under way keeps its own).
func StartContext(ctx context.Context, spec Spec) (*Process, error) {
	if !groupSupported {
		return nil, fmt.Errorf("%w: %w", ErrStart, ErrUnsupportedPlatform)
	}
	if spec.Grace <= 0 {
		spec.Grace = DefaultGrace
	}
	if spec.DrainGrace <= 0 {
		spec.DrainGrace = DefaultDrainGrace
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	pipe := func() (*os.File, *os.File, error) {
		r, w, err := os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll()
		return nil, fmt.Errorf("%w: pipes: %w", ErrStart, err)
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Env, cmd.Dir = spec.Env, spec.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	prepareGroup(cmd)
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	_, _, _ = inR.Close(), outW.Close(), errW.Close()
	grp, err := joinGroup(cmd.Process)
	if err != nil {
		// The child runs but cannot be supervised as a group: end it.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_, _, _ = inW.Close(), outR.Close(), errR.Close()
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	p := &Process{
		spec: spec, cmd: cmd, grp: grp, stdin: inW,
		out: newPipeReader(outR), errp: newPipeReader(errR),
		stopping: make(chan struct{}), exited: make(chan struct{}), done: make(chan struct{}),
	}
	go p.drainStderr()
	go p.supervise()
	if ctx.Done() != nil {
		go p.stopWhenDone(ctx)
	}
	return p, nil
}

// stopWhenDone stops the child when ctx ends before the group is gone.
func (p *Process) stopWhenDone(ctx context.Context) {
	select {
	case <-ctx.Done():
		_ = p.Stop(context.Background())
	case <-p.done:
	}
}

// Pid returns the direct child's process ID (on Unix also its process
// group ID).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stdin is the child's standard input.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the child's standard output; read it until EOF.
func (p *Process) Stdout() io.Reader { return p.out }

// Exited is closed once the direct child was reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// StderrTail returns the last bytes the child wrote to stderr.
func (p *Process) StderrTail() string {
	p.tailMu.Lock()
	defer p.tailMu.Unlock()
	return string(p.tail)
}

func (p *Process) drainStderr() {
	buf := make([]byte, 4096)
	for {
		n, err := p.errp.Read(buf)
		if n > 0 {
			p.tailMu.Lock()
			p.tail = append(p.tail, buf[:n]...)
			if over := len(p.tail) - stderrTailMax; over > 0 {
				p.tail = append([]byte(nil), p.tail[over:]...)
			}
			p.tailMu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// supervise reaps the direct child, then cleans up its group and bounds
// the pipes' drain.
func (p *Process) supervise() {
	p.waitErr = p.cmd.Wait()
	close(p.exited)
	select {
	case <-p.stopping:
		p.awaitGroup(p.stopAt.Add(p.spec.Grace))
	default:
	}
	p.grp.kill()
	p.awaitGroup(time.Now().Add(p.spec.DrainGrace))
	p.grp.release()
	_ = p.stdin.Close()
	p.out.closeAfter(p.spec.DrainGrace)
	p.errp.closeAfter(p.spec.DrainGrace)
	close(p.done)
}

// Stop asks the group to terminate, kills it after the grace period and waits
// until the group was cleaned up and the pipes drained (or ctx ends; the
// escalation continues regardless). It is idempotent.
func (p *Process) Stop(ctx context.Context) error {
	p.stopOnce.Do(func() {
		p.stopAt = time.Now()
		close(p.stopping)
		select {
		case <-p.exited:
			return
		default:
		}
		p.grp.terminate()
		go p.escalate()
	})
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *Process) escalate() {
	t := time.NewTimer(p.spec.Grace)
	defer t.Stop()
	select {
	case <-t.C:
		p.grp.kill()
	case <-p.exited:
	}
}

// Wait joins the child's result once the group was cleaned up and both
// pipes reached EOF (or were closed after DrainGrace). Drain stdout first:
// Wait does not read it.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-p.out.eof:
	case <-ctx.Done():
		return ctx.Err()
	}
	<-p.errp.eof
	return p.waitErr
}

// pipeReader is an owned pipe end that records its EOF and can be closed
// after a drain deadline.
type pipeReader struct {
	f       *os.File
	eof     chan struct{}
	eofOnce sync.Once
}

func newPipeReader(f *os.File) *pipeReader { return &pipeReader{f: f, eof: make(chan struct{})} }

func (r *pipeReader) Read(b []byte) (int, error) {
	n, err := r.f.Read(b)
	if err != nil {
		r.eofOnce.Do(func() { close(r.eof) })
		if !errors.Is(err, io.EOF) {
			err = io.EOF
		}
	}
	return n, err
}

// closeAfter closes the pipe if it has not reached EOF within d.
func (r *pipeReader) closeAfter(d time.Duration) {
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-r.eof:
		case <-t.C:
		}
		_ = r.f.Close()
		r.eofOnce.Do(func() { close(r.eof) })
	}()
}

// Child is a started child as the adapter that owns it sees it: its pipes
// and its process-group supervision. *Process implements it; tests stand
// in for it to run an adapter outside a testing/synctest bubble.
type Child interface {
	Stdin() io.WriteCloser
	Stdout() io.Reader
	Stop(ctx context.Context) error
	Wait(ctx context.Context) error
	Pid() int
}

var _ Child = (*Process)(nil)

// StartChild is Start as a Child: nil (never a typed nil) when the start
// failed.
func StartChild(spec Spec) (Child, error) {
	p, err := Start(spec)
	if err != nil {
		return nil, err
	}
	return p, nil
}

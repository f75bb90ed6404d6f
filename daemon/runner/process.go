package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// ProcessGrace is the TERM grace before KILL of an owned process.
const ProcessGrace = 3 * time.Second

// processOutputMax bounds the output an owned process keeps.
const processOutputMax = 64 << 10

// ErrProcessOwnership: this platform cannot own a process group, so no
// owned process is started.
var ErrProcessOwnership = errors.New("runner: process ownership is not supported on this platform")

// Owned is one command the daemon runs under its process ownership: in
// its own process group, stopped with TERM, a grace period and then KILL
// of the whole group, and with the group's remaining members killed when
// the direct process exits, even while a descendant still holds stdout.
type Owned struct {
	Path  string
	Args  []string
	Dir   string
	Env   []string
	Clock clock.Clock   // nil: the real clock
	Grace time.Duration // zero: ProcessGrace
}

// OwnedResult is how an owned process ended. ExitCode is the direct
// process's status, or 128+signal when a signal ended it.
type OwnedResult struct {
	ExitCode int
	Output   []byte // combined stdout and stderr, at most 64 KiB
	Stopped  bool   // ended by cancellation (TERM, then KILL after the grace)
}

// boundedBuffer keeps the first processOutputMax bytes and discards the
// rest, so a chatty process never blocks on its pipe.
type boundedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := processOutputMax - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// Run starts the command and waits until the direct process exited, the
// group's remaining members were killed and the output pipe closed. When
// ctx ends first, the group gets TERM, and KILL once the grace is over
// (the grace keeps running for descendants that outlive the direct
// process).
func (o Owned) Run(ctx context.Context) (OwnedResult, error) {
	clk, grace := o.Clock, o.Grace
	if clk == nil {
		clk = clock.New()
	}
	if grace == 0 {
		grace = ProcessGrace
	}
	r, w, err := os.Pipe()
	if err != nil {
		return OwnedResult{}, err
	}
	cmd := exec.Command(o.Path, o.Args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = o.Dir, o.Env, w, w
	if err := ownGroup(cmd); err != nil {
		r.Close()
		w.Close()
		return OwnedResult{}, err
	}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return OwnedResult{}, err
	}
	w.Close() // the children hold the write end now
	var out boundedBuffer
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(&out, r)
		r.Close()
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	pgid := cmd.Process.Pid
	res := OwnedResult{}
	var deadline <-chan time.Time
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-ctx.Done():
		res.Stopped = true
		signalGroup(pgid, false)
		t := clk.Timer(grace)
		defer t.Stop()
		deadline = t.C
		select {
		case waitErr = <-exited:
		case <-deadline:
			signalGroup(pgid, true)
			waitErr = <-exited
			deadline = nil
		}
	}
	if deadline != nil {
		// The direct process ended within the grace: descendants keep
		// the rest of it, unless they close the output first.
		select {
		case <-drained:
		case <-deadline:
		}
	}
	signalGroup(pgid, true) // reap what is left of the group
	<-drained
	res.ExitCode = exitCode(cmd, waitErr)
	res.Output = append([]byte(nil), out.buf.Bytes()...)
	return res, nil
}

// lookPath resolves prog (an absolute path is used as given).
func lookPath(prog string) (string, error) {
	if filepath.IsAbs(prog) {
		return prog, nil
	}
	return exec.LookPath(prog)
}

package codex

import (
	"context"
	"io"

	"github.com/turnstile-sim/turnstile/internal/clirunner"
)

// inProcessFake is the fake app-server run in this process over in-memory
// pipes, for tests inside a testing/synctest bubble (a child process
// keeps goroutines in system calls, so the bubble's clock never moves).
type inProcessFake struct {
	stdin  *io.PipeWriter
	stdout *io.PipeReader
	done   chan struct{}
}

// spawnInProcessFake starts the fake serving dir's modes.
func spawnInProcessFake(dir string) func(clirunner.Spec) (appServer, error) {
	return func(clirunner.Spec) (appServer, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		f := &inProcessFake{stdin: inW, stdout: outR, done: make(chan struct{})}
		go func() {
			defer close(f.done)
			serveFake(dir, inR, outW)
			_ = inR.Close()
			_ = outW.Close() // the adapter reads EOF, as after an exit
		}()
		return f, nil
	}
}

func (f *inProcessFake) Stdin() io.WriteCloser { return f.stdin }
func (f *inProcessFake) Stdout() io.Reader     { return f.stdout }
func (f *inProcessFake) Pid() int              { return 0 }

// Stop ends the fake's input, as TERM ends app-server.
func (f *inProcessFake) Stop(ctx context.Context) error {
	_ = f.stdin.Close()
	return f.Wait(ctx)
}

func (f *inProcessFake) Wait(ctx context.Context) error {
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Package bubbletest runs native children (clirunner) for adapter tests
// that run inside a testing/synctest bubble: the child and the goroutines
// that own it run outside the bubble (a Host), and its stdout reaches the
// adapter through a bridge. While the child owes an answer (its Ledger
// says Busy) a read waits on a channel made outside the bubble, so virtual
// time stands still while the child works; when it owes nothing, a read
// polls with virtual-time sleeps, so virtual time moves.
package bubbletest

import (
	"bufio"
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/internal/clirunner"
)

// Ledger tracks what a child owes, from the lines each side writes. Its
// methods are called under the bridge's lock, one at a time.
type Ledger interface {
	// Wrote notes one line the adapter wrote to the child.
	Wrote(line []byte)
	// Read notes one line the child wrote.
	Read(line []byte)
	// Busy reports whether the child owes an answer it is working on.
	Busy() bool
	// Forget drops what the child owes: it was silent for too long (an
	// answer that never comes must not stop virtual time forever).
	Forget()
}

// Host starts and supervises children outside the bubble. Every channel
// the bubble and the host share is made by the host: a goroutine of the
// bubble may use a channel made outside it (and waits on it without
// letting virtual time move), never the reverse.
type Host struct {
	reqs chan hostCall
	free chan chan struct{} // fresh completion channels, made outside
}

type hostCall struct {
	f    func()
	done chan struct{}
}

// Start starts a Host (outside any bubble); it stops with the test.
func Start(t *testing.T) *Host {
	h := &Host{reqs: make(chan hostCall), free: make(chan chan struct{})}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case c := <-h.reqs:
				go func() { c.f(); close(c.done) }()
			case <-stop:
				return
			}
		}
	}()
	go func() {
		for {
			select {
			case h.free <- make(chan struct{}):
			case <-stop:
				return
			}
		}
	}()
	t.Cleanup(func() { close(stop) })
	return h
}

// run runs f on a host goroutine and waits for it (not durably).
func (h *Host) run(f func()) {
	done := <-h.free
	h.reqs <- hostCall{f, done}
	<-done
}

// Spawn starts spec on the host; the returned Child is the bridge the
// adapter inside the bubble uses, with l tracking what the child owes.
func (h *Host) Spawn(spec clirunner.Spec, l Ledger) (clirunner.Child, error) {
	var err error
	b := &bridge{h: h, l: l}
	h.run(func() {
		b.notify = make(chan struct{}, 1)
		var p *clirunner.Process
		p, err = clirunner.Start(spec)
		if err == nil {
			b.p = p
			go b.pumpOut()
			go b.watchdog()
		}
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// bridge is the process as the adapter inside the bubble sees it.
type bridge struct {
	h *Host
	p *clirunner.Process
	l Ledger

	mu      sync.Mutex
	buf     []byte
	eof     bool
	lastOut time.Time     // real time of the last stdout line (host clock)
	notify  chan struct{} // created outside the bubble: a non-durable wake-up
}

func (b *bridge) Pid() int { return b.p.Pid() }

func (b *bridge) Stdin() io.WriteCloser { return bridgeWriter{b} }

func (b *bridge) Stdout() io.Reader { return bridgeReader{b} }

func (b *bridge) Stop(context.Context) error {
	var err error
	b.h.run(func() { err = b.p.Stop(context.Background()) })
	return err
}

func (b *bridge) Wait(context.Context) error {
	var err error
	b.h.run(func() { err = b.p.Wait(context.Background()) })
	return err
}

type bridgeWriter struct{ b *bridge }

// Write notes what the child now owes (one line per write) and writes.
func (w bridgeWriter) Write(p []byte) (int, error) {
	w.b.mu.Lock()
	w.b.l.Wrote(p)
	w.b.lastOut = time.Time{}
	w.b.mu.Unlock()
	var n int
	var err error
	w.b.h.run(func() { n, err = w.b.p.Stdin().Write(p) })
	return n, err
}

func (w bridgeWriter) Close() error {
	var err error
	w.b.h.run(func() { err = w.b.p.Stdin().Close() })
	return err
}

// pumpOut (host) reads the child's stdout, notes what it answers and
// hands the lines to the bubble.
func (b *bridge) pumpOut() {
	sc := bufio.NewScanner(b.p.Stdout())
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		b.mu.Lock()
		b.l.Read(sc.Bytes())
		b.buf = append(append(b.buf, sc.Bytes()...), '\n')
		b.lastOut = time.Now()
		b.mu.Unlock()
		b.wake()
	}
	_, _ = io.Copy(io.Discard, b.p.Stdout())
	b.mu.Lock()
	b.eof = true
	b.mu.Unlock()
	b.wake()
}

// watchdog (host) forgets what the child owes once it was silent for a
// while.
func (b *bridge) watchdog() {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		b.mu.Lock()
		if b.lastOut.IsZero() {
			b.lastOut = time.Now()
		}
		if time.Since(b.lastOut) > 10*time.Second {
			b.l.Forget()
		}
		eof := b.eof
		b.mu.Unlock()
		b.wake()
		if eof {
			return
		}
	}
}

func (b *bridge) wake() {
	select {
	case b.notify <- struct{}{}:
	default:
	}
}

type bridgeReader struct{ b *bridge }

// IdlePoll is the virtual-time poll of an idle child's stdout.
const IdlePoll = 50 * time.Millisecond

func (r bridgeReader) Read(p []byte) (int, error) {
	b := r.b
	b.mu.Lock()
	for {
		if len(b.buf) > 0 {
			n := copy(p, b.buf)
			b.buf = b.buf[n:]
			b.mu.Unlock()
			return n, nil
		}
		if b.eof {
			b.mu.Unlock()
			return 0, io.EOF
		}
		if b.l.Busy() {
			b.mu.Unlock()
			<-b.notify // the child owes an answer: virtual time stands still
			b.mu.Lock()
			continue
		}
		// Idle: a durable wait (nothing outside the bubble may wake one),
		// so virtual time moves; late output is read at the next poll.
		b.mu.Unlock()
		time.Sleep(IdlePoll)
		b.mu.Lock()
	}
}

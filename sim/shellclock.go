package sim

// This is the only goroutine-facing file of the kernel. Machines never use
// it: they receive `now` with every event. ShellClock exists so that a shell
// (code with goroutines that takes a clock.Clock) can run on simulated time,
// with blocking calls (Sleep, After, timers, tickers, deadlines) released
// when another goroutine advances the clock. The determinism guard allows
// goroutines, channels and sync here, and still bans the wall clock.

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// ShellClock is a virtual clock.Clock. It only moves when Set or Add is
// called; due waiters then fire in (deadline, creation) order, each seeing
// Now equal to its own deadline.
//
// Timers and tickers are returned as the library's *clock.Timer and
// *clock.Ticker, whose C channels work; but their Stop and Reset methods are
// tied to the library's own implementations and must not be called on them.
// Use ShellClock.StopTimer, ResetTimer and StopTicker instead.
type ShellClock struct {
	mu      sync.Mutex
	now     time.Time
	seq     uint64
	waiters []*waiter
	handles map[any]*waiter // *clock.Timer / *clock.Ticker -> waiter
}

type waiter struct {
	at     time.Time
	seq    uint64
	ch     chan time.Time // nil for AfterFunc
	fn     func()
	inline bool          // run fn on the advancing goroutine (deadlines)
	period time.Duration // tickers
	handle any           // the *clock.Timer or *clock.Ticker bound to it, if any
}

var _ clock.Clock = (*ShellClock)(nil)

// NewShellClock returns a clock standing at start.
func NewShellClock(start time.Time) *ShellClock {
	return &ShellClock{now: start, handles: map[any]*waiter{}}
}

// Now returns the virtual time.
func (c *ShellClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Since returns Now minus t.
func (c *ShellClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Until returns t minus Now.
func (c *ShellClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// Add advances the clock by d.
func (c *ShellClock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }

// Set advances the clock to t, firing every waiter due by then in order. The
// clock never goes back: t before Now panics.
func (c *ShellClock) Set(t time.Time) {
	for {
		c.mu.Lock()
		assert.That(!t.Before(c.now), "ShellClock.Set back in time: %s < %s", t, c.now)
		if len(c.waiters) == 0 || c.waiters[0].at.After(t) {
			c.now = t
			c.mu.Unlock()
			return
		}
		w := c.waiters[0]
		c.waiters = c.waiters[1:]
		c.now = w.at
		if w.period == 0 && w.handle != nil {
			delete(c.handles, w.handle) // a fired one-shot timer is forgotten
			w.handle = nil
		}
		c.fire(w)
		c.mu.Unlock()
	}
}

// fire runs one due waiter; c.mu is held.
func (c *ShellClock) fire(w *waiter) {
	if w.fn != nil && w.inline {
		w.fn()
		return
	}
	if w.fn != nil {
		go w.fn()
		return
	}
	select {
	case w.ch <- w.at:
	default: // a tick nobody read yet: dropped, as with time.Ticker
	}
	if w.period > 0 {
		w.at = w.at.Add(w.period)
		c.insert(w)
	}
}

// insert adds w in (at, seq) order; c.mu is held.
func (c *ShellClock) insert(w *waiter) {
	c.seq++
	w.seq = c.seq
	i, _ := slices.BinarySearchFunc(c.waiters, w, func(a, b *waiter) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return int(a.seq) - int(b.seq)
	})
	c.waiters = slices.Insert(c.waiters, i, w)
}

func (c *ShellClock) add(d time.Duration, w *waiter) *waiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	w.at = c.now.Add(max(d, 0))
	c.insert(w)
	return w
}

func (c *ShellClock) remove(w *waiter) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.Index(c.waiters, w)
	if i < 0 {
		return false
	}
	c.waiters = slices.Delete(c.waiters, i, i+1)
	return true
}

// Waiters returns the number of pending timers, tickers and sleepers, so a
// driver can wait until a goroutine has blocked before advancing.
func (c *ShellClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// Next returns the earliest pending deadline.
func (c *ShellClock) Next() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return time.Time{}, false
	}
	return c.waiters[0].at, true
}

// After returns a channel that receives the time once d has elapsed.
func (c *ShellClock) After(d time.Duration) <-chan time.Time {
	return c.add(d, &waiter{ch: make(chan time.Time, 1)}).ch
}

// Sleep blocks until the clock has advanced by d.
func (c *ShellClock) Sleep(d time.Duration) { <-c.After(d) }

// Tick returns the channel of a ticker that is never stopped.
func (c *ShellClock) Tick(d time.Duration) <-chan time.Time { return c.Ticker(d).C }

func (c *ShellClock) bind(handle any, w *waiter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handles[handle] = w
	w.handle = handle
}

func (c *ShellClock) lookup(handle any) (*waiter, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.handles[handle]
	return w, ok
}

// Timer returns a timer firing once after d (stop it with StopTimer).
func (c *ShellClock) Timer(d time.Duration) *clock.Timer {
	w := c.add(d, &waiter{ch: make(chan time.Time, 1)})
	t := &clock.Timer{C: w.ch}
	c.bind(t, w)
	return t
}

// AfterFunc calls f in its own goroutine once d has elapsed.
func (c *ShellClock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	w := c.add(d, &waiter{fn: f})
	t := &clock.Timer{}
	c.bind(t, w)
	return t
}

// Ticker returns a ticker firing every d (stop it with StopTicker).
func (c *ShellClock) Ticker(d time.Duration) *clock.Ticker {
	assert.That(d > 0, "non-positive ticker period")
	w := c.add(d, &waiter{ch: make(chan time.Time, 1), period: d})
	t := &clock.Ticker{C: w.ch}
	c.bind(t, w)
	return t
}

// StopTimer stops a timer from Timer or AfterFunc; it reports whether the
// timer was still pending. The clock forgets the timer.
func (c *ShellClock) StopTimer(t *clock.Timer) bool {
	return c.forget(t)
}

// ResetTimer re-arms a pending timer to fire d from now and reports true.
// A timer that already fired or was stopped is forgotten by the clock and
// cannot be re-armed: ResetTimer panics; create a new timer instead.
func (c *ShellClock) ResetTimer(t *clock.Timer, d time.Duration) bool {
	w, ok := c.lookup(t)
	assert.That(ok, "ResetTimer of a timer that fired, was stopped or is not this clock's (create a new one)")
	pending := c.remove(w)
	c.add(d, w)
	return pending
}

// StopTicker stops a ticker from Ticker. The clock forgets the ticker.
func (c *ShellClock) StopTicker(t *clock.Ticker) { c.forget(t) }

// forget removes the waiter bound to handle and the binding; it reports
// whether the waiter was still pending.
func (c *ShellClock) forget(handle any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.handles[handle]
	if !ok {
		return false
	}
	delete(c.handles, handle)
	w.handle = nil
	i := slices.Index(c.waiters, w)
	if i < 0 {
		return false
	}
	c.waiters = slices.Delete(c.waiters, i, i+1)
	return true
}

// WithTimeout is WithDeadline(parent, Now()+d).
func (c *ShellClock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return c.WithDeadline(parent, c.Now().Add(d))
}

// WithDeadline returns a context that is done when the virtual clock reaches
// d (Err is context.DeadlineExceeded) or when parent is done or cancel is
// called. As with context.WithDeadline, a deadline not after Now gives a
// context that is already done with context.DeadlineExceeded.
func (c *ShellClock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	if pd, ok := parent.Deadline(); ok && !pd.After(d) {
		return context.WithCancel(parent)
	}
	inner, cancel := context.WithCancel(parent)
	ctx := &deadlineContext{Context: inner, deadline: d}
	expire := func() {
		ctx.mu.Lock()
		if ctx.err == nil && inner.Err() == nil {
			ctx.err = context.DeadlineExceeded
		}
		ctx.mu.Unlock()
		cancel()
	}
	w := &waiter{at: d, inline: true, fn: expire}
	c.mu.Lock()
	past := !d.After(c.now)
	if !past {
		c.insert(w)
	}
	c.mu.Unlock()
	if past {
		expire()
		return ctx, cancel
	}
	return ctx, func() { c.remove(w); cancel() }
}

type deadlineContext struct {
	context.Context
	deadline time.Time
	mu       sync.Mutex
	err      error
}

func (x *deadlineContext) Deadline() (time.Time, bool) { return x.deadline, true }

func (x *deadlineContext) Err() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return x.err
	}
	return x.Context.Err()
}

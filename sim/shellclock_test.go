package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// waitForWaiters yields until n goroutines/timers are blocked on c.
func waitForWaiters(c *ShellClock, n int) {
	for c.Waiters() < n {
		runtime.Gosched()
	}
}

// handleCount returns how many timers and tickers c still tracks.
func (c *ShellClock) handleCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.handles)
}

func TestShellClockSleepReleasedByAdvance(t *testing.T) {
	c := NewShellClock(Epoch)
	done := make(chan time.Time)
	go func() {
		c.Sleep(5 * time.Second)
		done <- c.Now()
	}()
	waitForWaiters(c, 1)
	c.Add(4 * time.Second)
	select {
	case <-done:
		t.Fatal("Sleep returned before its deadline")
	default:
	}
	c.Add(time.Second)
	if got := <-done; !got.Equal(Epoch.Add(5 * time.Second)) {
		t.Fatalf("woke at %s", got)
	}
}

func TestShellClockOrderAndTimers(t *testing.T) {
	c := NewShellClock(Epoch)
	a := c.After(2 * time.Second)
	tm := c.Timer(time.Second)
	stopped := c.Timer(time.Second)
	if !c.StopTimer(stopped) || c.StopTimer(stopped) {
		t.Fatal("StopTimer should report pending once")
	}
	tk := c.Ticker(700 * time.Millisecond)
	later := c.Timer(time.Hour)
	c.Add(3 * time.Second)
	if got := <-tm.C; !got.Equal(Epoch.Add(time.Second)) {
		t.Fatalf("timer fired at %s", got)
	}
	if got := <-a; !got.Equal(Epoch.Add(2 * time.Second)) {
		t.Fatalf("After fired at %s", got)
	}
	if got := <-tk.C; !got.Equal(Epoch.Add(700 * time.Millisecond)) {
		t.Fatalf("first tick at %s (later ticks dropped while unread)", got)
	}
	select {
	case <-stopped.C:
		t.Fatal("stopped timer fired")
	default:
	}
	c.StopTicker(tk)
	if !c.ResetTimer(later, time.Second) {
		t.Fatal("ResetTimer of a pending timer should report pending")
	}
	c.Add(time.Second)
	if got := <-later.C; !got.Equal(Epoch.Add(4 * time.Second)) {
		t.Fatalf("reset timer fired at %s", got)
	}
	if c.Waiters() != 0 {
		t.Fatalf("%d waiters left", c.Waiters())
	}
}

func TestShellClockAfterFuncAndDeadline(t *testing.T) {
	c := NewShellClock(Epoch)
	ran := make(chan time.Time, 1)
	c.AfterFunc(time.Second, func() { ran <- c.Now() })
	ctx, cancel := c.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if d, ok := ctx.Deadline(); !ok || !d.Equal(Epoch.Add(2*time.Second)) {
		t.Fatalf("deadline %s %v", d, ok)
	}
	c.Add(time.Second)
	<-ran
	if ctx.Err() != nil {
		t.Fatal("context done early")
	}
	c.Add(time.Second)
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err = %v", ctx.Err())
	}
	ctx2, cancel2 := c.WithTimeout(context.Background(), time.Hour)
	cancel2()
	<-ctx2.Done()
	if !errors.Is(ctx2.Err(), context.Canceled) || c.Waiters() != 0 {
		t.Fatalf("cancelled context: %v, %d waiters", ctx2.Err(), c.Waiters())
	}
}

func TestShellClockPastDeadlineIsDoneAtOnce(t *testing.T) {
	c := NewShellClock(Epoch.Add(time.Hour))
	for name, mk := range map[string]func() (context.Context, context.CancelFunc){
		"past deadline": func() (context.Context, context.CancelFunc) {
			return c.WithDeadline(context.Background(), Epoch)
		},
		"deadline now": func() (context.Context, context.CancelFunc) {
			return c.WithDeadline(context.Background(), c.Now())
		},
		"zero timeout": func() (context.Context, context.CancelFunc) {
			return c.WithTimeout(context.Background(), 0)
		},
		"negative timeout": func() (context.Context, context.CancelFunc) {
			return c.WithTimeout(context.Background(), -time.Second)
		},
	} {
		ctx, cancel := mk()
		select {
		case <-ctx.Done():
		default:
			t.Fatalf("%s: context not done before the clock moves", name)
		}
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("%s: Err = %v", name, ctx.Err())
		}
		cancel()
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) || c.Waiters() != 0 {
			t.Fatalf("%s: after cancel Err = %v, %d waiters", name, ctx.Err(), c.Waiters())
		}
	}
}

func TestShellClockForgetsFiredAndStoppedTimers(t *testing.T) {
	c := NewShellClock(Epoch)
	ran := make(chan struct{}, 100)
	for range 100 {
		c.Timer(time.Second)
		c.AfterFunc(time.Second, func() { ran <- struct{}{} })
	}
	for range 50 {
		c.StopTimer(c.Timer(time.Minute))
		c.StopTicker(c.Ticker(time.Minute))
	}
	tk := c.Ticker(time.Second)
	pending := c.Timer(time.Hour)
	c.Add(2 * time.Second)
	for range 100 {
		<-ran
	}
	if n := c.handleCount(); n != 2 {
		t.Fatalf("clock still tracks %d timers and tickers, want 2 (the ticker and the pending timer)", n)
	}
	if !c.ResetTimer(pending, time.Second) || !c.StopTimer(pending) || c.StopTimer(pending) {
		t.Fatal("a pending timer must reset once and then be gone when stopped")
	}
	c.StopTicker(tk)
	if n := c.handleCount(); n != 0 || c.Waiters() != 0 {
		t.Fatalf("%d handles and %d waiters left", n, c.Waiters())
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "create a new one") {
			t.Fatalf("ResetTimer of a stopped timer: recovered %v", r)
		}
	}()
	c.ResetTimer(pending, time.Second)
}

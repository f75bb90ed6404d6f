package sim

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// waitForWaiters yields until n goroutines/timers are blocked on c.
func waitForWaiters(c *ShellClock, n int) {
	for c.Waiters() < n {
		runtime.Gosched()
	}
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
	c.ResetTimer(tm, time.Second)
	c.Add(time.Second)
	if got := <-tm.C; !got.Equal(Epoch.Add(4 * time.Second)) {
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

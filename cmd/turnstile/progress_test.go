package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func steppingClock(step time.Duration) func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time { t = t.Add(step); return t }
}

func TestProgressBarOnATerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true, 4, steppingClock(time.Second))
	p.add(false)
	p.add(true)
	if !strings.HasPrefix(b.String(), "\r\033[K[=======                       ] 1/4 seeds, 0 failing") {
		t.Fatalf("bar %q", b.String())
	}
	p.clear()
	if !strings.HasSuffix(b.String(), "\r\033[K") {
		t.Fatalf("clear %q", b.String())
	}
	p.add(false)
	p.add(false)
	p.finish()
	if !strings.HasSuffix(b.String(), "[==============================] 4/4 seeds, 1 failing, 8s, 0.5 seeds/s, 0s left\n") ||
		strings.Count(b.String(), "\n") != 1 {
		t.Fatalf("final bar %q", b.String())
	}
}

func TestProgressRedrawIsRateLimited(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true, 100, steppingClock(10*time.Millisecond))
	for range 50 {
		p.add(false)
	}
	if n := strings.Count(b.String(), "\r"); n < 2 || n > 10 {
		t.Fatalf("%d redraws for 50 seeds at 10ms each", n)
	}
}

func TestProgressPlainLines(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, false, 20, steppingClock(time.Second))
	for range 20 {
		p.add(false)
	}
	p.finish()
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 10 ||
		!strings.HasPrefix(lines[9], "progress: 20/20 seeds, 0 failing, ") || strings.Contains(b.String(), "\r") {
		t.Fatalf("plain lines:\n%s", b.String())
	}
	var one bytes.Buffer
	q := newProgress(&one, true, 1, steppingClock(time.Second))
	q.add(true)
	q.finish()
	if one.Len() != 0 {
		t.Fatalf("a single seed shows no progress: %q", one.String())
	}
}

func TestProgressShowsRateAndTimeLeft(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, false, 10, steppingClock(time.Second))
	p.add(false) // status reads the clock at 2s: 1 seed in 2s, 9 left at 0.5/s
	if got, want := p.status(), "1/10 seeds, 0 failing, 2s, 0.5 seeds/s, 18s left"; got != want {
		t.Fatalf("status %q, want %q", got, want)
	}
}

func TestProgressUnderATimeBudget(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true, 1<<40, steppingClock(time.Second))
	p.budget = 10 * time.Second
	p.add(false)
	p.add(false)
	// the bar is drawn at 3s of 10s (9 of 30), the status read at 4s
	if !strings.Contains(b.String(), "[=========                     ] 2 seeds, 0 failing, 4s, 0.5 seeds/s, 6s left") {
		t.Fatalf("a budgeted bar measures time spent and shows the time left: %q", b.String())
	}
}

package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressRedraw is how often the terminal bar is redrawn at most.
const progressRedraw = 100 * time.Millisecond

// progressBarWidth is the width of the terminal bar in characters.
const progressBarWidth = 30

// progress reports a campaign's progress on stderr: a bar redrawn in place
// on a terminal, plain lines at every tenth of the campaign otherwise.
type progress struct {
	w       io.Writer
	tty     bool
	now     func() time.Time
	start   time.Time
	drawn   time.Time
	total   int
	done    int
	failing int
	shown   bool // a bar is on the screen
	// budget is the wall time of a time-budgeted campaign: the bar then
	// measures time spent, and status shows the time left.
	budget time.Duration
}

func newProgress(w io.Writer, tty bool, total int, now func() time.Time) *progress {
	t := now()
	return &progress{w: w, tty: tty, now: now, start: t, total: total}
}

func (p *progress) add(failed bool) {
	p.done++
	if failed {
		p.failing++
	}
	if p.total < 2 {
		return
	}
	if !p.tty {
		step := max(1, p.total/10)
		if p.done%step == 0 || p.done == p.total {
			fmt.Fprintf(p.w, "progress: %s\n", p.status())
		}
		return
	}
	if t := p.now(); t.Sub(p.drawn) >= progressRedraw || p.done == p.total {
		p.drawn = t
		filled := progressBarWidth * p.done / p.total
		if p.budget > 0 {
			filled = min(progressBarWidth, int(int64(progressBarWidth)*int64(t.Sub(p.start))/int64(p.budget)))
		}
		bar := strings.Repeat("=", filled) + strings.Repeat(" ", progressBarWidth-filled)
		fmt.Fprintf(p.w, "\r\033[K[%s] %s", bar, p.status())
		p.shown = true
	}
}

// status is the progress line: seeds done, failing, time spent, the rate,
// and the time left (the estimate for the remaining seeds, or what is left
// of a time budget).
func (p *progress) status() string {
	spent := p.now().Sub(p.start)
	of := fmt.Sprintf("/%d", p.total)
	if p.budget > 0 {
		of = ""
	}
	s := fmt.Sprintf("%d%s seeds, %d failing, %s", p.done, of, p.failing, spent.Round(100*time.Millisecond))
	if spent <= 0 || p.done == 0 {
		return s
	}
	rate := float64(p.done) / spent.Seconds()
	var left time.Duration
	if p.budget > 0 {
		left = max(0, p.budget-spent)
	} else {
		left = time.Duration(float64(p.total-p.done) / rate * float64(time.Second))
	}
	return fmt.Sprintf("%s, %.1f seeds/s, %s left", s, rate, left.Round(time.Second))
}

// clear removes the bar so that other output starts on a clean line.
func (p *progress) clear() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// finish ends the bar's line.
func (p *progress) finish() {
	if p.tty && p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

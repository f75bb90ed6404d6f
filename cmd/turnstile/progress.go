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
		bar := strings.Repeat("=", filled) + strings.Repeat(" ", progressBarWidth-filled)
		fmt.Fprintf(p.w, "\r\033[K[%s] %s", bar, p.status())
		p.shown = true
	}
}

func (p *progress) status() string {
	return fmt.Sprintf("%d/%d seeds, %d failing, %s", p.done, p.total, p.failing,
		p.now().Sub(p.start).Round(100*time.Millisecond))
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

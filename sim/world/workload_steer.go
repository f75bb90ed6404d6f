package world

import (
	"fmt"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// resolve settles the steers of t from a read: accepted as soon as Core
// says so; once the turn is terminal, every other input is rejected
// (never written) or unknown (written or delivered without a receipt).
// It walks t's open steers (t.steers, in the order of wl.steers) and
// keeps there those still unrecorded; when they and the inputs are many,
// it finds a steer's input by an index of their IDs.
func (wl *workload) resolve(ret int64, t *wTurn, v *core.TurnView) {
	if len(t.steers) == 0 {
		return
	}
	var byID map[string]int // nil: each steer walks the inputs
	if len(t.steers)*len(v.Inputs) > 64 {
		byID = wl.inputIndex(v)
	}
	open := t.steers[:0]
	for _, s := range t.steers {
		wl.resolveSteer(ret, s, v, byID)
		if !s.recorded {
			open = append(open, s)
		}
	}
	clear(t.steers[len(open):])
	t.steers = open
}

// inputIndex maps the IDs of v's inputs to their index, in wl.inputByID
// (reused), or returns nil when two inputs share an ID (resolveSteer then
// walks them all).
func (wl *workload) inputIndex(v *core.TurnView) map[string]int {
	if wl.inputByID == nil {
		wl.inputByID = map[string]int{}
	}
	clear(wl.inputByID)
	for i, in := range v.Inputs {
		if _, dup := wl.inputByID[in.ID]; dup {
			return nil
		}
		wl.inputByID[in.ID] = i
	}
	return wl.inputByID
}

// resolveSteer settles s, a steer of the Turn v shows, if it has an
// input ID and v says what became of it. byID is inputIndex(v) or nil.
func (wl *workload) resolveSteer(ret int64, s *wSteer, v *core.TurnView, byID map[string]int) {
	if s.recorded || s.input == "" {
		return
	}
	if byID != nil { // input IDs are unique: at most the one input
		if i, ok := byID[s.input]; ok {
			wl.settle(ret, s, v, v.Inputs[i])
		}
		return
	}
	for _, in := range v.Inputs {
		if in.ID != s.input {
			continue
		}
		wl.settle(ret, s, v, in)
	}
}

// settle records s from in, the input of v with s's input ID: accepted
// as soon as Core says so, anything once the Turn is terminal.
func (wl *workload) settle(ret int64, s *wSteer, v *core.TurnView, in core.InputView) {
	switch out := inputOutcome(in); {
	case out == check.InputAccepted:
		wl.record(s, ret, out)
	case v.State.Terminal():
		wl.record(s, ret, out)
	}
}

// inputOutcome maps Core's input state onto a steer outcome.
func inputOutcome(in core.InputView) string {
	switch in.State {
	case core.InputAccepted:
		return check.InputAccepted
	case core.InputDelivering, core.InputWritten, core.InputUnknown:
		return check.InputUnknown
	case core.InputFailed:
		if in.ErrorCode == "outcome_unknown" {
			return check.InputUnknown
		}
	}
	return check.InputRejected
}

func (wl *workload) record(s *wSteer, ret int64, outcome string) {
	if s.recorded {
		return
	}
	s.recorded, s.ret, s.outcome = true, ret, outcome
	wl.u.led.SteerInput(s.call, ret, s.turn.sess.id, s.turn.id, s.input, outcome)
	wl.u.count("SteerInput")
}

// flush records every steer still unresolved as unknown (open).
func (wl *workload) flush(at int64) {
	for _, s := range wl.steers {
		if !s.recorded {
			if s.input == "" {
				s.input = fmt.Sprintf("unanswered-%d", s.call)
			}
			wl.record(s, at, check.InputUnknown)
		}
	}
}

// finished reports whether every turn was submitted, read terminal, and
// no call is outstanding.
func (wl *workload) finished() bool {
	if wl.issued < wl.total || len(wl.calls) > 0 || wl.successors > 0 || wl.preparationsFollowed() > 0 {
		return false
	}
	for _, t := range wl.turns {
		if !t.terminal {
			return false
		}
	}
	return true
}

// preparationsFollowed is how many Environment preparations the client
// still waits for (workload_environment.go).
func (wl *workload) preparationsFollowed() int {
	if wl.env == nil {
		return 0
	}
	return wl.env.following
}

// pendingPrefix opens the liveness reason of an unfinished workload.
const pendingPrefix = "workload not finished: "

// pending is what the workload still waits for.
func (wl *workload) pending() string { return wl.pendingReason()[len(pendingPrefix):] }

// pendingReason is pendingPrefix followed by pending's text.
func (wl *workload) pendingReason() string { return wl.pendingText(wl.snapshot()) }

// pendingSnapshot is what the pending text depends on. Turns are only
// appended, a turn's ID and terminal state are set once each (with the
// issued and terminal counts of that moment in idSeq and terminalSeq),
// so the text of a snapshot can be built later, identical.
type pendingSnapshot struct{ issued, total, terminal, turns, calls, preparations int }

func (wl *workload) snapshot() pendingSnapshot {
	return pendingSnapshot{issued: wl.issued, total: wl.total, terminal: wl.terminalCount, turns: len(wl.turns), calls: len(wl.calls),
		preparations: wl.preparationsFollowed()}
}

// pendingText renders the pending reason of a snapshot.
func (wl *workload) pendingText(s pendingSnapshot) string {
	// The text is built in a reused buffer and allocated only when it
	// changed.
	b := append(wl.pendBuf[:0], pendingPrefix...)
	sep := func() {
		if len(b) > len(pendingPrefix) {
			b = append(b, "; "...)
		}
	}
	if s.issued < s.total {
		b = strconv.AppendInt(b, int64(s.issued), 10)
		b = append(b, " of "...)
		b = strconv.AppendInt(b, int64(s.total), 10)
		b = append(b, " turns submitted"...)
	}
	for _, t := range wl.turns[:s.turns] {
		named := t.id != "" && t.idSeq > 0 && t.idSeq <= s.issued
		ended := t.terminalSeq > 0 && t.terminalSeq <= s.terminal
		if named && !ended {
			sep()
			b = append(b, "turn "...)
			b = append(b, t.id...)
			b = append(b, " not read terminal"...)
		}
	}
	if s.calls > 0 {
		sep()
		b = strconv.AppendInt(b, int64(s.calls), 10)
		b = append(b, " calls outstanding"...)
	}
	if s.preparations > 0 {
		sep()
		b = strconv.AppendInt(b, int64(s.preparations), 10)
		b = append(b, " Environment preparations not terminal"...)
	}
	wl.pendBuf = b
	if string(b) != wl.pendLast {
		wl.pendLast = string(b)
	}
	return wl.pendLast
}

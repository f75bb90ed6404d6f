package check

import (
	"cmp"
	"slices"
)

// CheckSteerInputsPerRun is rule steer_inputs_per_run (Rules): Core
// refuses the 257th on its API before anything is sent. Judged from the
// workload's steer calls, never from Core's own count. Core decides API
// calls in the order they are made (an answer may come back later), so
// the calls are ordered by their sequence; a call unanswered, or whose
// answer was lost, may have been admitted.
const CheckSteerInputsPerRun = "steer_inputs_per_run"

// CheckSteerAfterCancel is rule steer_after_cancel (Rules; Core's
// ErrCancelPending), whatever became of the cancel.
const CheckSteerAfterCancel = "steer_after_cancel"

type steerOutcome uint8

const (
	steerPending steerOutcome = iota // made, not answered
	steerAdmitted
	steerLost // its answer was lost: it may have been admitted
	steerRefused
)

type steerCall struct {
	seq     uint64
	outcome steerOutcome
}

// turnSteers are the steer calls of a Turn, in call order, and its first
// cancel Core answered without an error.
type turnSteers struct {
	calls     []steerCall
	cancelSeq uint64 // 0: none
}

func (l *Ledger) turnSteersOf(turn string) *turnSteers {
	return entry(made(&l.steerCalls), turn)
}

// SteerCalled records the workload making steer call seq for turn (seq
// orders every API call the workload makes).
func (l *Ledger) SteerCalled(seq uint64, turn string) {
	ts := l.turnSteersOf(turn)
	i, _ := slices.BinarySearchFunc(ts.calls, seq, func(c steerCall, s uint64) int { return cmp.Compare(c.seq, s) })
	ts.calls = slices.Insert(ts.calls, i, steerCall{seq: seq})
}

// answer sets the outcome of call seq and returns how many calls
// made before it are, or may be, admitted.
func (ts *turnSteers) answer(seq uint64, o steerOutcome) (before int, known bool) {
	for i := range ts.calls {
		c := &ts.calls[i]
		if c.seq == seq {
			c.outcome = o
			return before, true
		}
		if c.outcome != steerRefused {
			before++
		}
	}
	return before, false
}

// SteerAdmitted records Core admitting steer call seq of turn at at.
func (l *Ledger) SteerAdmitted(at int64, seq uint64, turn string) {
	l.advance(at)
	ts := l.turnSteersOf(turn)
	if _, ok := ts.answer(seq, steerAdmitted); !ok {
		return
	}
	admitted := 0
	for _, c := range ts.calls {
		if c.outcome == steerAdmitted {
			admitted++
		}
	}
	if admitted == DocumentedSteerInputsPerRun+1 {
		l.violate(at, CheckSteerInputsPerRun, "Core admitted %d steers of turn %s, past the %d inputs a Run takes",
			admitted, turn, DocumentedSteerInputsPerRun)
	}
	if ts.cancelSeq != 0 && ts.cancelSeq < seq {
		l.violate(at, CheckSteerAfterCancel, "Core admitted a steer of turn %s made after a cancel it answered", turn)
	}
}

// SteerLimitRefused records Core refusing steer call seq of turn for the
// input limit.
func (l *Ledger) SteerLimitRefused(at int64, seq uint64, turn string) {
	l.advance(at)
	before, ok := l.turnSteersOf(turn).answer(seq, steerRefused)
	if ok && before < DocumentedSteerInputsPerRun {
		l.violate(at, CheckSteerInputsPerRun, "Core refused a steer of turn %s for the input limit with at most %d admitted before it, fewer than %d",
			turn, before, DocumentedSteerInputsPerRun)
	}
}

// SteerRefused records Core refusing steer call seq of turn for another
// reason.
func (l *Ledger) SteerRefused(seq uint64, turn string) {
	l.turnSteersOf(turn).answer(seq, steerRefused)
}

// SteerLost records that the answer to steer call seq of turn was lost.
func (l *Ledger) SteerLost(seq uint64, turn string) { l.turnSteersOf(turn).answer(seq, steerLost) }

// CancelAnswered records Core answering cancel call seq of turn without
// an error: no steer made after it may be admitted.
func (l *Ledger) CancelAnswered(at int64, seq uint64, turn string) {
	l.advance(at)
	ts := l.turnSteersOf(turn)
	if ts.cancelSeq == 0 || seq < ts.cancelSeq {
		ts.cancelSeq = seq
	}
	for _, c := range ts.calls {
		if c.seq > seq && c.outcome == steerAdmitted {
			l.violate(at, CheckSteerAfterCancel, "Core admitted a steer of turn %s made after a cancel it answered", turn)
			return
		}
	}
}

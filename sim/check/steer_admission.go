package check

import (
	"cmp"
	"slices"
)

// Checks: steer_inputs_per_run, steer_after_cancel (Rules), judged from
// the workload's API calls, never from Core's own count. Core decides the
// calls in the order they are made (an answer may come back later), so
// they are ordered by their sequence; a call unanswered, or whose answer
// was lost, may have been admitted.
const (
	CheckSteerInputsPerRun = "steer_inputs_per_run"
	CheckSteerAfterCancel  = "steer_after_cancel"
)

// SteerAnswer is what became of a steer call, as the workload saw it.
type SteerAnswer uint8

const (
	SteerPending      SteerAnswer = iota // made, not answered
	SteerAdmitted                        // Core admitted the input
	SteerLost                            // its answer was lost: it may have been admitted
	SteerRefused                         // Core refused it for another reason than the limit
	SteerLimitRefused                    // Core refused it for the input limit (kept as SteerRefused)
)

type steerCall struct {
	seq     uint64
	outcome SteerAnswer
}

type turnSteers struct {
	calls     []steerCall // in call order
	cancelSeq uint64      // the first cancel Core answered without an error; 0: none
}

// SteerCalled records the workload making steer call seq for turn (seq
// orders every API call the workload makes).
func (l *Ledger) SteerCalled(seq uint64, turn string) {
	ts := entry(made(&l.steerCalls), turn)
	i, _ := slices.BinarySearchFunc(ts.calls, seq, func(c steerCall, s uint64) int { return cmp.Compare(c.seq, s) })
	ts.calls = slices.Insert(ts.calls, i, steerCall{seq: seq})
}

// answer sets the outcome of call seq and returns how many calls
// made before it are, or may be, admitted.
func (ts *turnSteers) answer(seq uint64, o SteerAnswer) (before int, known bool) {
	for i := range ts.calls {
		c := &ts.calls[i]
		if c.seq == seq {
			c.outcome = o
			return before, true
		}
		if c.outcome != SteerRefused {
			before++
		}
	}
	return before, false
}

// SteerCallAnswered records what became of steer call seq of turn; at is
// when Core's answer reached the workload (an admission or a refusal for
// the limit is judged then).
func (l *Ledger) SteerCallAnswered(at int64, seq uint64, turn string, a SteerAnswer) {
	ts := entry(made(&l.steerCalls), turn)
	if a == SteerLost || a == SteerRefused {
		ts.answer(seq, a)
		return
	}
	l.advance(at)
	if a == SteerLimitRefused {
		if before, ok := ts.answer(seq, SteerRefused); ok && before < DocumentedSteerInputsPerRun {
			l.violate(at, CheckSteerInputsPerRun, "Core refused a steer of turn %s for the input limit with at most %d admitted before it, fewer than %d",
				turn, before, DocumentedSteerInputsPerRun)
		}
		return
	}
	if _, ok := ts.answer(seq, SteerAdmitted); !ok {
		return
	}
	admitted := 0
	for _, c := range ts.calls {
		if c.outcome == SteerAdmitted {
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

// CancelAnswered records Core answering cancel call seq of turn without
// an error: no steer made after it may be admitted.
func (l *Ledger) CancelAnswered(at int64, seq uint64, turn string) {
	l.advance(at)
	ts := entry(made(&l.steerCalls), turn)
	if ts.cancelSeq == 0 || seq < ts.cancelSeq {
		ts.cancelSeq = seq
	}
	if slices.ContainsFunc(ts.calls, func(c steerCall) bool { return c.seq > seq && c.outcome == SteerAdmitted }) {
		l.violate(at, CheckSteerAfterCancel, "Core admitted a steer of turn %s made after a cancel it answered", turn)
	}
}

package check

import (
	"cmp"
	"slices"
)

// TurnRead is one read of a turn's state through Core's public API,
// between its call and return instants.
type TurnRead struct {
	Call, Return         int64
	Session, Turn, State string
}

// Steer is one steer call through Core's public API. An InputUnknown
// outcome is an open operation: Return is ignored and the operation stays
// pending until the end of the history.
type Steer struct {
	Call, Return                  int64
	Session, Turn, Input, Outcome string
}

type apiState struct {
	reads  []TurnRead
	steers []Steer
}

// ReadTurn records a workload read of a turn's public state.
func (l *Ledger) ReadTurn(call, ret int64, session, turn, state string) {
	l.api.reads = append(l.api.reads, TurnRead{Call: call, Return: ret, Session: session, Turn: turn, State: state})
}

// SteerInput records a workload steer call and its outcome (InputAccepted,
// InputUnknown or InputRejected).
func (l *Ledger) SteerInput(call, ret int64, session, turn, input, outcome string) {
	l.writtenSteerReturned(ret, turn, input, outcome)
	l.api.steers = append(l.api.steers, Steer{Call: call, Return: ret, Session: session, Turn: turn, Input: input, Outcome: outcome})
	l.markSteerAfterUnknown(call, turn)
}

// appliedForTurn merges the native applies of every run Core started for
// turn, in native order (time, then run start order).
func (l *Ledger) appliedForTurn(turn string) []appliedInput {
	t := l.core.turns[turn]
	if t == nil {
		return nil
	}
	var out []appliedInput
	for _, run := range t.runs {
		out = append(out, l.harness.applied[run]...)
	}
	slices.SortStableFunc(out, func(a, b appliedInput) int { return cmp.Compare(a.at, b.at) })
	return out
}

// checkSteersAgainstTruth judges, at the end, every steer call that
// returned accepted against the native applies.
func (l *Ledger) checkSteersAgainstTruth(at int64) {
	for _, s := range l.api.steers {
		if s.Outcome != InputAccepted {
			continue
		}
		applied := l.appliedForTurn(s.Turn)
		switch i := slices.IndexFunc(applied, func(a appliedInput) bool { return a.input == s.Input }); {
		case i < 0:
			l.violate(at, CheckAcceptedWithoutTruth, "steer of input %s on turn %s returned accepted at %s but the Harness never applied it",
				s.Input, s.Turn, vtime(s.Return))
		case applied[i].at > s.Return:
			l.violate(at, CheckAcceptedWithoutTruth, "steer of input %s on turn %s returned accepted at %s before the Harness applied it at %s",
				s.Input, s.Turn, vtime(s.Return), vtime(applied[i].at))
		}
	}
}

// CheckValidRequestRefused is rule valid_request_refused (rules.go).
const CheckValidRequestRefused = "valid_request_refused"

// SessionRefused records Core refusing to create a Session whose
// configuration the workload drew within the seeds' rules.
func (l *Ledger) SessionRefused(at int64, err string) {
	l.violate(at, CheckValidRequestRefused, "Core refused a valid session configuration: %s", err)
}

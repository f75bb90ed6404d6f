package check

import (
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim/linearize"
)

// History builds the operations of linearize.Model from the ledger:
//
//   - one partition "turn <session>/<turn>" per read turn: its reads, plus a
//     truth operation per native settlement of the turn's runs, open from
//     the settlement to the horizon (or, if no run became a native turn, a
//     "none" truth open over the whole history);
//   - one partition "inputs <session>/<turn>" per steered turn: its steers
//     (unknown outcomes open until the horizon) and an end operation at the
//     horizon that requires every applied, steered input to be claimed;
//   - one partition "file <env>/<path>" per workspace file
//     (workspace_register.go).
//
// The horizon is one nanosecond after the latest recorded instant.
// Partitions are emitted sorted by key; within a partition operations keep
// record order. ClientId is a visualization lane: the lowest lane free at
// the operation's call (linearize.Partitions).
func (l *Ledger) History() []porcupine.Operation {
	horizon := l.horizon()
	return slices.Concat(l.turnOps(horizon), l.inputOps(horizon), l.fileOps(horizon))
}

// LinearizeViolation turns an Illegal result of linearize.Check on
// History into a violation at instant at; ok is false for Ok and Unknown.
// Callers report Unknown on its own.
func LinearizeViolation(r linearize.Result, at int64) (Violation, bool) {
	if r.Result != porcupine.Illegal {
		return Violation{}, false
	}
	return Violation{Check: CheckLinearizability, At: at,
		Message: "no linearization for " + strings.Join(r.Illegal, ", ")}, true
}

func (l *Ledger) horizon() int64 {
	var h int64
	for _, r := range l.api.reads {
		h = max(h, r.Call, r.Return)
	}
	for _, s := range l.api.steers {
		h = max(h, s.Call, s.Return)
	}
	for _, run := range sortedKeys(l.harness.turns) {
		h = max(h, l.harness.turns[run].settledAt)
	}
	return h + 1
}

// partKey names a partition; the session defaults to the one the turn was
// submitted in.
func (l *Ledger) partKey(family, session, turn string) string {
	if t := l.core.turns[turn]; session == "" && t != nil {
		session = t.session
	}
	return family + " " + session + "/" + turn
}

func (l *Ledger) turnOps(horizon int64) []porcupine.Operation {
	parts := linearize.Partitions{}
	turnOf := map[string]string{}
	for _, r := range l.api.reads {
		key := l.partKey("turn", r.Session, r.Turn)
		turnOf[key] = r.Turn
		parts.Add(linearize.Input{Op: linearize.OpRead, Part: key, Turn: r.Turn}, r.Call, r.Return, r.State)
	}
	for _, key := range sortedKeys(turnOf) {
		l.truthOps(parts, key, turnOf[key], horizon)
	}
	return parts.Ops()
}

// truthOps adds to the partition key of turn its native settlements.
func (l *Ledger) truthOps(parts linearize.Partitions, key, turn string, horizon int64) {
	native := false
	if t := l.core.turns[turn]; t != nil {
		for _, run := range t.runs {
			nt := l.harness.turns[run]
			if nt == nil {
				continue
			}
			native = true
			if nt.settled != "" {
				parts.Add(linearize.Input{Op: linearize.OpTruth, Part: key, Turn: turn, Truth: nt.settled}, nt.settledAt, horizon, nil)
			}
		}
	}
	if !native {
		parts.Add(linearize.Input{Op: linearize.OpTruth, Part: key, Turn: turn, Truth: linearize.NativeNone}, 0, horizon, nil)
	}
}

func (l *Ledger) inputOps(horizon int64) []porcupine.Operation {
	byPart := map[string][]Steer{}
	for _, s := range l.api.steers {
		key := l.partKey("inputs", s.Session, s.Turn)
		byPart[key] = append(byPart[key], s)
	}
	parts := linearize.Partitions{}
	for key, steers := range byPart { //tidy:sorted each partition on its own, emitted sorted by parts.Ops
		turn := steers[0].Turn
		log := l.steeredLog(turn, steers)
		for _, s := range steers {
			ret := s.Return
			if s.Outcome == InputUnknown {
				ret = horizon
			}
			parts.Add(linearize.Input{Op: linearize.OpSteer, Part: key, Turn: turn, Input: s.Input, Log: log}, s.Call, ret, s.Outcome)
		}
		parts.Add(linearize.Input{Op: linearize.OpEnd, Part: key, Turn: turn, Log: log}, horizon, horizon, nil)
	}
	return parts.Ops()
}

// steeredLog is the turn's native apply order restricted to inputs some
// steer named (initial inputs travel with execution_start, not steers).
func (l *Ledger) steeredLog(turn string, steers []Steer) []string {
	var log []string
	for _, a := range l.appliedForTurn(turn) {
		if slices.ContainsFunc(steers, func(s Steer) bool { return s.Input == a.input }) {
			log = append(log, a.input)
		}
	}
	return log
}

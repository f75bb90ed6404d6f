package check

import (
	"slices"

	"github.com/turnstile-sim/turnstile/sim/linearize"
)

// Core's records. Checks: run_started_twice, input_delivered_twice,
// accepted_without_ground_truth, fabricated_terminal,
// cancel_receipt_overridden, durable_facts, usage_added (Rules).

// TurnFacts is the durable state of one turn as Core's store holds it.
// Run and Cursor describe the turn's current run: Cursor counts the inputs
// Core has durably counted as accepted for it.
type TurnFacts struct {
	Turn, State, Run string
	Cursor           int
}

type turnRec struct {
	session string
	state   string // highest durable state seen; "" before the first
	runs    []string
}

type runRec struct {
	turn, conn, handle string
	startedAt          int64
	cursor             int
	cancelApplied      bool
}

type coreState struct {
	turns     map[string]*turnRec
	runs      map[string]*runRec
	delivered map[string]int64 // run\x00input → first delivery
	onWire    map[string]bool  // "done"/"error" \x00 run → Core decoded it
	restarts  int
}

func pairKey(a, b string) string { return a + "\x00" + b }

func (c *coreState) turn(id string) *turnRec { return entry(made(&c.turns), id) }

// run is the record of run, first seen at at if Core never started it.
func (c *coreState) run(id string, at int64) *runRec {
	keepFirst(made(&c.runs), id, &runRec{startedAt: at})
	return c.runs[id]
}

// TurnSubmitted records that the workload created a turn in a session.
func (l *Ledger) TurnSubmitted(at int64, session, turn string) {
	l.core.turn(turn).session = session
}

// RunStartSent records Core sending execution_start for run on a
// connection with an admission handle.
func (l *Ledger) RunStartSent(at int64, turn, run, device, conn, handle string) {
	if prev := l.core.runs[run]; prev != nil {
		l.violate(at, CheckRunStartedTwice,
			"Core sent execution_start for run %s again on device %s conn %s handle %s (first at %s on conn %s handle %s)",
			run, device, conn, handle, vtime(prev.startedAt), prev.conn, prev.handle)
		return
	}
	made(&l.core.runs)[run] = &runRec{turn: turn, conn: conn, handle: handle, startedAt: at}
	t := l.core.turn(turn)
	t.runs = append(t.runs, run)
}

// InputDelivered records Core sending prompt_steer for an input of run.
func (l *Ledger) InputDelivered(at int64, run, input string) {
	k := pairKey(run, input)
	if first, ok := l.core.delivered[k]; ok {
		l.violate(at, CheckInputDeliveredTwice, "Core delivered input %s of run %s again (first at %s)", input, run, vtime(first))
		return
	}
	made(&l.core.delivered)[k] = at
}

// InputOutcome records the outcome Core durably assigned to an input.
func (l *Ledger) InputOutcome(at int64, run, input, outcome string) {
	l.writtenOutcome(at, run, input, outcome)
	if outcome == InputAccepted {
		l.judgeAcceptedReceipt(at, run, input, "recorded accepted")
	}
	if outcome == InputAccepted && !l.harness.isApplied(run, input) {
		l.violate(at, CheckAcceptedWithoutTruth, "Core counted input %s of run %s accepted but the Harness never applied it", input, run)
	}
	if outcome == InputUnknown {
		l.limitMarks.noteRunUnknown(run, at)
	}
}

// CursorAdvanced records Core moving run's input cursor past input to
// position cursor.
func (l *Ledger) CursorAdvanced(at int64, run, input string, cursor int) {
	l.judgeAcceptedReceipt(at, run, input, "moved its cursor past")
	if !l.harness.isApplied(run, input) {
		l.violate(at, CheckAcceptedWithoutTruth, "Core advanced the cursor of run %s past input %s that the Harness never applied", run, input)
	}
	r := l.core.run(run, at)
	if cursor < r.cursor {
		l.violate(at, CheckDurableFacts, "cursor of run %s moved back from %d to %d", run, r.cursor, cursor)
		return
	}
	r.cursor = cursor
}

// TurnState records a durable state change of a turn in Core's store,
// including the states Core reloads after a restart.
func (l *Ledger) TurnState(at int64, turn, state string) {
	t := l.core.turn(turn)
	switch {
	case linearize.TurnRank(state) < 0:
		l.violate(at, CheckDurableFacts, "turn %s has unknown state %q", turn, state)
	case IsTerminal(t.state) && state != t.state:
		l.violate(at, CheckDurableFacts, "terminal state of turn %s changed from %s to %s", turn, t.state, state)
	case linearize.TurnRank(state) < linearize.TurnRank(t.state):
		l.violate(at, CheckDurableFacts, "state of turn %s regressed from %s to %s", turn, t.state, state)
	default:
		for _, run := range t.runs {
			if r := l.core.runs[run]; r != nil && r.cancelApplied && IsTerminal(state) && state != TurnCancelled {
				l.violate(at, CheckCancelOverridden,
					"turn %s became %s after Core received an applied cancel receipt for run %s", turn, state, run)
			}
		}
		t.state = state
	}
}

// Terminal is a Run's terminal frame: done or an execution error.
type Terminal string

const (
	TerminalDone  Terminal = "done"
	TerminalError Terminal = "error"
)

// TerminalObserved records Core seeing done or an execution error for
// run, on the wire or in its store.
func (l *Ledger) TerminalObserved(at int64, kind Terminal, run string, via Observation) {
	k := pairKey(string(kind), run)
	switch {
	case !l.daemon.sent[k]:
		l.violate(at, CheckFabricatedTerminal, "Core has %s for run %s (%s) but no daemon sent one", kind, run, via)
	case via == ObservedPersisted && !l.core.onWire[k]:
		l.violate(at, CheckFabricatedTerminal, "Core persisted %s for run %s without receiving one", kind, run)
	}
	if via == ObservedOnWire {
		made(&l.core.onWire)[k] = true
	}
	if via == ObservedPersisted && kind == TerminalDone {
		l.subagentDone(at, run)
	}
}

// CancelAckObserved records Core receiving a cancel receipt for run.
func (l *Ledger) CancelAckObserved(at int64, run string, applied bool) {
	if !applied {
		return
	}
	if !l.daemon.sent[pairKey("cancel", run)] {
		l.violate(at, CheckFabricatedTerminal, "Core has an applied cancel receipt for run %s but no daemon sent one", run)
	}
	r := l.core.run(run, at)
	r.cancelApplied = true
	if t := l.core.turns[r.turn]; t != nil && IsTerminal(t.state) && t.state != TurnCancelled {
		l.violate(at, CheckCancelOverridden,
			"turn %s is %s although Core received an applied cancel receipt for run %s", r.turn, t.state, run)
	}
}

// UsagePersisted records the usage snapshot Core stored for run.
func (l *Ledger) UsagePersisted(at int64, run string, u UsageSnapshot) {
	made(&l.usage.stored)[run] = u
	sent := l.daemon.usageSent[run]
	if slices.Contains(sent, u) {
		return
	}
	why := "no daemon sent it"
	for i := range sent {
		for j := i + 1; j < len(sent); j++ {
			if sent[i].add(sent[j]) == u {
				why = "it is the sum of two sent snapshots"
			}
		}
	}
	l.violate(at, CheckUsageAdded, "Core stored usage %s for run %s but %s", u, run, why)
}

// CoreRestarted records a Core crash and restart; recovered is every turn's
// facts as reloaded from the store.
func (l *Ledger) CoreRestarted(at int64, recovered []TurnFacts) {
	l.subscribers = subscriberState{} // its subscriptions ended with the process, unjudged from here on
	l.core.restarts++
	l.NodeCrashed(at, CoreNode)
	l.transferTimingRestarted(at)
	defer l.restartCoreUp()                              // restart_outcome.go
	l.reconnect.coreStart, l.reconnect.devices = at, nil // a new Core knows no device
	byTurn := map[string]TurnFacts{}
	for _, f := range recovered {
		byTurn[f.Turn] = f
	}
	for _, id := range sortedKeys(l.core.turns) {
		if _, ok := byTurn[id]; !ok && l.core.turns[id].state != "" {
			l.violate(at, CheckDurableFacts, "turn %s (%s) is missing after Core restart %d", id, l.core.turns[id].state, l.core.restarts)
		}
	}
	for _, id := range sortedKeys(byTurn) {
		f := byTurn[id]
		l.TurnState(at, f.Turn, f.State)
		if r := l.core.runs[f.Run]; f.Run != "" && r != nil && f.Cursor < r.cursor {
			l.violate(at, CheckDurableFacts, "cursor of run %s is %d after Core restart, was %d", f.Run, f.Cursor, r.cursor)
		}
	}
}

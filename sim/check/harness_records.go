package check

// The Harness's ground truth. Checks: liveness, orphaned_resource (Rules),
// and the native halves of run_started_twice and input_delivered_twice.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

type executorRec struct {
	device    string
	createdAt int64
	closed    bool
	retired   bool // its Turn's settlement retired it (Reusable=false)
}

type nativeTurn struct {
	device    string
	createdAt int64
	settled   string // native outcome, "" while unsettled
	settledAt int64
}

type appliedInput struct {
	input string
	at    int64
}

type harnessState struct {
	executors map[string]*executorRec   // device\x00executor
	turns     map[string]*nativeTurn    // run
	applied   map[string][]appliedInput // run → its inputs in native order
	creating  map[string]string         // device\x00executor → device: native Prepare called, not answered
}

// appliedIndex is the position of input among run's applies, or -1.
func (h *harnessState) appliedIndex(run, input string) int {
	return slices.IndexFunc(h.applied[run], func(a appliedInput) bool { return a.input == input })
}

func (h *harnessState) isApplied(run, input string) bool { return h.appliedIndex(run, input) >= 0 }

func (h *harnessState) liveExecutors(device string) int {
	return countIf(h.executors, func(e *executorRec) bool { return e.device == device && !e.closed })
}

// ExecutorCreated records the Harness creating a native executor.
func (l *Ledger) ExecutorCreated(at int64, device, executor string) {
	l.advance(at) // an eviction judged at an earlier instant reads the idle stretches as they were then
	made(&l.harness.executors)[pairKey(device, executor)] = &executorRec{device: device, createdAt: at}
	delete(l.harness.creating, pairKey(device, executor))
	l.executorCreated(at, device, executor)
	l.checkLiveExecutors(at, device)
	l.checkTruthCapacity(at, device)
}

// ExecutorClosed records a successful native close. A failed close is not
// recorded: the executor stays owned.
func (l *Ledger) ExecutorClosed(at int64, device, executor string) {
	if e := l.harness.executors[pairKey(device, executor)]; e != nil {
		e.closed = true
	}
	l.executorClosed(device, executor)
}

// TurnCreated records the Harness creating the native turn of run.
func (l *Ledger) TurnCreated(at int64, device, run string) {
	l.hostileTurnCreated(at, device, run)
	if prev := l.harness.turns[run]; prev != nil {
		l.violate(at, CheckRunStartedTwice, "run %s started natively again on %s (first at %s on %s)",
			run, device, vtime(prev.createdAt), prev.device)
		return
	}
	made(&l.harness.turns)[run] = &nativeTurn{device: device, createdAt: at}
	l.bindTurnCreated(at, device, run)
	l.checkTruthCapacity(at, device)
}

// InputApplied records the Harness consuming a steered input, in native
// order.
func (l *Ledger) InputApplied(at int64, run, input string) {
	if i := l.harness.appliedIndex(run, input); i >= 0 {
		l.violate(at, CheckInputDeliveredTwice, "Harness applied input %s of run %s again (first at %s)", input, run, vtime(l.harness.applied[run][i].at))
		return
	}
	made(&l.harness.applied)[run] = append(l.harness.applied[run], appliedInput{input: input, at: at})
}

// TurnSettled records the native settlement of run's turn: NativeCompleted,
// NativeFailed or NativeCancelled.
func (l *Ledger) TurnSettled(at int64, run, outcome string) {
	keepFirst(made(&l.harness.turns), run, &nativeTurn{createdAt: at})
	if t := l.harness.turns[run]; t.settled == "" {
		t.settled, t.settledAt = outcome, at
	}
}

// Pending reports what liveness still waits for: turns not terminal in
// Core, native turns not settled and native executors not closed. The
// reason names each, sorted.
func (l *Ledger) Pending() (ok bool, reason string) {
	parts := slices.Concat(l.pendingTurns(), l.pendingResources(), l.pendingSuspensions())
	if len(parts) == 0 {
		return true, ""
	}
	return false, strings.Join(parts, "; ")
}

func (l *Ledger) pendingTurns() []string {
	var out []string
	for _, id := range sortedKeys(l.core.turns) {
		if t := l.core.turns[id]; !IsTerminal(t.state) {
			out = append(out, fmt.Sprintf("turn %s is %s", id, cmp.Or(t.state, "unrecorded")))
		}
	}
	return out
}

func (l *Ledger) pendingResources() []string {
	var out []string
	for _, run := range sortedKeys(l.harness.turns) {
		if t := l.harness.turns[run]; t.settled == "" {
			out = append(out, fmt.Sprintf("native turn of run %s on %s unsettled", run, t.device))
		}
	}
	for _, k := range sortedKeys(l.harness.executors) {
		if e := l.harness.executors[k]; !e.closed {
			out = append(out, fmt.Sprintf("executor %s on %s open", strings.SplitN(k, "\x00", 2)[1], e.device))
		}
	}
	return out
}

// Final runs the end-of-run checks (liveness, orphaned_resource, the
// steer calls of accepted_without_ground_truth) after heal, the liveness
// deadline and shutdown. It returns the new violations (Step 0);
// Violations keeps them too and AfterStep does not return them again.
func (l *Ledger) Final(at int64) []Violation {
	start := len(l.found)
	l.advance(at)
	for _, p := range l.pendingTurns() {
		l.violate(at, CheckLiveness, "%s at the deadline", p)
	}
	for _, p := range l.pendingResources() {
		l.violate(at, CheckOrphan, "%s after shutdown", p)
	}
	l.checkSteersAgainstTruth(at)
	out := append([]Violation(nil), l.found[start:]...)
	l.reported = append(l.reported, out...)
	l.found = l.found[:start]
	return out
}

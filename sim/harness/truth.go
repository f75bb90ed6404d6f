package harness

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
)

// Recorder receives ground truth at the instant it happens, in the shape
// of the sim/check ledger (times are virtual nanoseconds since sim.Epoch;
// outcome is check.NativeCompleted, NativeFailed or NativeCancelled).
// CloseRetried reports a close of an executor whose previous close failed.
type Recorder interface {
	ExecutorCreated(at int64, device, executor string)
	ExecutorClosed(at int64, device, executor string)
	TurnCreated(at int64, device, run string)
	InputApplied(at int64, run, input string)
	TurnSettled(at int64, run, outcome string)
	CloseRetried(at int64, device, executor string)
}

// RetireRecorder is an optional extension of Recorder: ExecutorRetired
// reports a settlement answered with Reusable=false, after which the
// executor may only be closed (and the daemon must see the close confirmed
// before it publishes the Turn's end).
type RetireRecorder interface {
	ExecutorRetired(at int64, device, run, executor string)
}

// CloseRecorder is an optional extension of Recorder: CloseRequested
// reports the Harness receiving a close request for an executor, before
// its outcome is known.
type CloseRecorder interface {
	CloseRequested(at int64, device, executor string)
}

// PrepareRecorder is an optional extension of Recorder:
// NativePrepareFailed reports a native Prepare that created no executor
// (it failed or the engine refused it). With the Prepare's call
// (InstallRecorder.NativePrepareCalled) and ExecutorCreated it tells
// which executors are being created at any instant.
type PrepareRecorder interface {
	NativePrepareFailed(at int64, device, executor string)
}

func (h *Harness) prepareFailed(now time.Time, op daemon.Prepare) {
	if r, ok := h.dev.Recorder.(PrepareRecorder); ok {
		r.NativePrepareFailed(at(now), string(h.dev.ID), op.Executor)
	}
}

func at(now time.Time) int64 { return int64(now.Sub(sim.Epoch)) }

// ExecutorTruth is what the native side knows about one executor.
type ExecutorTruth struct {
	ID            string
	Session       string
	CreatedAt     time.Time
	Closed        bool
	ClosedAt      time.Time
	ClosedByCrash bool // ended with the daemon process, not by a close
	Retired       bool // a settlement said Reusable=false: only Close may follow
}

// TurnTruth is what the native side knows about one Turn.
type TurnTruth struct {
	ID           daemon.TurnID
	Run          string
	Executor     string
	CreatedAt    time.Time
	Cancelled    bool      // a Cancel request took effect
	Failed       bool      // the start failed after input was submitted
	Settled      bool      // natively settled (ended and final)
	SettledAt    time.Time // instant of the native settlement
	Outcome      string    // check.Native* outcome of the settlement
	EndedByCrash bool      // settled because the daemon process died
	Reported     bool      // a settlement answer reached the daemon
	// DoneSuppressed: settled without a native terminal result (a
	// settle-before-done fault); the daemon's done must carry the outcome.
	DoneSuppressed bool
	// EventsAfterSettlement counts native events emitted after the
	// settlement (a late-events fault): Harness contract breaches.
	EventsAfterSettlement int
}

// InputKey names one durable input of a Turn.
type InputKey struct {
	Turn  daemon.TurnID
	Input string
}

// InputTruth is what the native side did with one durable input.
type InputTruth struct {
	Writes    int // DurableWrite calls received
	Written   bool
	WrittenAt time.Time
	Applied   bool
	AppliedAt time.Time
}

// Truth is the ground truth of one Harness (one daemon process's life):
// executors and Turns created, inputs really written and applied,
// resources closed or ended by a crash. Checkers read it; only the Harness
// writes it. Every list it returns is sorted.
type Truth struct {
	executors  map[string]*ExecutorTruth
	turns      map[daemon.TurnID]*TurnTruth
	inputs     map[InputKey]*InputTruth
	runs       map[string]int // Turns created per Run ID
	startCalls map[string]int // StartTurn calls per Run ID
	violations []string
	breaches   []string
}

func newTruth() *Truth {
	return &Truth{
		executors:  map[string]*ExecutorTruth{},
		turns:      map[daemon.TurnID]*TurnTruth{},
		inputs:     map[InputKey]*InputTruth{},
		runs:       map[string]int{},
		startCalls: map[string]int{},
	}
}

func (t *Truth) violate(format string, args ...any) {
	t.violations = append(t.violations, fmt.Sprintf(format, args...))
}

// Violations lists contract breaches the Harness saw from the daemon (a
// start on a retired or unknown executor or under a live Turn, a close
// under an unsettled Turn, a second write of one input, a second native
// Turn for one Run, a call for an unknown Turn or executor).
func (t *Truth) Violations() []string { return slices.Clone(t.violations) }

func (t *Truth) breach(format string, args ...any) {
	t.breaches = append(t.breaches, fmt.Sprintf(format, args...))
}

// Breaches lists breaches of the Harness's own contract, which only its
// faults cause: native events emitted after a Turn's settlement. They are
// not the daemon's violations: the daemon must drop such events.
func (t *Truth) Breaches() []string { return slices.Clone(t.breaches) }

// Executor returns the executor's truth, or nil.
func (t *Truth) Executor(id string) *ExecutorTruth { return t.executors[id] }

// Turn returns the Turn's truth, or nil.
func (t *Truth) Turn(id daemon.TurnID) *TurnTruth { return t.turns[id] }

// Input returns the input's truth, or nil.
func (t *Truth) Input(turn daemon.TurnID, input string) *InputTruth {
	return t.inputs[InputKey{turn, input}]
}

// TurnsForRun counts native Turns created for a Run ID.
func (t *Truth) TurnsForRun(run string) int { return t.runs[run] }

// StartCalls counts StartTurn calls answered for a Run ID.
func (t *Truth) StartCalls(run string) int { return t.startCalls[run] }

// OpenExecutors lists executors not closed.
func (t *Truth) OpenExecutors() []string {
	var out []string
	for id, e := range t.executors {
		if !e.Closed {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, compareIDs)
	return out
}

// UnsettledTurns lists Turns not natively settled.
func (t *Truth) UnsettledTurns() []string {
	var out []string
	for id, tr := range t.turns {
		if !tr.Settled {
			out = append(out, string(id))
		}
	}
	slices.SortFunc(out, compareIDs)
	return out
}

// Counts returns the number of executors and Turns ever created.
func (t *Truth) Counts() (executors, turns int) { return len(t.executors), len(t.turns) }

// String summarises the truth on one line.
func (t *Truth) String() string {
	ex, tu := t.Counts()
	return fmt.Sprintf("executors=%d open=[%s] turns=%d unsettled=[%s]", ex,
		strings.Join(t.OpenExecutors(), ","), tu, strings.Join(t.UnsettledTurns(), ","))
}

func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// The Harness records each native fact in its Truth and the device's
// Recorder at once.

func (h *Harness) executorCreated(now time.Time, op daemon.Prepare) *ExecutorTruth {
	if h.truth.executors[op.Executor] != nil {
		h.truth.violate("executor %s prepared twice", op.Executor)
	}
	e := &ExecutorTruth{ID: op.Executor, Session: op.Session, CreatedAt: now}
	h.truth.executors[op.Executor] = e
	if r := h.dev.Recorder; r != nil {
		r.ExecutorCreated(at(now), string(h.dev.ID), op.Executor)
	}
	return e
}

func (h *Harness) executorClosed(now time.Time, ex *hExec, crash bool) {
	ex.truth.Closed, ex.truth.ClosedAt, ex.truth.ClosedByCrash = true, now, crash
	if r := h.dev.Recorder; r != nil {
		r.ExecutorClosed(at(now), string(h.dev.ID), ex.id)
	}
}

func (h *Harness) turnCreated(now time.Time, op daemon.StartTurn) *TurnTruth {
	if h.truth.turns[op.Turn] != nil {
		h.truth.violate("turn %s started twice", op.Turn)
	}
	t := &TurnTruth{ID: op.Turn, Run: op.Run, Executor: op.Executor, CreatedAt: now}
	h.truth.turns[op.Turn] = t
	h.truth.runs[op.Run]++
	if n := h.truth.runs[op.Run]; n > 1 {
		h.truth.violate("run %s became a native turn %d times", op.Run, n)
	}
	if r := h.dev.Recorder; r != nil {
		r.TurnCreated(at(now), string(h.dev.ID), op.Run)
	}
	return t
}

func (h *Harness) turnSettled(now time.Time, t *hTurn, outcome string) {
	t.truth.Settled, t.truth.SettledAt, t.truth.Outcome = true, now, outcome
	if r := h.dev.Recorder; r != nil {
		r.TurnSettled(at(now), t.run, outcome)
	}
}

func (h *Harness) input(turn daemon.TurnID, id string) *InputTruth {
	k := InputKey{turn, id}
	in := h.truth.inputs[k]
	if in == nil {
		in = &InputTruth{}
		h.truth.inputs[k] = in
	}
	return in
}

func (h *Harness) inputWrite(op daemon.DurableWrite) {
	in := h.input(op.Turn, op.InputID)
	if in.Writes++; in.Writes > 1 {
		h.truth.violate("input %s of %s written %d times", op.InputID, op.Turn, in.Writes)
	}
}

func (h *Harness) inputWritten(now time.Time, t *hTurn, id string) {
	if in := h.input(t.id, id); !in.Written {
		in.Written, in.WrittenAt = true, now
	}
}

func (h *Harness) inputApplied(now time.Time, t *hTurn, id string) {
	h.inputWritten(now, t, id)
	in := h.input(t.id, id)
	in.Applied, in.AppliedAt = true, now
	if r := h.dev.Recorder; r != nil {
		r.InputApplied(at(now), t.run, id)
	}
}

// TurnsOfRun lists the native Turns created for run, by ID.
func (t *Truth) TurnsOfRun(run string) []*TurnTruth {
	var out []*TurnTruth
	for _, id := range slices.SortedFunc(maps.Keys(t.turns), func(a, b daemon.TurnID) int {
		return compareIDs(string(a), string(b))
	}) {
		if t.turns[id].Run == run {
			out = append(out, t.turns[id])
		}
	}
	return out
}

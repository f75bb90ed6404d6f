package harness

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
)

// ExecutorTruth is what the native side knows about one executor.
type ExecutorTruth struct {
	ID        string
	Session   string
	CreatedAt time.Time
	Closed    bool
	ClosedAt  time.Time
	Retired   bool // a settlement said Reusable=false: only Close may follow
}

// TurnTruth is what the native side knows about one Turn.
type TurnTruth struct {
	ID        daemon.TurnID
	Run       string
	Executor  string
	CreatedAt time.Time
	Cancelled bool      // a Cancel request took effect
	Failed    bool      // the start failed after input was submitted
	Ended     bool      // natively stopped (output closed or cancelled and quiet)
	Settled   bool      // a settlement was reported to the daemon
	SettledAt time.Time // instant of that report
}

// outcome is the native outcome in the check ledger's words.
func (t *TurnTruth) outcome() string {
	switch {
	case t.Cancelled:
		return "cancelled"
	case t.Failed:
		return "failed"
	}
	return "completed"
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

// Truth is the ground truth of the simulated Harness: executors and Turns
// created, inputs really written and applied, resources closed. Checkers
// read it; only the Harness writes it. Every list it returns is sorted.
type Truth struct {
	executors  map[string]*ExecutorTruth
	turns      map[daemon.TurnID]*TurnTruth
	inputs     map[InputKey]*InputTruth
	runs       map[string]int // Turns created per Run ID
	startCalls map[string]int // StartTurn calls per Run ID
	violations []string
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

// Violations lists contract breaches the Harness saw from the daemon
// (a start on a retired or closed executor, a close under a live Turn, a
// second write of one input, a second native Turn for one Run).
func (t *Truth) Violations() []string { return slices.Clone(t.violations) }

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

// OpenExecutors lists executors not confirmed closed.
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

// UnsettledTurns lists Turns whose settlement was never reported.
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

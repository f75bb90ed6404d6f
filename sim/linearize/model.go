package linearize

import (
	"fmt"
	"slices"
	"strings"
)

// The turn model keeps the highest rank read and the terminal state read:
// no read returns a lower rank, after a terminal read every read returns
// that terminal, and a terminal read needs agreeing truth already
// linearized (terminalAgrees). The input model counts the entries of the
// applied log claimed: accepted claims the next (or names one claimed, an
// idempotent retry); unknown claims the next if it is its input, is a
// no-op if its input is not ahead in the log, and otherwise must wait;
// rejected claims nothing; the end needs the whole log claimed.

// Public Turn states a read returns, in their order. The three terminal
// states share the top rank.
const (
	TurnQueued    = "queued"
	TurnPreparing = "preparing"
	TurnRunning   = "running"
	TurnCompleted = "completed"
	TurnFailed    = "failed"
	TurnCancelled = "cancelled"
)

// Native settlements of a turn (the Harness's ground truth), the Truth of
// a truth operation; NativeNone says no run of the turn ever became a
// native turn.
const (
	NativeCompleted = "completed"
	NativeFailed    = "failed"
	NativeCancelled = "cancelled"
	NativeNone      = "none"
)

// Outcomes of a steer call, the output of a steer operation.
const (
	InputAccepted = "accepted"
	InputUnknown  = "unknown"
	InputRejected = "rejected"
)

// rankTerminal is the rank of the terminal states.
const rankTerminal = 3

// TurnRank orders public turn states: queued 0, preparing 1, running 2,
// a terminal state 3; -1 for an unknown name.
func TurnRank(state string) int {
	switch state {
	case TurnQueued:
		return 0
	case TurnPreparing:
		return 1
	case TurnRunning:
		return 2
	case TurnCompleted, TurnFailed, TurnCancelled:
		return rankTerminal
	}
	return -1
}

// Op tells the combined model which sub-model an operation belongs to.
// Each partition holds operations of one family only.
type Op uint8

const (
	OpRead  Op = iota + 1 // turn family: a public read of the turn's state
	OpTruth               // turn family: the native settlement (ground truth)
	OpSteer               // input family: a steer call and its outcome
	OpEnd                 // input family: every applied input was claimed
	OpPut                 // file family: a write (or the seed) of a workspace file
	OpGet                 // file family: a read of a workspace file
)

// Native truth bits for the turn model, one per name of truthNames;
// truthNone means no run of the turn ever became a native turn.
const (
	truthCompleted uint8 = 1 << iota
	truthFailed
	truthCancelled
	truthNone
)

var truthNames = []string{NativeCompleted, NativeFailed, NativeCancelled, NativeNone}

func truthBit(outcome string) uint8 {
	if i := slices.Index(truthNames, outcome); i >= 0 {
		return 1 << i
	}
	return truthNone
}

// Input is an operation's input in the combined model. Its output is the
// state read (a string) for OpRead, the steer's outcome (a string) for
// OpSteer, the File read for OpGet, and nil otherwise.
type Input struct {
	Op   Op
	Part string // the partition's key
	Turn string // read, truth, steer, end
	// Input is the input a steer named.
	Input string
	// Log is the Harness's applied order for the steer's turn, filtered
	// to steered inputs, shared by the partition (steer, end).
	Log   []string
	Truth string // truth: a native settlement or NativeNone
	File  File   // put: the value written
}

// turnModel is the sequential state of a turn as Core's API shows it.
type turnModel struct {
	rank     int    // highest state rank read so far
	terminal string // terminal state read, if any
	truth    uint8  // native settlements known so far
}

// inputModel counts how many applied inputs have been claimed by steers.
type inputModel struct{ pos int }

// terminalAgrees says whether a public terminal state can be explained by
// the native settlements: completed needs a completed native turn. Cancelled
// agrees with any settlement: the terminal result of a cancelled turn comes
// from the cancel receipt, whose applied=true proves native settlement, not
// that the cancel won a race with natural completion. Failed is an
// observation outcome and agrees with anything. (A done that overrides an
// applied cancel receipt is caught by the cancel_receipt_overridden check.)
func terminalAgrees(state string, truth uint8) bool {
	if state == TurnCompleted {
		return truth&truthCompleted != 0
	}
	return true
}

func stepTurn(s turnModel, in Input, out any) (bool, any) {
	if in.Op == OpTruth {
		s.truth |= truthBit(in.Truth)
		return true, s
	}
	state, _ := out.(string)
	r := TurnRank(state)
	switch {
	case s.terminal != "":
		return state == s.terminal, s
	case r < s.rank || r == rankTerminal && !terminalAgrees(state, s.truth): // an unknown state ranks -1
		return false, s
	}
	s.rank = r
	if r == rankTerminal {
		s.terminal = state
	}
	return true, s
}

func stepInput(s inputModel, in Input, out any) (bool, any) {
	if in.Op == OpEnd {
		return s.pos == len(in.Log), s
	}
	outcome, _ := out.(string)
	next := s.pos < len(in.Log) && in.Log[s.pos] == in.Input
	claimed := slices.Index(in.Log[:s.pos], in.Input) >= 0
	switch {
	case outcome == InputRejected:
		return true, s
	case outcome != InputAccepted && outcome != InputUnknown:
		return false, s
	case next:
		return true, inputModel{pos: s.pos + 1}
	case outcome == InputAccepted:
		return claimed, s
	}
	// unknown: an applied input not yet reached must be claimed in its turn
	return claimed || slices.Index(in.Log[s.pos:], in.Input) < 0, s
}

// modelStep dispatches on the operation family; a partition starts from
// the nil state and takes the zero state of its family.
func modelStep(state, input, output any) (bool, any) {
	in := input.(Input)
	switch in.Op {
	case OpRead, OpTruth:
		s, _ := state.(turnModel)
		return stepTurn(s, in, output)
	case OpPut, OpGet:
		s, _ := state.(fileModel)
		return stepFile(s, in, output)
	default:
		s, _ := state.(inputModel)
		return stepInput(s, in, output)
	}
}

func describeOperation(input, output any) string {
	in := input.(Input)
	switch in.Op {
	case OpRead:
		return fmt.Sprintf("read %s -> %v", in.Turn, output)
	case OpTruth:
		return fmt.Sprintf("native settlement of %s: %s", in.Turn, in.Truth)
	case OpSteer:
		return fmt.Sprintf("steer %s on %s -> %v", in.Input, in.Turn, output)
	case OpPut:
		return "write " + describeFile(in.File)
	case OpGet:
		v, _ := output.(File)
		return "read -> " + describeFile(v)
	default:
		return fmt.Sprintf("end of %s: applied [%s]", in.Turn, strings.Join(in.Log, " "))
	}
}

func describeState(state any) string {
	switch s := state.(type) {
	case turnModel:
		return fmt.Sprintf("rank=%d terminal=%q native=%s", s.rank, s.terminal, describeTruth(s.truth))
	case inputModel:
		return fmt.Sprintf("claimed %d applied inputs", s.pos)
	case fileModel:
		if !s.known {
			return "unobserved"
		}
		return describeFile(s.val)
	}
	return "initial"
}

func describeTruth(t uint8) string {
	var parts []string
	for i, name := range truthNames {
		if t&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, "|")
}

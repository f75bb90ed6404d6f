package check

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

// opKind tells the combined porcupine model which sub-model an operation
// belongs to. Each partition holds operations of one family only.
type opKind uint8

const (
	opRead  opKind = iota + 1 // turn family: a public read of the turn's state
	opTruth                   // turn family: the native settlement (ground truth)
	opSteer                   // input family: a steer call and its outcome
	opEnd                     // input family: every applied input was claimed
	opPut                     // file family: a write (or the seed) of a workspace file
	opGet                     // file family: a read of a workspace file
)

// Native truth bits for the turn model, one per name of truthNames;
// truthNone means no run of the turn ever became a native turn.
const (
	truthCompleted uint8 = 1 << iota
	truthFailed
	truthCancelled
	truthNone
)

var truthNames = []string{NativeCompleted, NativeFailed, NativeCancelled, "none"}

func truthBit(outcome string) uint8 {
	if i := slices.Index(truthNames, outcome); i >= 0 {
		return 1 << i
	}
	return truthNone
}

// linInput is an operation's input. Log is the Harness's applied order for
// the steer's turn, filtered to steered inputs, shared by the partition.
type linInput struct {
	kind  opKind
	part  string
	turn  string
	input string   // steer
	log   []string // steer, end
	truth string   // truth: native outcome or "none"
	file  fileVal  // put: the value written
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

func stepTurn(s turnModel, in linInput, out any) (bool, any) {
	if in.kind == opTruth {
		s.truth |= truthBit(in.truth)
		return true, s
	}
	state, _ := out.(string)
	r := turnRank(state)
	switch {
	case s.terminal != "":
		return state == s.terminal, s
	case r < s.rank || r == 3 && !terminalAgrees(state, s.truth): // an unknown state ranks -1
		return false, s
	}
	s.rank = r
	if r == 3 {
		s.terminal = state
	}
	return true, s
}

func stepInput(s inputModel, in linInput, out any) (bool, any) {
	if in.kind == opEnd {
		return s.pos == len(in.log), s
	}
	outcome, _ := out.(string)
	next := s.pos < len(in.log) && in.log[s.pos] == in.input
	claimed := slices.Index(in.log[:s.pos], in.input) >= 0
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
	return claimed || slices.Index(in.log[s.pos:], in.input) < 0, s
}

// modelStep dispatches on the operation family; a partition starts from
// the nil state and takes the zero state of its family.
func modelStep(state, input, output any) (bool, any) {
	in := input.(linInput)
	switch in.kind {
	case opRead, opTruth:
		s, _ := state.(turnModel)
		return stepTurn(s, in, output)
	case opPut, opGet:
		s, _ := state.(fileModel)
		return stepFile(s, in, output)
	default:
		s, _ := state.(inputModel)
		return stepInput(s, in, output)
	}
}

func describeOperation(input, output any) string {
	in := input.(linInput)
	switch in.kind {
	case opRead:
		return fmt.Sprintf("read %s -> %v", in.turn, output)
	case opTruth:
		return fmt.Sprintf("native settlement of %s: %s", in.turn, in.truth)
	case opSteer:
		return fmt.Sprintf("steer %s on %s -> %v", in.input, in.turn, output)
	case opPut:
		return "write " + describeFile(in.file)
	case opGet:
		v, _ := output.(fileVal)
		return "read -> " + describeFile(v)
	default:
		return fmt.Sprintf("end of %s: applied [%s]", in.turn, strings.Join(in.log, " "))
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

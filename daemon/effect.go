package daemon

import (
	"fmt"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// TimerID names one machine timer. IDs are derived from the owning object
// ("heartbeat/g1", "expiry/h-3", "write/t-2/in-1", ...), so setting a timer
// that is already set replaces it.
type TimerID string

// CallID names one native call; minted from a counter ("c-1", "c-2", ...).
type CallID string

// TurnID names one native Turn the machine tracks ("t-1", ...). Native
// events of the Turn are tagged with it.
type TurnID string

// Effect is one output of Step. Effects of one Step must be executed in
// the order returned; the per-type contracts below say what else a shell
// may and may not do. The set is sealed.
type Effect interface {
	isEffect()
	// Describe renders the effect as one canonical line for traces.
	Describe() string
}

// Send writes Frame on connection Conn. Frames for one Conn must be written
// in the order they were emitted. A Send for a connection that is no longer
// up is dropped, never redirected to another connection. Budget bounds the
// write (zero: the transport's own limit); a write that cannot finish
// within it closes the transport, which the shell reports as ConnClosed.
// A completed Send proves only a local write, never receipt by Core.
type Send struct {
	Conn   ConnID
	Frame  wire.Frame
	Budget time.Duration
}

// CloseConn closes connection Conn. Frames emitted for Conn before it
// are written first. The shell still reports ConnClosed afterwards.
type CloseConn struct {
	Conn   ConnID
	Reason string
}

// SetTimer arms Timer to fire at At (replacing an earlier arming of the
// same ID). The shell feeds TimerFired{Timer} back through Step once its
// clock reaches At; a fire may be late, never early.
type SetTimer struct {
	Timer TimerID
	At    time.Time
}

// CancelTimer disarms Timer. A fire already queued may still be delivered;
// the machine ignores it.
type CancelTimer struct{ Timer TimerID }

// NativeCall asks the shell to run Op against the Harness. The shell runs
// it outside Step (concurrently with other calls) and reports exactly one
// NativeResult with the same Call, unless the process dies. Calls on one
// target are issued serially by the machine: at most one close per
// executor and one settlement wait per Turn are outstanding at a time.
type NativeCall struct {
	Call CallID
	Op   Op
}

// Report lists what the machine still owns after a shutdown request. It is
// emitted when shutdown starts and whenever the owned set changes; the
// last Report has Complete set once nothing is owned.
type Report struct {
	Owned    []Resource
	Complete bool
}

func (Send) isEffect()        {}
func (CloseConn) isEffect()   {}
func (SetTimer) isEffect()    {}
func (CancelTimer) isEffect() {}
func (NativeCall) isEffect()  {}
func (Report) isEffect()      {}

func (e Send) Describe() string {
	return fmt.Sprintf("send gen=%d %s", e.Conn, DescribeFrame(e.Frame))
}
func (e CloseConn) Describe() string {
	return fmt.Sprintf("close-transport gen=%d reason=%q", e.Conn, e.Reason)
}
func (e SetTimer) Describe() string {
	return fmt.Sprintf("set-timer %s at=%s", e.Timer, e.At.UTC().Format(time.RFC3339Nano))
}
func (e CancelTimer) Describe() string { return fmt.Sprintf("cancel-timer %s", e.Timer) }
func (e NativeCall) Describe() string {
	return fmt.Sprintf("native-call %s %s", e.Call, e.Op.Describe())
}
func (e Report) Describe() string {
	parts := make([]string, len(e.Owned))
	for i, r := range e.Owned {
		parts[i] = r.String()
	}
	return fmt.Sprintf("report complete=%t owned=[%s]", e.Complete, strings.Join(parts, " "))
}

// Op is the operation of a NativeCall. The set is sealed.
type Op interface {
	isOp()
	Describe() string
}

// Prepare creates a native executor for Session with an immutable
// configuration, without model input. Result: PrepareResult.
type Prepare struct {
	Executor      string
	Kind          string
	Session       string
	Configuration wire.ExecutionConfiguration
	Fingerprint   string
	// Installed is the installed-capability snapshot as loaded when the
	// preparation began: every installation that completed, none still
	// running (the factory sees only what was installed).
	Installed []Installed
}

// StartTurn starts Turn on Executor for Run with Input. Result:
// StartResult. Native events of the Turn are tagged with Turn and may
// arrive before the StartResult.
type StartTurn struct {
	Executor string
	Turn     TurnID
	Run      string
	Input    wire.MessageInput
}

// DurableWrite writes one active input into Turn (DurableSteerer). The
// machine bounds it with the native write budget. Result: WriteResult.
type DurableWrite struct {
	Turn    TurnID
	InputID string
	Input   wire.MessageInput
}

// Cancel asks the native side to cancel exactly Turn; it never closes a
// healthy executor. Result: CancelResult (the request, not settlement).
type Cancel struct{ Turn TurnID }

// AwaitSettlement waits until Turn has settled (natural end or cancel).
// Result: SettleResult.
type AwaitSettlement struct{ Turn TurnID }

// CloseExecutor retires Executor's native resources. Result: CloseResult.
type CloseExecutor struct{ Executor string }

func (Prepare) isOp()         {}
func (StartTurn) isOp()       {}
func (DurableWrite) isOp()    {}
func (Cancel) isOp()          {}
func (AwaitSettlement) isOp() {}
func (CloseExecutor) isOp()   {}

func (o Prepare) Describe() string {
	return fmt.Sprintf("prepare executor=%s kind=%s session=%s fp=%s", o.Executor, o.Kind, o.Session, shortFP(o.Fingerprint))
}
func (o StartTurn) Describe() string {
	return fmt.Sprintf("start-turn executor=%s turn=%s run=%s input=%s", o.Executor, o.Turn, o.Run, describeInput(o.Input))
}
func (o DurableWrite) Describe() string {
	return fmt.Sprintf("durable-write turn=%s input=%s %s", o.Turn, o.InputID, describeInput(o.Input))
}
func (o Cancel) Describe() string          { return fmt.Sprintf("cancel turn=%s", o.Turn) }
func (o AwaitSettlement) Describe() string { return fmt.Sprintf("await-settlement turn=%s", o.Turn) }
func (o CloseExecutor) Describe() string {
	return fmt.Sprintf("close-executor executor=%s", o.Executor)
}

// Result is the outcome of a native call. The set is sealed.
type Result interface {
	isResult()
	Describe() string
}

// PrepareResult: Err empty means the executor is ready for a Turn. A
// failed preparation leaves no native resource, unless Retained: the
// factory returned its executor with the error and its cleanup is not
// confirmed, so the executor stays owned (counted in the table) and is
// closed, serially retried, like any other.
type PrepareResult struct {
	Err      string
	Retained bool
}

// StartResult: Turn reports whether a native Turn exists. Turn=false
// guarantees that no input was submitted. Turn=true with Err set means the
// input may have been submitted: the Turn is tracked until settled.
type StartResult struct {
	Turn bool
	Err  string
}

// WriteOutcome classifies a durable write.
type WriteOutcome uint8

const (
	WriteWritten WriteOutcome = iota + 1 // native write completed
	WriteFailed                          // definitely not written
	WriteUnknown                         // may or may not have been written
)

func (w WriteOutcome) String() string {
	switch w {
	case WriteWritten:
		return "written"
	case WriteFailed:
		return "failed"
	case WriteUnknown:
		return "unknown"
	}
	return "invalid"
}

// WriteResult reports a DurableWrite.
type WriteResult struct {
	Outcome WriteOutcome
	Err     string
}

// CancelResult reports the cancel request only; Err set means the
// request itself failed.
type CancelResult struct{ Err string }

// SettleResult reports AwaitSettlement. Settled=false means settlement is
// not confirmed (the Turn stays owned; the machine retries serially).
// Reusable=false requires Reason and a confirmed close of the executor.
// Outcome is the continuity snapshot (content, usage, native identity).
type SettleResult struct {
	Settled  bool
	Reusable bool
	Reason   string
	Outcome  wire.Done
	Err      string
}

// CloseResult reports CloseExecutor; Err set means the close is not
// confirmed and the resource is still owned.
type CloseResult struct{ Err string }

func (PrepareResult) isResult() {}
func (StartResult) isResult()   {}
func (WriteResult) isResult()   {}
func (CancelResult) isResult()  {}
func (SettleResult) isResult()  {}
func (CloseResult) isResult()   {}

func (r PrepareResult) Describe() string {
	if r.Retained {
		return fmt.Sprintf("prepare err=%q retained=true", r.Err)
	}
	return fmt.Sprintf("prepare err=%q", r.Err)
}
func (r StartResult) Describe() string {
	return fmt.Sprintf("start turn=%t err=%q", r.Turn, r.Err)
}
func (r WriteResult) Describe() string {
	return fmt.Sprintf("write outcome=%s err=%q", r.Outcome, r.Err)
}
func (r CancelResult) Describe() string { return fmt.Sprintf("cancel err=%q", r.Err) }
func (r SettleResult) Describe() string {
	return fmt.Sprintf("settle settled=%t reusable=%t reason=%q outcome=%s err=%q",
		r.Settled, r.Reusable, r.Reason, wire.DescribePayload(r.Outcome), r.Err)
}
func (r CloseResult) Describe() string { return fmt.Sprintf("close err=%q", r.Err) }

// Resource is one thing the machine owns: an executor, a Turn, or an
// outstanding native call.
type Resource struct {
	Kind  string // "executor", "turn", "call"
	ID    string
	State string
}

func (r Resource) String() string { return r.Kind + ":" + r.ID + "(" + r.State + ")" }

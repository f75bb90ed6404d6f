package daemon

import (
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Event is one input of Step. The set is sealed: only the types of this
// file implement it.
type Event interface {
	isEvent()
	// Describe renders the event as one canonical line for traces.
	Describe() string
}

// ConnID identifies one connection to Core (its generation). The shell
// mints it, strictly increasing; zero is not a valid connection.
type ConnID uint64

// ConnOpened reports that connection Conn is up. A ConnOpened for a newer
// connection while another is up replaces the older connection; one for
// an older or the same connection is ignored.
type ConnOpened struct{ Conn ConnID }

// ConnClosed reports that connection Conn is gone. Stale connections are
// ignored.
type ConnClosed struct{ Conn ConnID }

// FrameReceived carries one frame decoded by the shell from connection Conn.
type FrameReceived struct {
	Conn  ConnID
	Frame wire.Frame
}

// FrameRejected reports a frame of connection Conn the shell could not
// decode. Type and ID are whatever the shell could read from the envelope
// (possibly empty).
type FrameRejected struct {
	Conn ConnID
	Type string
	ID   string
	Err  error
}

// TimerFired reports that a timer set with SetTimer reached its instant.
// Fires of cancelled, replaced or unknown timers are ignored.
type TimerFired struct{ Timer TimerID }

// NativeResult reports the completion of a NativeCall. Result's type
// matches the call's Op (PrepareResult for Prepare, and so on).
type NativeResult struct {
	Call   CallID
	Result Result
}

// NativeTurnEvent carries one native output event of Turn, in the order
// the Turn produced it. Event is a Run output payload: wire.Delta,
// wire.Thinking, wire.OutputMessage, wire.ToolCall, wire.UsageUpdate,
// wire.RunError, or wire.Done — the native terminal result, which also
// means that the Turn's output is closed.
type NativeTurnEvent struct {
	Turn  TurnID
	Event wire.Payload
}

// NativeInputApplied reports that the native side of Turn confirmed
// consumption of durable input InputID (the `accepted` stage).
type NativeInputApplied struct {
	Turn    TurnID
	InputID string
}

// ShutdownRequested asks the machine to close everything it owns.
type ShutdownRequested struct{ Reason string }

// WallClockStep reports that the shell observed the wall clock move by
// Offset relative to the monotonic clock. Steps accumulate: every
// wall-derived wire value (heartbeat ts, preparation_status expires_at)
// is computed from now plus the accumulated offset, while every ordering,
// timer and expiry decision keeps using now. A production shell using
// time.Now() needs it only if it reads wall time separately; the
// simulator sends it to model wall-clock jumps.
type WallClockStep struct{ Offset time.Duration }

func (ConnOpened) isEvent()         {}
func (ConnClosed) isEvent()         {}
func (FrameReceived) isEvent()      {}
func (FrameRejected) isEvent()      {}
func (TimerFired) isEvent()         {}
func (NativeResult) isEvent()       {}
func (NativeTurnEvent) isEvent()    {}
func (NativeInputApplied) isEvent() {}
func (ShutdownRequested) isEvent()  {}
func (WallClockStep) isEvent()      {}

func (e ConnOpened) Describe() string { return fmt.Sprintf("connected gen=%d", e.Conn) }
func (e ConnClosed) Describe() string { return fmt.Sprintf("disconnected gen=%d", e.Conn) }
func (e FrameReceived) Describe() string {
	return fmt.Sprintf("recv gen=%d %s", e.Conn, DescribeFrame(e.Frame))
}
func (e FrameRejected) Describe() string {
	msg := ""
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("recv-rejected gen=%d type=%q id=%q err=%q", e.Conn, e.Type, e.ID, msg)
}
func (e TimerFired) Describe() string { return fmt.Sprintf("timer-fired %s", e.Timer) }
func (e NativeResult) Describe() string {
	r := "<nil>"
	if e.Result != nil {
		r = e.Result.Describe()
	}
	return fmt.Sprintf("native-result %s %s", e.Call, r)
}
func (e NativeTurnEvent) Describe() string {
	typ := "<nil>"
	if e.Event != nil {
		typ = e.Event.MessageType()
	}
	return fmt.Sprintf("native-event %s %s %s", e.Turn, typ, wire.DescribePayload(e.Event))
}
func (e NativeInputApplied) Describe() string {
	return fmt.Sprintf("native-input-applied %s input=%q", e.Turn, e.InputID)
}
func (e ShutdownRequested) Describe() string {
	return fmt.Sprintf("shutdown-requested reason=%q", e.Reason)
}
func (e WallClockStep) Describe() string {
	return fmt.Sprintf("wall-clock-step offset=%s", e.Offset)
}

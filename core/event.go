package core

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// ConnID identifies one physical connection (its generation). The shell
// mints it; zero is not a valid connection. The machine assumes the IDs a
// shell mints for one device increase with every new connection (the
// simulator assigns them in dial order; a real gateway in accept order):
// a ConnOpened whose ID is not above every ID already opened for that
// device is stale and closed at once. A Restart forgets the IDs seen.
type ConnID uint64

func (c ConnID) String() string { return fmt.Sprintf("c%d", uint64(c)) }

// CallID is the caller-chosen identity of one API call. A Subscribe call's
// ID also names the subscriber in Observation effects.
type CallID string

// TimerID names one machine timer. Setting a timer with an ID that is armed
// replaces it.
type TimerID string

// Event is one input of Step. The set is sealed: only this package's types
// implement it.
type Event interface {
	isEvent()
	// Describe renders the event as one canonical line for traces.
	Describe() string
}

// ConnOpened: a Runtime connection for Device was accepted (credential and
// version already checked by the shell). A newer connection for a device
// replaces and quarantines the older one; an older one arriving late is
// closed ("stale connection") and changes nothing.
type ConnOpened struct {
	Device string
	Conn   ConnID
}

// ConnClosed: the shell observed the end of a connection.
type ConnClosed struct {
	Conn   ConnID
	Reason string
}

// FrameReceived: a decoded frame arrived on a connection.
type FrameReceived struct {
	Conn  ConnID
	Frame wire.Frame
}

// FrameRejected: a frame arrived that failed to decode. Type is the type
// string when the envelope was readable. An invalid heartbeat clears the
// connection's capability snapshot and closes the connection.
type FrameRejected struct {
	Conn ConnID
	Type string
	Err  error
}

// TimerFired: a timer set by a SetTimer effect is due.
type TimerFired struct {
	Timer TimerID
}

// SubscriberOverflow: the shell could not hand an Observation to the
// subscriber (its bounded buffer is full). The subscription closes with
// ErrSubscriberOverflow.
type SubscriberOverflow struct {
	Subscriber CallID
}

// CreateSession creates a Session whose agent configuration is frozen.
// Result: SessionCreated.
type CreateSession struct {
	Call  CallID
	Agent AgentConfig
}

// SubmitTurn queues a Turn on a Session. Result: TurnSubmitted.
type SubmitTurn struct {
	Call    CallID
	Session string
	Input   wire.MessageInput
}

// SteerInput queues an active input on a Turn. Result: InputSteered.
type SteerInput struct {
	Call  CallID
	Turn  string
	Input wire.MessageInput
}

// CancelTurn asks for a Turn's cancellation. The Turn's terminal state is
// decided later (cancel receipt, or cancel_unconfirmed).
type CancelTurn struct {
	Call CallID
	Turn string
}

// ReadTurn returns the Turn's projection. Result: *TurnView.
type ReadTurn struct {
	Call CallID
	Turn string
}

// Subscribe opens the SubscribeDurable run subscription of a Turn: every
// persisted run event from the first, then live ones, then a closing
// Observation. The subscriber is named by Call.
type Subscribe struct {
	Call CallID
	Turn string
}

func (ConnOpened) isEvent()         {}
func (ConnClosed) isEvent()         {}
func (FrameReceived) isEvent()      {}
func (FrameRejected) isEvent()      {}
func (TimerFired) isEvent()         {}
func (SubscriberOverflow) isEvent() {}
func (CreateSession) isEvent()      {}
func (SubmitTurn) isEvent()         {}
func (SteerInput) isEvent()         {}
func (CancelTurn) isEvent()         {}
func (ReadTurn) isEvent()           {}
func (Subscribe) isEvent()          {}

func (e ConnOpened) Describe() string {
	return fmt.Sprintf("conn-opened device=%s %s", e.Device, e.Conn)
}
func (e ConnClosed) Describe() string {
	return fmt.Sprintf("conn-closed %s reason=%q", e.Conn, e.Reason)
}
func (e FrameReceived) Describe() string {
	return fmt.Sprintf("frame-received %s %s", e.Conn, DescribeFrame(e.Frame))
}
func (e FrameRejected) Describe() string {
	return fmt.Sprintf("frame-rejected %s type=%s err=%q", e.Conn, e.Type, errText(e.Err))
}
func (e TimerFired) Describe() string { return fmt.Sprintf("timer-fired %s", e.Timer) }
func (e SubscriberOverflow) Describe() string {
	return fmt.Sprintf("subscriber-overflow %s", e.Subscriber)
}
func (e CreateSession) Describe() string {
	return fmt.Sprintf("api create-session call=%s kind=%s env=%s", e.Call, e.Agent.Kind, e.Agent.Environment)
}
func (e SubmitTurn) Describe() string {
	return fmt.Sprintf("api submit-turn call=%s session=%s messages=%d", e.Call, e.Session, len(e.Input))
}
func (e SteerInput) Describe() string {
	return fmt.Sprintf("api steer-input call=%s turn=%s messages=%d", e.Call, e.Turn, len(e.Input))
}
func (e CancelTurn) Describe() string {
	return fmt.Sprintf("api cancel-turn call=%s turn=%s", e.Call, e.Turn)
}
func (e ReadTurn) Describe() string { return string(e.AppendDescribe(nil)) }

// AppendDescribe appends Describe's text to b.
func (e ReadTurn) AppendDescribe(b []byte) []byte {
	b = append(append(b, "api read-turn call="...), e.Call...)
	return append(append(b, " turn="...), e.Turn...)
}
func (e Subscribe) Describe() string {
	return fmt.Sprintf("api subscribe call=%s turn=%s", e.Call, e.Turn)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

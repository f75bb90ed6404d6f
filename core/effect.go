package core

import (
	"fmt"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Effect is one output of Step. The shell applies the effects of one Step
// in the order returned. Every durable write a Step makes reaches the Store
// synchronously, before Step returns, so every effect describes work whose
// durable precondition is already recorded (persist, then send).
type Effect interface {
	isEffect()
	// Describe renders the effect as one canonical line for traces.
	Describe() string
}

// Send writes Frame on Conn. Frames for one connection must be written in
// the order they appear. A Send that fails needs no report of its own: the
// shell closes the connection and reports ConnClosed; Core never replays a
// frame whose delivery is uncertain.
type Send struct {
	Conn  ConnID
	Frame wire.Frame
}

// CloseConn closes Conn. From this effect on Core treats the connection as
// gone: its routes were removed in the same Step, later frames from it are
// ignored and a later ConnClosed for it is a no-op.
type CloseConn struct {
	Conn   ConnID
	Reason string
}

// SetTimer arms Timer to fire at At (replacing an armed timer of the same
// ID). The shell delivers TimerFired once, at or after At. A TimerFired for
// a timer Core cancelled or replaced is ignored, so racing deliveries are
// harmless.
type SetTimer struct {
	Timer TimerID
	At    time.Time
}

// CancelTimer disarms Timer.
type CancelTimer struct {
	Timer TimerID
}

// Observation is one item of a SubscribeDurable subscription. Either Event
// is a persisted run event (in persisted order, each exactly once per
// subscriber), or Closed is true and the subscription ends; then Err is nil
// when the Turn reached a terminal state with its observation intact, or an
// explicit observation error (ErrDisconnected, ErrSubscriberOverflow) when
// observation was lost. Core never fabricates an `error` or `done` event.
type Observation struct {
	Subscriber CallID
	Turn       string
	Event      *RunEvent
	Closed     bool
	Err        error
}

// APIResult answers an API call. Exactly one APIResult is produced per API
// event, in the Step that handled it. Err is a named error (errors.Is) or
// nil; on error the call changed no durable state.
type APIResult struct {
	Call          CallID
	SessionID     string                         // CreateSession
	TurnID        string                         // SubmitTurn
	InputID       string                         // SteerInput
	DeliveryID    string                         // AnswerPermission, AnswerUserChoice, SubmitFunctionResult
	Turn          *TurnView                      // ReadTurn
	Turns         []TurnView                     // ListTurns: one page, in submission order
	NextAfter     string                         // ListTurns: cursor of the next page ("" on the last)
	Session       *SessionState                  // ListTurns: the Session's recoverability
	SuspendID     string                         // QuiesceEnvironment, ResumeEnvironment
	Suspension    *SuspensionRecord              // ReadSuspension
	PreparationID string                         // PrepareEnvironment
	Preparation   *EnvironmentPreparationRecord  // ReadPreparation
	Preparations  []EnvironmentPreparationRecord // ReadEnvironment
	Err           error
	// Workspace answers ReadWorkspace, WriteWorkspace and ExportWorkspace.
	Workspace *WorkspaceResult
}

func (Send) isEffect()        {}
func (CloseConn) isEffect()   {}
func (SetTimer) isEffect()    {}
func (CancelTimer) isEffect() {}
func (Observation) isEffect() {}
func (APIResult) isEffect()   {}

func (e Send) Describe() string { return fmt.Sprintf("send %s %s", e.Conn, DescribeFrame(e.Frame)) }
func (e CloseConn) Describe() string {
	return fmt.Sprintf("close-conn %s reason=%q", e.Conn, e.Reason)
}
func (e SetTimer) Describe() string {
	return fmt.Sprintf("set-timer %s at=%s", e.Timer, e.At.UTC().Format(time.RFC3339Nano))
}
func (e CancelTimer) Describe() string { return fmt.Sprintf("cancel-timer %s", e.Timer) }
func (e Observation) Describe() string {
	if e.Closed {
		return fmt.Sprintf("observe %s turn=%s closed err=%q", e.Subscriber, e.Turn, errText(e.Err))
	}
	return fmt.Sprintf("observe %s turn=%s seq=%d %s", e.Subscriber, e.Turn, e.Event.Seq, e.Event.Type)
}
func (e APIResult) Describe() string { return string(e.AppendDescribe(nil)) }

// AppendDescribe appends Describe's text to b (a trace line is built
// without a string of its own).
func (e APIResult) AppendDescribe(b []byte) []byte {
	b = append(b, "api-result call="...)
	b = append(b, e.Call...)
	switch {
	case e.Err != nil:
		b = fmt.Appendf(b, " err=%q", e.Err.Error())
	case e.SessionID != "":
		b = append(append(b, " session="...), e.SessionID...)
	case e.TurnID != "":
		b = append(append(b, " turn="...), e.TurnID...)
	case e.InputID != "":
		b = append(append(b, " input="...), e.InputID...)
	case e.DeliveryID != "":
		b = append(append(b, " delivery="...), e.DeliveryID...)
	case e.Turn != nil:
		b = append(append(b, " turn="...), e.Turn.ID...)
		b = append(append(b, " state="...), e.Turn.State...)
		b = append(append(b, " code="...), e.Turn.ErrorCode...)
		b = strconv.AppendInt(append(b, " cursor="...), int64(e.Turn.InputCursor), 10)
		b = strconv.AppendUint(append(b, " events="...), e.Turn.Events, 10)
	case e.Turns != nil:
		b = fmt.Appendf(b, " turns=%d next=%s", len(e.Turns), e.NextAfter)
	case e.Workspace != nil:
		b = append(b, describeWorkspace(e.Workspace)...)
	case e.Preparation != nil:
		b = fmt.Appendf(b, " preparation=%s state=%s", e.Preparation.ID, e.Preparation.State)
	case e.PreparationID != "":
		b = append(append(b, " preparation="...), e.PreparationID...)
	case e.Suspension != nil:
		b = fmt.Appendf(b, " suspend=%s state=%s", e.Suspension.ID, e.Suspension.State)
	case e.SuspendID != "":
		b = append(append(b, " suspend="...), e.SuspendID...)
	default:
		b = append(b, " ok"...)
	}
	return b
}

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
//
// Budget zero is an ordinary frame: the shell's own write limit applies
// and a write that fails closes the connection. A Budget above zero marks
// a best-effort frame (the export cancel, ExportCancelSendBudget): the
// shell gives it at most Budget from the moment it was queued; one still
// queued when its budget ran out is dropped, not written, and the
// connection stays open. Core learns nothing either way and never relies
// on a best-effort frame having arrived.
type Send struct {
	Conn   ConnID
	Frame  wire.Frame
	Budget time.Duration
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
// nil; on error the call changed no durable state and Value is nil. On
// success Value is the call's answer (see APIValue), nil for the calls
// that answer nothing but success (CancelTurn, Subscribe).
type APIResult struct {
	Call  CallID
	Value APIValue
	Err   error
}

// APIValue is the answer of one kind of API call. The set is sealed; each
// call answers with one type:
//
//	CreateSession                          SessionCreated
//	SubmitTurn                             TurnSubmitted
//	SteerInput                             InputSteered
//	AnswerPermission, AnswerUserChoice,
//	SubmitFunctionResult                   DecisionDelivered
//	ReadTurn                               *TurnView
//	ListTurns                              TurnPage
//	QuiesceEnvironment, ResumeEnvironment  SuspendRef
//	ReadSuspension                         *SuspensionRecord
//	PrepareEnvironment                     PreparationStarted
//	ReadPreparation                        *EnvironmentPreparationRecord
//	ReadEnvironment                        Preparations
//	ReadWorkspace, WriteWorkspace,
//	ExportWorkspace                        *WorkspaceResult
type APIValue interface {
	// appendDescribe appends the answer's part of APIResult.Describe.
	appendDescribe(b []byte) []byte
}

// SessionCreated answers CreateSession.
type SessionCreated struct{ Session string }

// TurnSubmitted answers SubmitTurn.
type TurnSubmitted struct{ Turn string }

// InputSteered answers SteerInput: the queued input's ID.
type InputSteered struct{ Input string }

// DecisionDelivered answers AnswerPermission, AnswerUserChoice and
// SubmitFunctionResult: the delivery ID of the decision sent.
type DecisionDelivered struct{ Delivery string }

// TurnPage answers ListTurns: one page of Turns in submission order,
// NextAfter the cursor of the next page ("" on the last), and the
// Session's recoverability.
type TurnPage struct {
	Turns     []TurnView
	NextAfter string
	Session   SessionState
}

// SuspendRef answers QuiesceEnvironment and ResumeEnvironment: the
// suspension the request belongs to.
type SuspendRef struct{ Suspend string }

// PreparationStarted answers PrepareEnvironment.
type PreparationStarted struct{ Preparation string }

// Preparations answers ReadEnvironment (empty when no connection prepared
// the environment yet).
type Preparations []EnvironmentPreparationRecord

func (v SessionCreated) appendDescribe(b []byte) []byte {
	return append(append(b, " session="...), v.Session...)
}
func (v TurnSubmitted) appendDescribe(b []byte) []byte {
	return append(append(b, " turn="...), v.Turn...)
}
func (v InputSteered) appendDescribe(b []byte) []byte {
	return append(append(b, " input="...), v.Input...)
}
func (v DecisionDelivered) appendDescribe(b []byte) []byte {
	return append(append(b, " delivery="...), v.Delivery...)
}
func (v *TurnView) appendDescribe(b []byte) []byte {
	b = append(append(b, " turn="...), v.ID...)
	b = append(append(b, " state="...), v.State...)
	b = append(append(b, " code="...), v.ErrorCode...)
	b = strconv.AppendInt(append(b, " cursor="...), int64(v.InputCursor), 10)
	return strconv.AppendUint(append(b, " events="...), v.Events, 10)
}
func (v TurnPage) appendDescribe(b []byte) []byte {
	return fmt.Appendf(b, " turns=%d next=%s", len(v.Turns), v.NextAfter)
}
func (v *WorkspaceResult) appendDescribe(b []byte) []byte { return append(b, describeWorkspace(v)...) }
func (v *EnvironmentPreparationRecord) appendDescribe(b []byte) []byte {
	return fmt.Appendf(b, " preparation=%s state=%s", v.ID, v.State)
}
func (v PreparationStarted) appendDescribe(b []byte) []byte {
	return append(append(b, " preparation="...), v.Preparation...)
}
func (v *SuspensionRecord) appendDescribe(b []byte) []byte {
	return fmt.Appendf(b, " suspend=%s state=%s", v.ID, v.State)
}
func (v SuspendRef) appendDescribe(b []byte) []byte {
	return append(append(b, " suspend="...), v.Suspend...)
}

// appendDescribe: a ReadEnvironment answer is traced as a bare success.
func (Preparations) appendDescribe(b []byte) []byte { return append(b, " ok"...) }

func (Send) isEffect()        {}
func (CloseConn) isEffect()   {}
func (SetTimer) isEffect()    {}
func (CancelTimer) isEffect() {}
func (Observation) isEffect() {}
func (APIResult) isEffect()   {}

func (e Send) Describe() string {
	if e.Budget > 0 {
		return fmt.Sprintf("send %s %s best-effort=%s", e.Conn, DescribeFrame(e.Frame), e.Budget)
	}
	return fmt.Sprintf("send %s %s", e.Conn, DescribeFrame(e.Frame))
}
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
		return fmt.Appendf(b, " err=%q", e.Err.Error())
	case e.Value == nil:
		return append(b, " ok"...)
	}
	return e.Value.appendDescribe(b)
}

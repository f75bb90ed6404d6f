package core

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// onSteerInput queues an active input durably on an unfinished Turn.
// Inputs are delivered one at a time, in order, once the Run is running.
func (m *Machine) onSteerInput(e SteerInput) {
	t := m.turns[e.Turn]
	fail := func(err error) { m.result(APIResult{Call: e.Call, Err: err}) }
	switch {
	case t == nil:
		fail(m.apiTurnErr(e.Turn))
	case e.Input.Validate() != nil:
		fail(fmt.Errorf("%w: %v", ErrInvalidInput, e.Input.Validate()))
	case m.admitInput(m.sessions[t.rec.Session], e.Input) != nil:
		fail(m.admitInput(m.sessions[t.rec.Session], e.Input))
	case t.rec.Cancel != CancelNone:
		fail(ErrCancelPending)
	case len(t.inputs) >= m.cfg.SteerInputsPerRunMax:
		fail(ErrInputLimit)
	case e.Input.HasImages() && t.admitted != nil && !t.admitted.MessageImages.IsSupported():
		fail(fmt.Errorf("%w: %s", ErrCapabilityUnsupported, capMessageImages))
	default:
		idx := len(t.inputs) + 1
		in := InputRecord{Index: idx, ID: strconv.Itoa(idx), Input: slices.Clone(e.Input), State: InputQueued}
		t.inputs = append(t.inputs, in)
		m.saveInput(t, idx-1)
		m.result(APIResult{Call: e.Call, Value: InputSteered{Input: in.ID}})
		m.pumpSteer(t)
	}
}

// pumpSteer delivers the input at the cursor when the Run is running, no
// input awaits its receipt and no cancel was sent. Delivery starts the
// `written` timer.
func (m *Machine) pumpSteer(t *turn) {
	if t.rec.State != TurnRunning || t.rec.Cancel != CancelNone || t.rec.InputCursor >= len(t.inputs) {
		return
	}
	i := t.rec.InputCursor
	if t.inputs[i].State != InputQueued {
		return
	}
	t.inputs[i].State = InputDelivering
	m.deliverInput(t, i)
	m.setTimer(timerID(timerWritten, t.rec.ID), m.now.Add(m.cfg.WrittenTimeout))
}

func (m *Machine) deliverInput(t *turn, i int) {
	in := &t.inputs[i]
	in.Sends++
	m.saveInput(t, i)
	m.send(t.conn.id, t.rec.RunID, wire.PromptSteer{InputID: in.ID, Input: in.Input, DurableReceipt: true})
}

// onSteerAck reads a receipt for the input at the cursor. accepted
// advances the cursor; written records the stage (and stops the written
// timer) without advancing; not_ready/busy before written offers the same
// input again later; in_flight keeps waiting; any other code fails the
// input and the Turn (unless a cancel owns the terminal result).
func (m *Machine) onSteerAck(t *turn, ack wire.PromptSteerAck) {
	i := t.rec.InputCursor
	if i >= len(t.inputs) || ack.InputID != t.inputs[i].ID {
		return
	}
	in := &t.inputs[i]
	if in.State != InputDelivering && in.State != InputWritten {
		return
	}
	switch {
	case ack.Accepted:
		in.State = InputAccepted
		m.saveInput(t, i)
		t.rec.InputCursor++
		m.saveTurn(t)
		m.cancelTimer(timerID(timerWritten, t.rec.ID))
		m.cancelTimer(timerID(timerSteerRetry, t.rec.ID))
		t.retrying = false
		m.pumpSteer(t)
	case ack.ErrorCode == "" && ack.Written:
		if in.State == InputDelivering {
			in.State = InputWritten
			m.saveInput(t, i)
			m.cancelTimer(timerID(timerWritten, t.rec.ID))
		}
	case (ack.ErrorCode == steerNotReady || ack.ErrorCode == steerBusy) && in.State == InputDelivering:
		if !t.retrying {
			t.retrying = true
			m.setTimer(timerID(timerSteerRetry, t.rec.ID), m.now.Add(m.cfg.SteerRetryDelay))
		}
	case ack.ErrorCode == steerInFlight || ack.ErrorCode == "":
	default:
		in.State, in.ErrorCode = InputFailed, ack.ErrorCode
		m.saveInput(t, i)
		m.cancelTimer(timerID(timerWritten, t.rec.ID))
		m.cancelTimer(timerID(timerSteerRetry, t.rec.ID))
		t.retrying = false
		if t.rec.Cancel != CancelRequested {
			m.finish(t, TurnFailed, codeInputPrefix+ack.ErrorCode, ack.Error)
		}
	}
}

// onSteerRetry offers the same input again after not_ready/busy. The
// Runtime refused it before any write, so this is no redelivery.
func (m *Machine) onSteerRetry(turnID string) {
	t := m.turns[turnID]
	if t == nil {
		return
	}
	t.retrying = false
	i := t.rec.InputCursor
	if t.conn == nil || t.rec.Cancel != CancelNone || i >= len(t.inputs) || t.inputs[i].State != InputDelivering {
		return
	}
	m.deliverInput(t, i)
}

// onWrittenTimeout: no `written` within the window from delivery start.
// The input's outcome is unknown and it is never redelivered; the Turn
// fails with input_outcome_unknown unless a cancel owns the terminal
// result.
func (m *Machine) onWrittenTimeout(turnID string) {
	t := m.turns[turnID]
	if t == nil {
		return
	}
	i := t.rec.InputCursor
	if i >= len(t.inputs) || t.inputs[i].State != InputDelivering {
		return
	}
	t.inputs[i].State = InputUnknown
	m.saveInput(t, i)
	m.cancelTimer(timerID(timerSteerRetry, t.rec.ID))
	t.retrying = false
	if t.rec.Cancel != CancelRequested {
		m.finish(t, TurnFailed, CodeInputOutcomeUnknown, "no written receipt for input "+t.inputs[i].ID)
	}
}

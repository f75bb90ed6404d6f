package daemon

import (
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

type inputState uint8

const (
	inputWriting  inputState = iota + 1 // native write outstanding, within budget
	inputWritten                        // `written` receipt sent
	inputAccepted                       // `accepted` receipt sent
	inputFailed                         // definitely not written
	inputUnknown                        // outcome unknown: kept, never replayed
)

var inputStateNames = [...]string{"", "writing", "written", "accepted", "failed", "unknown"}

func (s inputState) String() string { return inputStateNames[s] }

// steerInput is the receipt state of one durable input of a Turn.
type steerInput struct {
	id      string
	fp      string
	state   inputState
	lastAck *wire.PromptSteerAck
	late    WriteOutcome // a write result that arrived after its budget
}

func (m *Machine) sendSteerAck(t *turn, ack wire.PromptSteerAck) {
	if t != nil && t.routed {
		m.send(t.gen, wire.Frame{ID: t.runID, Payload: ack}, m.cfg.Limits.ReceiptSendBudget)
	}
}

// onSteer handles prompt_steer with durable receipts: one input in flight
// per Run, a bounded native write, `written` then `accepted`.
func (m *Machine) onSteer(runID string, p wire.PromptSteer) {
	reply := func(code string) {
		id := p.InputID
		if len(id) > wire.InputIDBytesMax {
			id = "" // never echo an oversized identity
		}
		m.send(m.conn.gen, wire.Frame{ID: runID, Payload: wire.PromptSteerAck{InputID: id, ErrorCode: code}}, m.cfg.Limits.ReceiptSendBudget)
	}
	if runID == "" || strings.TrimSpace(p.InputID) == "" || len(p.InputID) > wire.InputIDBytesMax || p.Input.Validate() != nil {
		reply(CodeInvalidInput)
		return
	}
	t := m.conn.runs[runID]
	if t == nil {
		reply(CodeRunInactive)
		return
	}
	// An input the Run already holds is judged by its identity first: a
	// repeat gets its stored receipt and other content is a conflict, even
	// once the executor that wrote it has closed.
	fp := steerFingerprint(p)
	if in := t.inputs[p.InputID]; in != nil {
		switch {
		case in.fp != fp:
			reply(CodeInputConflict)
		case in.lastAck == nil:
			reply(CodeInFlight)
		default:
			m.sendSteerAck(t, *in.lastAck) // the stored receipt; never re-written
		}
		return
	}
	ex := m.executors[t.executor]
	if !p.DurableReceipt || ex != nil && !ex.caps.DurableInputReceipts.IsSupported() {
		reply(CodeUnsupported) // plain steering has no native path here
		return
	}
	switch {
	case ex == nil:
		reply(CodeRunInactive) // the executor that ran it has closed: the Run is over
	case !t.startResolved:
		reply(CodeNotReady)
	case t.outputClosed || t.cancelRequested || t.settled:
		reply(CodeRunInactive)
	case t.writing != "" || t.writeCalls > 0:
		reply(CodeBusy) // one native write per Run, even past its budget
	case len(t.inputs) >= m.cfg.Limits.SteerInputsPerRunMax:
		reply(CodeInputLimit)
	default:
		m.admitInput(t, p, fp)
	}
}

func (m *Machine) admitInput(t *turn, p wire.PromptSteer, fp string) {
	in := &steerInput{id: p.InputID, fp: fp, state: inputWriting}
	t.inputs[in.id] = in
	t.writing = in.id
	t.writeCalls++
	m.nativeCall(&call{kind: callWrite, turn: t.id, executor: t.executor, input: in.id},
		DurableWrite{Turn: t.id, InputID: in.id, Input: p.Input})
	m.setTimer(writeTimer(t.id, in.id), &timer{kind: timerWrite, at: m.now.Add(m.cfg.Limits.NativeWriteBudget), turn: t.id, input: in.id})
}

// receipt records and sends one receipt of in.
func (m *Machine) receipt(t *turn, in *steerInput, ack wire.PromptSteerAck) {
	ack.InputID = in.id
	in.lastAck = &ack
	m.sendSteerAck(t, ack)
}

func (m *Machine) writeDone(c *call, r WriteResult) {
	t := m.turns[c.turn]
	if t == nil {
		return // the Turn finished after the budget; the call is settled now
	}
	in := t.inputs[c.input]
	assert.That(in != nil, "write result for unknown input %s of %s", c.input, t.id)
	m.cancelTimer(writeTimer(t.id, in.id))
	t.writeCalls--
	if t.writing == in.id {
		t.writing = ""
	}
	switch {
	case in.state != inputWriting && in.state != inputAccepted:
		in.late = r.Outcome // over budget: the unknown receipt stands
	case in.state == inputAccepted:
		// consumption already confirmed; nothing weaker to send
	case r.Outcome == WriteWritten:
		in.state = inputWritten
		m.receipt(t, in, wire.PromptSteerAck{Written: true})
	case r.Outcome == WriteFailed:
		in.state = inputFailed
		m.receipt(t, in, wire.PromptSteerAck{ErrorCode: CodeRejected, Error: "native write failed"})
	default:
		in.state = inputUnknown
		m.receipt(t, in, wire.PromptSteerAck{ErrorCode: CodeOutcomeUnknown})
	}
	m.maybeFinish(t)
}

// writeBudgetDue: the native write took longer than its budget. Its
// outcome is unknown; the receipt says so and the input is never replayed.
func (m *Machine) writeBudgetDue(id TurnID, inputID string) {
	t := m.turns[id]
	if t == nil {
		return
	}
	in := t.inputs[inputID]
	if in == nil || in.state != inputWriting {
		return
	}
	in.state = inputUnknown
	if t.writing == in.id {
		t.writing = ""
	}
	m.receipt(t, in, wire.PromptSteerAck{ErrorCode: CodeOutcomeUnknown})
	m.maybeFinish(t)
}

// onInputApplied sends `accepted` when the native side confirms
// consumption during the Turn's lifetime.
func (m *Machine) onInputApplied(e NativeInputApplied) {
	t := m.turns[e.Turn]
	if t == nil {
		return
	}
	in := t.inputs[e.InputID]
	if in == nil || in.state == inputAccepted || in.state == inputFailed {
		return
	}
	in.state = inputAccepted
	m.receipt(t, in, wire.PromptSteerAck{Written: true, Accepted: true})
}

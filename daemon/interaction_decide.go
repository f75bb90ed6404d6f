package daemon

import (
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// decision is one decision or function result on its way to a Turn.
type decision struct {
	kind     ixKind
	envelope string // ack envelope ID: interaction ID, or Run ID for results
	delivery string
	key      string // applied-memory key
	fp       string
	valid    error // shared validation (and binding) failure
	op       func(t *turn, ix *interaction) Op
}

// onPermissionDecision handles permission_decision (id = interaction ID).
func (m *Machine) onPermissionDecision(id string, d wire.PermissionDecision) {
	m.decide(id, decision{
		kind: ixPermission, envelope: id, delivery: d.DeliveryID,
		key: askKey(ixPermission, id), fp: permissionFP(d), valid: d.Validate(),
		op: func(t *turn, _ *interaction) Op {
			return RespondPermission{Turn: t.id, InteractionID: id, Decision: d}
		},
	})
}

// onUserChoiceDecision handles prompt_for_user_choice_decision (id =
// interaction ID). Answers bind to the prompt's question IDs only.
func (m *Machine) onUserChoiceDecision(id string, d wire.UserChoiceDecision) {
	m.decide(id, decision{
		kind: ixChoice, envelope: id, delivery: d.DeliveryID,
		key: askKey(ixChoice, id), fp: choiceFP(d), valid: d.Validate(),
		op: func(t *turn, _ *interaction) Op {
			return RespondUserChoice{Turn: t.id, InteractionID: id, Decision: d}
		},
	})
}

// decide routes a permission or user-choice decision to the Turn that
// asked, and refuses it with the documented code otherwise.
func (m *Machine) decide(id string, d decision) {
	if d.valid != nil || id == "" {
		m.sendDecisionAck(d.envelope, d.delivery, CodeInvalidDecision)
		return
	}
	t, ix := m.findAsk(id)
	if t == nil {
		m.answerFromMemory(d)
		return
	}
	if ix.kind != d.kind {
		m.sendDecisionAck(d.envelope, d.delivery, wire.AckNotPending)
		return
	}
	ex := m.executors[t.executor]
	if ex == nil && ix.state == ixApplied {
		// The executor is gone (closed while the Turn settles) but the
		// Turn and its applied interaction are still owned: a repeat is
		// applied again, a changed decision conflicts.
		m.admitDecision(t, ix, d)
		return
	}
	if ex == nil || !ex.caps.Permissions.IsSupported() {
		// permissions governs both permission and user-choice decisions.
		code := wire.AckUnsupported
		if ex == nil {
			code = wire.AckNotPending
		}
		m.sendDecisionAck(d.envelope, d.delivery, code)
		return
	}
	if d.kind == ixChoice {
		if dec, ok := d.op(t, ix).(RespondUserChoice); ok && dec.Decision.ValidateAgainst(ix.questions) != nil {
			m.sendDecisionAck(d.envelope, d.delivery, CodeInvalidDecision)
			return
		}
	}
	m.admitDecision(t, ix, d)
}

// onFunctionResult handles function_result (id = Run ID): routed by Run
// and call ID to the Turn's FunctionResultSubmitter.
func (m *Machine) onFunctionResult(runID string, r wire.FunctionResult) {
	d := decision{
		kind: ixFunction, envelope: runID, delivery: r.DeliveryID,
		key: callKey(runID, r.CallID), fp: resultFP(r),
		op: func(t *turn, _ *interaction) Op { return SubmitFunctionResult{Turn: t.id, Result: r} },
	}
	if runID == "" || r.Validate() != nil {
		m.sendDecisionAck(runID, r.DeliveryID, wire.AckInvalidResult)
		return
	}
	t := m.conn.runs[runID]
	if t == nil {
		m.answerFromMemory(d)
		return
	}
	ti := m.ixOf(t.id, false)
	var ix *interaction
	if ti != nil {
		ix = ti.calls[r.CallID]
	}
	ex := m.executors[t.executor]
	switch {
	case ex == nil && ix != nil && ix.state == ixApplied:
		// As in decide: the executor closed while the Turn settles, and
		// the applied result still answers a repeat from its state.
		m.admitDecision(t, ix, d)
		return
	case ex == nil:
		m.sendDecisionAck(runID, r.DeliveryID, wire.AckNotPending)
		return
	case !ex.caps.FunctionTools.IsSupported() ||
		hasImages(r.Content) && !ex.caps.FunctionResultImages.IsSupported():
		m.sendDecisionAck(runID, r.DeliveryID, wire.AckUnsupported)
		return
	}
	if ix == nil {
		m.sendDecisionAck(runID, r.DeliveryID, wire.AckNotPending)
		return
	}
	m.admitDecision(t, ix, d)
}

func hasImages(parts []wire.InputContent) bool {
	return slices.ContainsFunc(parts, func(p wire.InputContent) bool { return p.Type == wire.ContentInputImage })
}

// answerFromMemory answers a decision whose interaction is no longer live:
// an identical repeat of a remembered applied decision is applied again, a
// different one conflicts, anything else is not pending.
func (m *Machine) answerFromMemory(d decision) {
	fp, ok := m.recallApplied(d.key)
	switch {
	case !ok:
		m.sendDecisionAck(d.envelope, d.delivery, wire.AckNotPending)
	case fp == d.fp:
		m.sendDecisionAck(d.envelope, d.delivery, "")
	default:
		m.sendDecisionAck(d.envelope, d.delivery, wire.AckDecisionConflict)
	}
}

// admitDecision applies the state rules of a live interaction and, when
// the decision is admissible, calls the native responder.
func (m *Machine) admitDecision(t *turn, ix *interaction, d decision) {
	switch ix.state {
	case ixApplied:
		if ix.fp != d.fp {
			m.sendDecisionAck(d.envelope, d.delivery, wire.AckDecisionConflict)
			return
		}
		m.sendDecisionAck(d.envelope, d.delivery, "")
		return
	case ixApplying:
		if ix.fp != d.fp {
			m.sendDecisionAck(d.envelope, d.delivery, wire.AckDecisionConflict)
			return
		}
		ix.waiting = append(ix.waiting, d.delivery)
		return
	case ixWithdrawn:
		m.sendDecisionAck(d.envelope, d.delivery, wire.AckNotPending)
		return
	}
	switch {
	case !t.startResolved:
		m.sendDecisionAck(d.envelope, d.delivery, wire.AckNotReady)
		return
	case t.outputClosed || t.settled || t.cancelRequested:
		// Admission closes before settlement.
		m.sendDecisionAck(d.envelope, d.delivery, wire.AckNotPending)
		return
	}
	ix.state = ixApplying
	ix.fp = d.fp
	ix.waiting = []string{d.delivery}
	m.ixOf(t.id, true).held++
	m.nativeCall(&call{kind: callDecision, turn: t.id, executor: t.executor, input: d.key, ix: ix, ack: d.envelope},
		d.op(t, ix))
}

// decisionDone settles one native decision call: the ack of every waiting
// delivery follows the native result, then the barrier is released.
func (m *Machine) decisionDone(c *call, r DecisionResult) {
	t := m.turns[c.turn]
	assert.That(t != nil, "decision result for unknown turn %s", c.turn)
	ti := m.ixOf(t.id, false)
	assert.That(ti != nil && ti.held > 0, "decision result of %s without a held barrier", t.id)
	ix := c.ix
	code := ""
	switch r.Outcome {
	case DecisionApplied:
		ix.state = ixApplied
		m.rememberApplied(c.input, ix.fp)
	case DecisionUnsupported:
		// Declared (checked before the call) yet refused: a contract breach.
		code = wire.AckContractViolation
		ix.state = ixPending
	case DecisionNotPending:
		code = wire.AckNotPending
		ix.state = ixWithdrawn
	default:
		code = wire.AckRuntimeError
		ix.state = ixPending
	}
	if ix.withdrawn && ix.state == ixPending {
		ix.state = ixWithdrawn
	}
	waiting := ix.waiting
	ix.waiting = nil
	if t.routed {
		for _, dl := range waiting {
			ack := wire.InteractionDecisionAck{DeliveryID: dl, Applied: code == "", ErrorCode: code}
			m.send(t.gen, wire.Frame{ID: c.ack, Payload: ack}, m.cfg.Limits.ReceiptSendBudget)
		}
	}
	ti.held--
	m.maybeFinish(t)
}

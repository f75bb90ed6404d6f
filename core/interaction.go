package core

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// Interactions and function calls.
//
// A Run's permission_request, prompt_for_user_choice and function_call are
// recorded durably on the Turn. An API answer is checked against the
// record (kind, pending, binding of answers to the issued questions,
// capability of the admitted device) before anything is sent; an accepted
// answer is recorded with a fresh delivery ID, then sent, and its
// interaction_decision_ack — matched by delivery ID on the Run's
// connection — decides. No receipt within DecisionAckTimeout, or a lost
// connection, leaves the outcome unknown: never applied.

const timerDecision = "decision"

// decisionRef locates the interaction a delivery ID awaits a receipt for.
type decisionRef struct {
	turn string
	idx  int
}

func (m *Machine) decisionsIndex() map[string]decisionRef {
	if m.decisions == nil {
		m.decisions = map[string]decisionRef{}
	}
	return m.decisions
}

// putInteraction replaces interaction i of t (copy on write: the store
// may share the previous slice) and saves the Turn.
func (m *Machine) putInteraction(t *turn, i int, r InteractionRecord) {
	ixs := slices.Clone(t.rec.Interactions)
	if i == len(ixs) {
		ixs = append(ixs, r)
	} else {
		ixs[i] = r
	}
	t.rec.Interactions = ixs
	m.saveTurn(t)
}

func findInteraction(recs []InteractionRecord, kind InteractionKind, id string) int {
	return slices.IndexFunc(recs, func(r InteractionRecord) bool { return r.Kind == kind && r.ID == id })
}

// onAsked records an interaction or function call the Run emitted. An
// invalid request, a repeated identity, or one past the per-Turn bound is
// not recorded.
func (m *Machine) onAsked(t *turn, p wire.Payload) {
	if wire.Validate(p) != nil || len(t.rec.Interactions) >= interactionsPerTurnMax {
		return
	}
	r := InteractionRecord{RunID: t.rec.RunID, Status: InteractionPending}
	switch p := p.(type) {
	case wire.PermissionRequest:
		r.Kind, r.ID, r.Tool, r.Title, r.Detail, r.Payload = InteractionPermission, p.RequestID, p.Tool, p.Title, p.Detail, p.Payload
	case wire.UserChoicePrompt:
		r.Kind, r.ID, r.Questions = InteractionUserChoice, p.AskID, p.Questions
	case wire.FunctionCall:
		r.Kind, r.ID, r.Name, r.Arguments = InteractionFunction, p.CallID, p.Name, p.Arguments
	default:
		return
	}
	same := func(o InteractionRecord) bool {
		return o.RunID == r.RunID && o.ID == r.ID && (o.Kind == InteractionFunction) == (r.Kind == InteractionFunction)
	}
	if slices.ContainsFunc(t.rec.Interactions, same) {
		return
	}
	m.putInteraction(t, len(t.rec.Interactions), r)
}

// onInteractionFrame handles permission_cancel and the receipts of
// decisions. It reports false for an ack whose delivery ID is no decision
// of this machine (a cancel receipt, handled on the Run route).
func (m *Machine) onInteractionFrame(c *conn, f wire.Frame) bool {
	switch p := f.Payload.(type) {
	case wire.PermissionCancel:
		m.onPermissionCancel(c, f.ID)
		return true
	case wire.InteractionDecisionAck:
		ref, ok := m.decisionsIndex()[p.DeliveryID]
		if !ok || p.DeliveryID == "" {
			return false
		}
		t := m.turns[ref.turn]
		if t != nil && t.conn == c && p.ValidateAsDecisionAck() == nil {
			m.onDecisionAck(t, ref.idx, p)
		}
		return true
	}
	return false
}

// onPermissionCancel: the Runtime withdrew permission request id of a Run
// on this connection. A decision already sent keeps waiting for its
// receipt, which decides.
func (m *Machine) onPermissionCancel(c *conn, id string) {
	for _, runID := range sortedKeys(m.runs) {
		t := m.runs[runID]
		if t.conn != c {
			continue
		}
		i := slices.IndexFunc(t.rec.Interactions, func(r InteractionRecord) bool {
			return r.Kind == InteractionPermission && r.ID == id && r.RunID == t.rec.RunID
		})
		if i < 0 {
			continue
		}
		if r := t.rec.Interactions[i]; r.Status == InteractionPending || r.Status == InteractionRefused {
			r.Status = InteractionWithdrawn
			m.putInteraction(t, i, r)
		}
		return
	}
}

func (m *Machine) onDecisionAck(t *turn, i int, ack wire.InteractionDecisionAck) {
	r := t.rec.Interactions[i]
	if r.Status != InteractionDelivering || r.DeliveryID != ack.DeliveryID {
		return
	}
	delete(m.decisions, ack.DeliveryID)
	m.cancelTimer(timerID(timerDecision, ack.DeliveryID))
	if ack.Applied {
		r.Status, r.ErrorCode = InteractionApplied, ""
	} else {
		r.Status, r.ErrorCode = InteractionRefused, ack.ErrorCode
	}
	m.putInteraction(t, i, r)
}

// onDecisionTimeout: no receipt in time. The outcome is unknown.
func (m *Machine) onDecisionTimeout(delivery string) {
	ref, ok := m.decisionsIndex()[delivery]
	if !ok {
		return
	}
	delete(m.decisions, delivery)
	t := m.turns[ref.turn]
	assert.That(t != nil, "decision %s of a finished turn %s", delivery, ref.turn)
	r := t.rec.Interactions[ref.idx]
	r.Status = InteractionUnknown
	m.putInteraction(t, ref.idx, r)
}

// closeInteractions runs when t becomes terminal (before its record is
// saved): a decision awaiting its receipt becomes unknown, an unanswered
// interaction expires.
func (m *Machine) closeInteractions(t *turn) {
	if len(t.rec.Interactions) == 0 {
		return
	}
	ixs := slices.Clone(t.rec.Interactions)
	for i := range ixs {
		switch ixs[i].Status {
		case InteractionDelivering:
			delete(m.decisions, ixs[i].DeliveryID)
			m.cancelTimer(timerID(timerDecision, ixs[i].DeliveryID))
			ixs[i].Status = InteractionUnknown
		case InteractionPending, InteractionRefused:
			ixs[i].Status = InteractionExpired
		}
	}
	t.rec.Interactions = ixs
}

// onInteractionAPI checks an answer against the Turn's record and sends it.
func (m *Machine) onInteractionAPI(e interactionAPI) {
	call, turnID, kind, id := interactionTarget(e)
	fail := func(err error) { m.result(APIResult{Call: call, Err: err}) }
	t := m.turns[turnID]
	if t == nil {
		fail(m.apiTurnErr(turnID))
		return
	}
	i := -1
	if t.rec.RunID != "" {
		i = slices.IndexFunc(t.rec.Interactions, func(r InteractionRecord) bool {
			return r.Kind == kind && r.ID == id && r.RunID == t.rec.RunID
		})
	}
	if i < 0 {
		fail(ErrUnknownInteraction)
		return
	}
	r := t.rec.Interactions[i]
	if err := m.answerable(t, r); err != nil {
		fail(err)
		return
	}
	r.Attempts++
	r.DeliveryID = decisionDeliveryID(t.rec.ID, i, r.Attempts)
	p, err := m.decisionPayload(t, r, e)
	if err != nil {
		fail(err)
		return
	}
	r.Status, r.ErrorCode, r.Deadline = InteractionDelivering, "", m.now.Add(m.cfg.DecisionAckTimeout)
	envelope := r.ID
	switch p := p.(type) {
	case wire.PermissionDecision:
		r.Permission = &p
	case wire.UserChoiceDecision:
		r.Choice = &p
	case wire.FunctionResult:
		r.Result = &p
		envelope = t.rec.RunID
	}
	m.putInteraction(t, i, r) // durable before it leaves
	m.decisionsIndex()[r.DeliveryID] = decisionRef{turn: t.rec.ID, idx: i}
	m.send(t.conn.id, envelope, p)
	m.setTimer(timerID(timerDecision, r.DeliveryID), r.Deadline)
	m.result(APIResult{Call: call, Value: DecisionDelivered{Delivery: r.DeliveryID}})
}

func interactionTarget(e interactionAPI) (CallID, string, InteractionKind, string) {
	switch e := e.(type) {
	case AnswerPermission:
		return e.Call, e.Turn, InteractionPermission, e.Interaction
	case AnswerUserChoice:
		return e.Call, e.Turn, InteractionUserChoice, e.Interaction
	case SubmitFunctionResult:
		return e.Call, e.Turn, InteractionFunction, e.CallID
	}
	panic(fmt.Sprintf("core: interaction API event %T", e))
}

// answerable says why r cannot be answered now, or nil. A pending cancel
// does not close it here: whether the Turn still admits the answer is the
// Runtime's to say (not_pending once its admission closed).
func (m *Machine) answerable(t *turn, r InteractionRecord) error {
	switch {
	case t.conn == nil || t.rec.State != TurnRunning:
		return ErrInteractionClosed
	case r.Status == InteractionDelivering:
		return ErrDecisionInFlight
	case r.Status == InteractionApplied || r.Status == InteractionWithdrawn || r.Status == InteractionExpired,
		r.Status == InteractionRefused && r.ErrorCode == wire.AckNotPending:
		return ErrInteractionClosed
	}
	need := capPermissions
	if r.Kind == InteractionFunction {
		need = capFunctionTools
	}
	if t.admitted != nil && !capabilityOf(*t.admitted, need) {
		return fmt.Errorf("%w: %s", ErrCapabilityUnsupported, need)
	}
	return nil
}

// decisionPayload builds and checks the frame of an answer.
func (m *Machine) decisionPayload(t *turn, r InteractionRecord, e interactionAPI) (wire.Payload, error) {
	switch e := e.(type) {
	case AnswerPermission:
		d := wire.PermissionDecision{DeliveryID: r.DeliveryID, Approved: e.Approved, Message: e.Message,
			UpdatedInput: slices.Clone(e.UpdatedInput)}
		// The strict codec is the judge of the shape (updated_input must
		// be a JSON object): what Core sends must decode.
		if _, err := wire.Encode(wire.Frame{ID: r.ID, Payload: d}); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidAnswer, err)
		}
		return d, nil
	case AnswerUserChoice:
		d := wire.UserChoiceDecision{DeliveryID: r.DeliveryID, QuestionAnswers: cloneAnswers(e.Answers),
			Cancelled: e.Cancelled, Reason: e.Reason}
		if err := d.ValidateAgainst(r.Questions); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidAnswer, err)
		}
		return d, nil
	case SubmitFunctionResult:
		res := wire.FunctionResult{DeliveryID: r.DeliveryID, CallID: r.ID, Success: e.Success,
			Content: slices.Clone(e.Content)}
		if res.Content == nil {
			res.Content = []wire.InputContent{}
		}
		if err := res.Validate(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidInput, err)
		}
		images := slices.ContainsFunc(res.Content, func(p wire.InputContent) bool { return p.Type == wire.ContentInputImage })
		// Images need both: the engine profile's qualification (the
		// API's, refused first) and the Turn's admitted declaration.
		if images {
			if err := m.admitResultImages(m.sessions[t.rec.Session]); err != nil {
				return nil, err
			}
		}
		if images && t.admitted != nil && !t.admitted.FunctionResultImages.IsSupported() {
			return nil, fmt.Errorf("%w: %s", ErrCapabilityUnsupported, capFunctionResultImages)
		}
		// The engine profile's function result policy applies to every
		// submitted result (additional validation adds native limits).
		if err := m.policy().FunctionResult(m.sessions[t.rec.Session].rec.Agent.Kind, res); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrEngineUnqualified, err)
		}
		return res, nil
	}
	panic(fmt.Sprintf("core: interaction API event %T", e))
}

func cloneAnswers(a []wire.QuestionAnswer) []wire.QuestionAnswer {
	if a == nil {
		return nil
	}
	out := make([]wire.QuestionAnswer, len(a))
	for i, q := range a {
		out[i] = wire.QuestionAnswer{QuestionID: q.QuestionID, Answers: slices.Clone(q.Answers)}
	}
	return out
}

// decisionDeliveryID is fresh per attempt: "decision:<turn>:<n>:<attempt>"
// with n the interaction's 1-based position on the Turn.
func decisionDeliveryID(turn string, i, attempt int) string {
	return "decision:" + turn + ":" + strconv.Itoa(i+1) + ":" + strconv.Itoa(attempt)
}

// checkInteractions: every index entry names a delivering interaction
// awaiting its receipt, timed (checkTurnInteractions checks the converse).
func (m *Machine) checkInteractions() {
	for d, ref := range m.decisions {
		t := m.turns[ref.turn]
		if !(t != nil && ref.idx < len(t.rec.Interactions)) {
			panicf("decision %s of unknown turn %s", d, ref.turn)
		}
		r := t.rec.Interactions[ref.idx]
		if !(r.Status == InteractionDelivering && r.DeliveryID == d && m.armed(timerID(timerDecision, d))) {
			panicf("decision %s indexed but interaction %s is %s", d, r.ID, r.Status)
		}
	}
}

// checkTurnInteractions: every delivering interaction of t is indexed
// (checkTurns calls it for every Turn).
func (m *Machine) checkTurnInteractions(t *turn) {
	for _, r := range t.rec.Interactions {
		if r.Status != InteractionDelivering {
			continue
		}
		if _, ok := m.decisions[r.DeliveryID]; !ok {
			panicf("turn %s interaction %s delivering without its index", t.rec.ID, r.ID)
		}
	}
}

const capPermissions = "permissions"

func capabilityOf(caps wire.AgentKindCapabilities, name string) bool {
	return missingCapability(caps, []string{name}) == ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

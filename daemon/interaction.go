package daemon

import (
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Interactions and function calls of a Turn.
//
// A permission request, a user-choice prompt and a function call belong to
// the Turn that emitted them: the native event names its Turn, and a Turn
// that settled drops its late callbacks. A decision is routed by its
// interaction ID (a function result by Run ID and call ID) to exactly that
// Turn's responder, and answered with interaction_decision_ack carrying the
// decision's delivery ID: applied=true only once the native side confirmed
// it. Admitted decisions hold the Turn's barrier until their native result
// and outbound ack are done; done waits for them. Applied decisions are
// remembered (AppliedDecisionsMax entries for AppliedDecisionTTL) so that
// an identical repeat is acknowledged applied=true again without a second
// native call, and a different one is a decision_conflict.

// Applied-decision memory bounds (wire-reference §6.1).
const (
	AppliedDecisionsMax = 1024
	AppliedDecisionTTL  = time.Hour
)

// CodeInvalidDecision answers a permission or user-choice decision that
// fails its shared validation (an empty delivery ID, cancelled with
// answers, a blank or repeated question ID, null answers) or names a
// question the prompt never issued: nothing is submitted natively.
//
// The seed says only that shared validation rejects such a decision before
// native submission, not with which code. The decision receipt codes are a
// closed set (wire-reference §3.6: not_pending, not_ready, unsupported,
// contract_violation, runtime_error, decision_conflict), and of these
// runtime_error is the one that fits: invalid_result belongs to function
// results (§3.8, invalid content, which onFunctionResult uses), and
// contract_violation means a declared operation the adapter returned
// ErrUnsupportedOperation for, a breach by the adapter rather than by the
// request. sim/check's refusal_code oracle holds each family to its set.
const CodeInvalidDecision = wire.AckRuntimeError

type ixKind uint8

const (
	ixPermission ixKind = iota + 1
	ixChoice
	ixFunction
)

var ixKindNames = [...]string{"", "permission", "user_choice", "function"}

type ixState uint8

const (
	ixPending   ixState = iota + 1 // emitted, awaiting a decision
	ixApplying                     // native decision call outstanding
	ixApplied                      // the native side confirmed a decision
	ixWithdrawn                    // withdrawn or gone natively
)

// interaction is one pending question of a Turn: a permission request, a
// user-choice prompt or a function call.
type interaction struct {
	kind      ixKind
	id        string // interaction ID or call ID
	questions []wire.UserQuestion
	state     ixState
	withdrawn bool     // permission_cancel arrived while applying
	fp        string   // decision being applied or applied
	waiting   []string // delivery IDs answered by the native result
}

// turnInteractions is the interaction state of one Turn.
type turnInteractions struct {
	asks  map[string]*interaction // permission and user-choice, by interaction ID
	calls map[string]*interaction // function calls, by call ID
	held  int                     // admitted decisions holding the barrier
}

// appliedDecision is one remembered applied decision.
type appliedDecision struct {
	key string
	fp  string
	at  time.Time
}

// interactions is the machine's interaction state.
type interactions struct {
	turns   map[TurnID]*turnInteractions
	applied []appliedDecision // oldest first
}

func (m *Machine) ixOf(id TurnID, create bool) *turnInteractions {
	if m.ix.turns == nil {
		m.ix.turns = map[TurnID]*turnInteractions{}
	}
	ti := m.ix.turns[id]
	if ti == nil && create {
		ti = &turnInteractions{asks: map[string]*interaction{}, calls: map[string]*interaction{}}
		m.ix.turns[id] = ti
	}
	return ti
}

// interactionsHeld reports whether admitted decisions of t still hold its
// barrier.
func (m *Machine) interactionsHeld(t *turn) bool {
	ti := m.ixOf(t.id, false)
	return ti != nil && ti.held > 0
}

// forgetInteractions drops the interaction state of a Turn that is gone.
func (m *Machine) forgetInteractions(id TurnID) {
	if m.ix.turns != nil {
		delete(m.ix.turns, id)
	}
}

// noteNativeInteraction records an interaction or function call the Turn
// emitted. It reports false for a repeat of a known identity, which is
// dropped: an identity is asked once.
func (m *Machine) noteNativeInteraction(t *turn, p wire.Payload) bool {
	var kind ixKind
	var id string
	var questions []wire.UserQuestion
	switch p := p.(type) {
	case wire.PermissionRequest:
		kind, id = ixPermission, p.RequestID
	case wire.UserChoicePrompt:
		kind, id, questions = ixChoice, p.AskID, slices.Clone(p.Questions)
	case wire.FunctionCall:
		kind, id = ixFunction, p.CallID
	default:
		return true
	}
	ti := m.ixOf(t.id, true)
	index := ti.asks
	if kind == ixFunction {
		index = ti.calls
	}
	if index[id] != nil {
		return false
	}
	index[id] = &interaction{kind: kind, id: id, questions: questions, state: ixPending}
	return true
}

// onPermissionWithdrawn forwards permission_cancel (id = interaction ID)
// of a pending request of a live Turn. A decision already admitted keeps
// its native call; its result decides the ack.
func (m *Machine) onPermissionWithdrawn(e NativePermissionWithdrawn) {
	t := m.turns[e.Turn]
	if t == nil || t.outputClosed || t.settled || e.InteractionID == "" {
		return
	}
	ti := m.ixOf(t.id, false)
	if ti == nil {
		return
	}
	ix := ti.asks[e.InteractionID]
	if ix == nil || ix.kind != ixPermission {
		return
	}
	switch ix.state {
	case ixPending:
		ix.state = ixWithdrawn
	case ixApplying:
		ix.withdrawn = true
	default:
		return
	}
	f := wire.Frame{ID: e.InteractionID, Payload: wire.PermissionCancel{}}
	if !t.startResolved {
		if len(t.buffered) >= m.cfg.Limits.OutputFramesMax {
			t.overflow++
			return
		}
		t.buffered = append(t.buffered, f)
		return
	}
	m.forwardFrame(t, f)
}

// findAsk finds the live Turn of this connection that emitted interaction
// id. An identity pending on more than one Turn is ambiguous and found on
// none: a decision never lands on a Turn it was not meant for.
func (m *Machine) findAsk(id string) (*turn, *interaction) {
	var ft *turn
	var fx *interaction
	for _, tid := range sortedTurnIDs(m.turns) {
		t := m.turns[tid]
		if !t.routed || t.gen != m.conn.gen {
			continue
		}
		ti := m.ixOf(tid, false)
		if ti == nil || ti.asks[id] == nil {
			continue
		}
		if ft != nil {
			return nil, nil
		}
		ft, fx = t, ti.asks[id]
	}
	return ft, fx
}

func (m *Machine) sendDecisionAck(envelopeID, delivery, code string) {
	ack := wire.InteractionDecisionAck{DeliveryID: delivery, Applied: code == "", ErrorCode: code}
	m.send(m.conn.gen, wire.Frame{ID: envelopeID, Payload: ack}, m.cfg.Limits.ReceiptSendBudget)
}

// Decision fingerprints: the decision's content without its delivery ID.
func permissionFP(d wire.PermissionDecision) string {
	var w fpWriter
	w.boolean("approved", d.Approved)
	w.str("message", d.Message)
	w.str("updated_input", string(d.UpdatedInput))
	return w.b.String()
}

func choiceFP(d wire.UserChoiceDecision) string {
	var w fpWriter
	w.boolean("cancelled", d.Cancelled)
	w.str("reason", d.Reason)
	w.num("answers", int64(len(d.QuestionAnswers)))
	for _, a := range d.QuestionAnswers {
		w.str("question_id", a.QuestionID)
		w.num("values", int64(len(a.Answers)))
		for _, v := range a.Answers {
			w.str("value", v)
		}
	}
	return w.b.String()
}

func resultFP(r wire.FunctionResult) string {
	var w fpWriter
	w.str("call_id", r.CallID)
	w.boolean("success", r.Success)
	w.input("content", wire.MessageInput{{Content: r.Content}})
	return w.b.String()
}

func askKey(kind ixKind, id string) string { return ixKindNames[kind] + "\x00" + id }
func callKey(runID, callID string) string  { return "function\x00" + runID + "\x00" + callID }
func (m *Machine) pruneApplied()           { m.ix.applied = pruneAppliedAt(m.ix.applied, m.now) }
func pruneAppliedAt(a []appliedDecision, now time.Time) []appliedDecision {
	i := 0
	for i < len(a) && now.Sub(a[i].at) >= AppliedDecisionTTL {
		i++
	}
	if len(a)-i > AppliedDecisionsMax {
		i = len(a) - AppliedDecisionsMax
	}
	return a[i:]
}

// rememberApplied records an applied decision (replacing an older record
// of the same identity).
func (m *Machine) rememberApplied(key, fp string) {
	m.ix.applied = slices.DeleteFunc(m.ix.applied, func(a appliedDecision) bool { return a.key == key })
	m.ix.applied = append(m.ix.applied, appliedDecision{key: key, fp: fp, at: m.now})
	m.pruneApplied()
}

// recallApplied returns the remembered applied decision of key.
func (m *Machine) recallApplied(key string) (string, bool) {
	m.pruneApplied()
	for _, a := range m.ix.applied {
		if a.key == key {
			return a.fp, true
		}
	}
	return "", false
}

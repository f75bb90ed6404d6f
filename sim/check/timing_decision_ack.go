package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// The decision receipt oracle (rule timing_decision_ack_wait, Rules).
// From the wire: a decision or function result Core sends with delivery
// ID d is decided by an interaction_decision_ack for d reaching Core on
// that connection; Core's unknown is its store write, seen by
// CoreInteraction.

// TimerDecisionAck is the decision receipt wait's timer name.
const (
	TimerDecisionAck       = "decision_ack_wait"
	CheckTimingDecisionAck = "timing_" + TimerDecisionAck
	interactionUnknown     = "unknown"
	interactionDelivering  = "delivering"
)

// decisionWait is a decision's receipt wait from its send: settled by a
// receipt reaching Core on its connection by the deadline; its outcome is
// Core recording the interaction unknown.
type decisionWait struct {
	delivery, turn string
	timerWindow
}

type decisionAckState struct {
	byDelivery map[string]*decisionWait
	turnOf     map[string]string // delivery → turn, from Core's record before the send
}

func (s *decisionAckState) init() {
	s.byDelivery = map[string]*decisionWait{}
	s.turnOf = map[string]string{}
}

func decisionDelivery(p wire.Payload) string {
	switch p := p.(type) {
	case wire.PermissionDecision:
		return p.DeliveryID
	case wire.UserChoiceDecision:
		return p.DeliveryID
	case wire.FunctionResult:
		return p.DeliveryID
	}
	return ""
}

func (l *Ledger) decisionAckCoreSent(ev WireEvent) {
	d := decisionDelivery(ev.Frame.Payload)
	if d == "" {
		return
	}
	s := &l.timing.decisions
	if s.byDelivery[d] != nil {
		return // a resend of one attempt opens no new wait
	}
	if _, recorded := s.turnOf[d]; !recorded || ev.Forged {
		// not an attempt of Core's: Core records every delivery it makes
		// before sending it, so a decision under an unrecorded delivery ID
		// is a copy put on the wire beside Core's own (a duplication
		// fault), and Core waits for no receipt of it
		return
	}
	w := &decisionWait{delivery: d, turn: s.turnOf[d]}
	s.byDelivery[d] = w
	l.startWindow(&w.timerWindow, CoreNode, TimerDecisionAck, ev.Conn, ev.At, l.timer(CoreNode, TimerDecisionAck), func() {
		l.due(&w.timerWindow, "no receipt for decision %s by %s, %s after it was sent at %s, but Core did not record it unknown then",
			w.delivery, time.Duration(w.deadline), w.length(), time.Duration(w.from))
	})
}

func (l *Ledger) decisionAckCoreReceived(ev WireEvent) {
	ack, ok := ev.Frame.Payload.(wire.InteractionDecisionAck)
	if !ok {
		return
	}
	s := &l.timing.decisions
	if w := s.byDelivery[ack.DeliveryID]; w != nil && w.conn == ev.Conn && !w.overdue(ev.At) && w.outcome < 0 {
		w.settled = true
	}
}

// decisionAckRecorded follows Core's interaction records: the delivery
// a decision will carry, and when Core takes its outcome for unknown.
func (l *Ledger) decisionAckRecorded(at int64, turn, status, delivery string) {
	l.advance(at)
	s := &l.timing.decisions
	if status == interactionDelivering {
		s.turnOf[delivery] = turn
		return
	}
	w := s.byDelivery[delivery]
	if status != interactionUnknown || w == nil || !w.show(at) || at >= w.deadline {
		return
	}
	l.early(&w.timerWindow, at, nil, "Core recorded decision %s unknown at %s, %s after it was sent at %s: before its %s receipt wait ended",
		delivery, vtime(at), w.elapsed(at), vtime(w.from), w.length())
}

// decisionAcksTurnFinished: a finished Turn's decisions await nothing.
func (l *Ledger) decisionAcksTurnFinished(at int64, turn string) {
	s := &l.timing.decisions
	for _, k := range sortedKeys(s.byDelivery) {
		if w := s.byDelivery[k]; w.turn == turn {
			w.excuse(at, "the turn finished")
		}
	}
}

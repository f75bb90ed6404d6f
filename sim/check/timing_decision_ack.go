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

type decisionWait struct {
	delivery, turn string
	conn           uint64
	sent, deadline int64
	receipt        bool
	unknownAt      int64 // -1 until Core records it unknown
	excused        string
	excusedAt      int64
}

type decisionAckState struct {
	byDelivery map[string]*decisionWait
	turnOf     map[string]string // delivery → turn, from Core's record before the send
}

func (s *decisionAckState) ensure() {
	if s.byDelivery == nil {
		s.byDelivery = map[string]*decisionWait{}
		s.turnOf = map[string]string{}
	}
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
	s.ensure()
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
	w := &decisionWait{delivery: d, turn: s.turnOf[d], conn: ev.Conn, sent: ev.At,
		deadline: ev.At + l.timer(coreNode, TimerDecisionAck), unknownAt: -1}
	s.byDelivery[d] = w
	l.arm(w.deadline, func() { l.decisionAckDue(w) })
}

func (l *Ledger) decisionAckCoreReceived(ev WireEvent) {
	ack, ok := ev.Frame.Payload.(wire.InteractionDecisionAck)
	if !ok {
		return
	}
	s := &l.timing.decisions
	s.ensure()
	if w := s.byDelivery[ack.DeliveryID]; w != nil && w.conn == ev.Conn && ev.At <= w.deadline && w.unknownAt < 0 {
		w.receipt = true
	}
}

// decisionAckRecorded follows Core's interaction records: the delivery
// a decision will carry, and when Core takes its outcome for unknown.
func (l *Ledger) decisionAckRecorded(at int64, turn, status, delivery string) {
	l.advance(at)
	s := &l.timing.decisions
	s.ensure()
	if status == interactionDelivering {
		s.turnOf[delivery] = turn
		return
	}
	w := s.byDelivery[delivery]
	if status != interactionUnknown || w == nil || w.unknownAt >= 0 {
		return
	}
	w.unknownAt = at
	if at >= w.deadline {
		return
	}
	// The Turn's end or a close in this instant may be recorded after
	// the store write: judge once the instant is over.
	l.arm(at, func() {
		if w.excused == "" || w.excusedAt > at {
			l.violate(at, CheckTimingDecisionAck, "Core recorded decision %s unknown at %s, %s after it was sent at %s: before its %s receipt wait ended",
				delivery, vtime(at), time.Duration(at-w.sent), vtime(w.sent), time.Duration(w.deadline-w.sent))
		}
	})
}

func (w *decisionWait) excuse(at int64, why string) {
	if w.excused == "" && !w.receipt {
		w.excused, w.excusedAt = why, at
	}
}

func (l *Ledger) decisionAcksExcuse(at int64, why string, match func(*decisionWait) bool) {
	s := &l.timing.decisions
	s.ensure()
	for _, k := range sortedKeys(s.byDelivery) {
		if w := s.byDelivery[k]; match(w) {
			w.excuse(at, why)
		}
	}
}

// decisionAckDue runs once the receipt wait of w has passed.
func (l *Ledger) decisionAckDue(w *decisionWait) {
	switch {
	case w.receipt || w.excused != "" && w.excusedAt <= w.deadline:
	case w.unknownAt == w.deadline:
		l.decide(TimerDecisionAck)
	case w.unknownAt < 0:
		l.violate(w.deadline, CheckTimingDecisionAck, "no receipt for decision %s by %s, %s after it was sent at %s, but Core did not record it unknown then",
			w.delivery, vtime(w.deadline), time.Duration(w.deadline-w.sent), vtime(w.sent))
	}
}

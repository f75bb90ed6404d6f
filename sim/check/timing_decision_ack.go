package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_decision_ack_wait (rules.go). A decision's wait ends
// with an interaction_decision_ack for its delivery ID on its connection;
// Core's unknown is its store write (CoreInteraction).

// decisionWait is a decision's receipt wait from its send.
type decisionWait struct {
	delivery, turn string
	timerWindow
}

type decisionAckState struct {
	byDelivery map[string]*decisionWait
	turnOf     map[string]string // delivery → turn, from Core's record before the send
}

// decisionSent: Core sent a decision or function result under delivery d.
func (l *Ledger) decisionSent(ev WireEvent, d string) {
	s := &l.timing.decisions
	if s.byDelivery[d] != nil {
		return // a resend of one attempt opens no new wait
	}
	if _, recorded := s.turnOf[d]; !recorded || ev.Forged {
		// Core records every delivery before sending it: an unrecorded one
		// is a duplication fault's copy, and Core awaits no receipt of it
		return
	}
	w := &decisionWait{delivery: d, turn: s.turnOf[d]}
	made(&s.byDelivery)[d] = w
	l.startWindow(&w.timerWindow, CoreNode, TimerDecisionAck, ev.Conn, ev.At, l.timer(CoreNode, TimerDecisionAck), func() {
		l.due(&w.timerWindow, "no receipt for decision %s by %s, %s after it was sent at %s, but Core did not record it unknown then",
			w.delivery, time.Duration(w.deadline), w.length(), time.Duration(w.from))
	})
}

func (l *Ledger) decisionAckReceived(ev WireEvent, ack wire.InteractionDecisionAck) {
	if w := l.timing.decisions.byDelivery[ack.DeliveryID]; w != nil && w.conn == ev.Conn && !w.overdue(ev.At) && w.outcome < 0 {
		w.settled = true
	}
}

// decisionAckRecorded follows Core's interaction records: the delivery a
// decision will carry, and when Core takes its outcome for unknown.
func (l *Ledger) decisionAckRecorded(at int64, turn, status, delivery string) {
	l.advance(at)
	s := &l.timing.decisions
	if status == "delivering" {
		made(&s.turnOf)[delivery] = turn
		return
	}
	if w := s.byDelivery[delivery]; status == "unknown" && w != nil && w.show(at) {
		l.early(&w.timerWindow, at, nil, "Core recorded decision %s unknown at %s, %s after it was sent at %s: before its %s receipt wait ended",
			delivery, vtime(at), w.elapsed(at), vtime(w.from), w.length())
	}
}

func (l *Ledger) decisionAcksTurnFinished(at int64, turn string) {
	s := &l.timing.decisions
	for _, k := range sortedKeys(s.byDelivery) {
		if w := s.byDelivery[k]; w.turn == turn {
			w.excuse(at, "the turn finished")
		}
	}
}

package check

import (
	"github.com/turnstile-sim/turnstile/sim/linearize"
	"github.com/turnstile-sim/turnstile/wire"
)

// observeInteractions follows decisions, their acks, permission_cancel
// and forwarded interactions on honest traffic; whether a prompt_cancel
// reached the daemon or it sent done comes from the connection index.
func (l *Ledger) observeInteractions(ev WireEvent) {
	if !ev.HasFrame() {
		return
	}
	conn := connKey(ev.Conn)
	switch {
	case ev.Kind == WireSent && ev.From == CoreNode:
		if delivery, key, ok := decisionOf(ev.Frame); ok {
			_, result := ev.Frame.Payload.(wire.FunctionResult)
			a := &ixAttempt{key: key, delivery: delivery, result: result, sent: ev.At, answered: -1}
			l.ix.attempts = append(l.ix.attempts, a)
			made(&l.ix.byDelivery)[delivery] = a
		}
	case ev.Kind == WireDelivered && ev.To == CoreNode:
		// a receipt reached Core; the first one for a delivery answers its attempt
		a, ok := ev.Frame.Payload.(wire.InteractionDecisionAck)
		if !ok {
			return
		}
		if a.Applied {
			made(&l.ix.coreApplied)[a.DeliveryID] = true
		}
		if att := l.ix.byDelivery[a.DeliveryID]; att != nil && att.answered < 0 {
			att.answered, att.outcome = ev.At, linearize.DecisionRefused
			if a.Applied {
				att.outcome = linearize.DecisionApplied
			}
		}
	case ev.Kind == WireDelivered && ev.From == CoreNode:
		l.ixDaemonReceived(conn, ev)
	case ev.Kind == WireSent && ev.To == CoreNode:
		l.ixDaemonSent(conn, ev)
	}
}

// decisionOf is the delivery ID and key of a decision or function result
// (a function result's key names its call too).
func decisionOf(f wire.Frame) (delivery, key string, ok bool) {
	switch p := f.Payload.(type) {
	case wire.PermissionDecision:
		return p.DeliveryID, f.ID, true
	case wire.UserChoiceDecision:
		return p.DeliveryID, f.ID, true
	case wire.FunctionResult:
		return p.DeliveryID, f.ID + "/" + p.CallID, true
	}
	return "", "", false
}

func (l *Ledger) ixDaemonReceived(conn string, ev WireEvent) {
	switch ev.Frame.Payload.(type) {
	case wire.PermissionDecision, wire.UserChoiceDecision:
		delivery, _, _ := decisionOf(ev.Frame)
		inner(made(&l.ix.unanswered), conn+"/"+ev.Frame.ID)[delivery] = true
	case wire.FunctionResult:
		if l.conn(ev.Conn).run(ev.Frame.ID).cancelled {
			l.reach(MarkFunctionResultAfterCancel)
		}
	}
}

func (l *Ledger) ixDaemonSent(conn string, ev WireEvent) {
	id := ev.Frame.ID
	switch p := ev.Frame.Payload.(type) {
	case wire.InteractionDecisionAck:
		att := l.ix.byDelivery[p.DeliveryID]
		if att == nil {
			return // a cancel receipt
		}
		l.ixAckCode(ev, p, att)
		delete(l.ix.unanswered[conn+"/"+id], p.DeliveryID)
		if !p.Applied {
			return
		}
		if tr := l.ix.truth[att.key]; tr == nil || len(tr.applied) == 0 || tr.applied[0] > ev.At {
			l.violate(ev.At, CheckAppliedWithoutNative, "%s sent applied=true for delivery %s (%s) before the Harness applied it", ev.From, p.DeliveryID, att.key)
		}
	case wire.PermissionCancel:
		if len(l.ix.unanswered[conn+"/"+id]) > 0 {
			l.reach(MarkDecisionRacedPermissionCancel)
		}
	case wire.PermissionRequest, wire.UserChoicePrompt, wire.FunctionCall:
		if l.conn(ev.Conn).run(id).done != 0 {
			l.violate(ev.At, CheckInteractionAfterDone, "%s forwarded %s for run %s after its done", ev.From, ev.Frame.Payload.MessageType(), id)
		}
	case wire.Done:
		for _, c := range l.ix.calls[id] {
			if !c.answered {
				l.violate(ev.At, CheckDoneBeforeDecision, "%s sent done for run %s while the native decision for %s was unanswered", ev.From, id, c.key)
			}
		}
	}
}

// IsDecisionDelivery reports whether delivery names a decision or function
// result Core sent (as opposed to a cancel receipt's delivery).
func (l *Ledger) IsDecisionDelivery(delivery string) bool { return l.ix.isDecision(delivery) }

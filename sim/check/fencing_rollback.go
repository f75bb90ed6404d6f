package check

// Checks: fencing_rollback (rules.go). A request answered by some reply
// is not judged (Core may have ignored a late or malformed one).
const CheckFencingRollback = "fencing_rollback"

type fencingLast struct {
	id      string // Envelope ID of the suspension's last request Core sent
	replied bool   // a reply with that ID reached Core
}

// observeFencingRollback sees honest traffic only.
func (l *Ledger) observeFencingRollback(ev WireEvent) {
	m, ok := fenceMsgOf(ev.Frame.Payload)
	switch {
	case !ok: // a frame that did not decode has no payload
	case ev.Kind == WireSent && ev.From == CoreNode && !m.reply:
		if last := l.fenceLast[m.suspend]; last != nil && !last.replied && !m.quiesce && !m.rollback {
			l.violate(ev.At, CheckFencingRollback, "Core resumed suspension %s (%s) without rollback although no reply to its previous request %s reached it (outcome unknown)",
				m.suspend, ev.Frame.ID, last.id)
		}
		made(&l.fenceLast)[m.suspend] = &fencingLast{id: ev.Frame.ID}
	case ev.Kind == WireDelivered && ev.To == CoreNode && m.reply:
		if last := l.fenceLast[m.suspend]; last != nil && last.id == ev.Frame.ID {
			last.replied = true
		}
	}
}

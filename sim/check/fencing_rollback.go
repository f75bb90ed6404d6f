package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckFencingRollback is rule fencing_rollback (Rules): a Runtime that
// never quiesced treats a rollback resume as a no-op. Core sends a resume
// only once the suspension's previous request is resolved, as unknown
// when no reply reached it at all. A request answered by some reply is
// not judged (Core may have ignored a late or malformed one).
const CheckFencingRollback = "fencing_rollback"

type fencingLast struct {
	id      string // Envelope ID of the suspension's last request Core sent
	replied bool   // a reply with that ID reached Core
}

// observeFencingRollback is the wire observer of CheckFencingRollback; it
// sees honest traffic only.
func (l *Ledger) observeFencingRollback(ev WireEvent) {
	if !ev.HasFrame() {
		return
	}
	switch {
	case ev.Kind == WireSent && ev.From == CoreNode:
		switch p := ev.Frame.Payload.(type) {
		case wire.EnvironmentQuiesce:
			l.fenceLast[p.SuspendID] = &fencingLast{id: ev.Frame.ID}
		case wire.EnvironmentResume:
			if last := l.fenceLast[p.SuspendID]; last != nil && !last.replied && !p.Rollback {
				l.violate(ev.At, CheckFencingRollback, "Core resumed suspension %s (%s) without rollback although no reply to its previous request %s reached it (outcome unknown)",
					p.SuspendID, ev.Frame.ID, last.id)
			}
			l.fenceLast[p.SuspendID] = &fencingLast{id: ev.Frame.ID}
		}
	case ev.Kind == WireDelivered && ev.To == CoreNode:
		var suspend string
		switch p := ev.Frame.Payload.(type) {
		case wire.EnvironmentQuiesced:
			suspend = p.SuspendID
		case wire.EnvironmentResumed:
			suspend = p.SuspendID
		default:
			return
		}
		if last := l.fenceLast[suspend]; last != nil && last.id == ev.Frame.ID {
			last.replied = true
		}
	}
}

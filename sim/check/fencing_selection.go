package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: suspended_selection (rules.go). A refused quiesce or an
// accepted resume may reach Core too late for it to apply, so the
// suspension is no longer judged from the first of them (the checker can
// only miss, never invent, a violation). Suspensions are durable across
// Core restarts. Read-only preparations are not device selection.
const CheckFencedSelection = "suspended_selection"

type fencedSuspension struct {
	device string
	since  int64
}

// observeFencedSelection sees honest traffic only (a frame that did not
// decode has no payload).
func (l *Ledger) observeFencedSelection(ev WireEvent) {
	switch {
	case ev.Kind == WireSent && ev.From == CoreNode:
		switch p := ev.Frame.Payload.(type) {
		case wire.EnvironmentQuiesce:
			keepFirst(made(&l.fencedSel), p.SuspendID, &fencedSuspension{device: ev.To, since: ev.At})
		case wire.ExecutionPrepare:
			if p.Configuration.WorkspaceReadOnly {
				return
			}
			for _, id := range sortedKeys(l.fencedSel) {
				if f := l.fencedSel[id]; f != nil && f.device == ev.To {
					l.violate(ev.At, CheckFencedSelection, "Core sent execution_prepare %s of session %s to %s, which has the unresolved suspension %s (quiesce sent at %s)",
						ev.Frame.ID, p.SessionID, ev.To, id, vtime(f.since))
					return
				}
			}
		}
	case ev.Kind == WireDelivered && ev.To == CoreNode:
		if m, ok := fenceMsgOf(ev.Frame.Payload); ok && m.ends() {
			made(&l.fencedSel)[m.suspend] = nil // terminal
		}
	}
}

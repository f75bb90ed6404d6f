package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckFencedSelection is rule suspended_selection (Rules). A suspension
// is unresolved from Core's environment_quiesce until a refusal of that
// quiesce (accepted:false) or an accepted environment_resumed reaches
// Core; either may have arrived too late for Core to apply it, so the
// checker stops judging the suspension at the first of them (it can only
// miss, never invent, a violation). Core restarts keep suspensions (they
// are durable). Read-only preparations (workspace reads and exports) are
// not device selection and are not judged.
const CheckFencedSelection = "suspended_selection"

type fencedSuspension struct {
	device string
	since  int64
}

// observeFencedSelection is the wire observer of CheckFencedSelection;
// it sees honest traffic only.
func (l *Ledger) observeFencedSelection(ev WireEvent) {
	if !ev.HasFrame() {
		return
	}
	switch {
	case ev.Kind == WireSent && ev.From == CoreNode:
		switch p := ev.Frame.Payload.(type) {
		case wire.EnvironmentQuiesce:
			keepFirst(l.fencedSel, p.SuspendID, &fencedSuspension{device: ev.To, since: ev.At})
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
		switch p := ev.Frame.Payload.(type) {
		case wire.EnvironmentQuiesced:
			if !p.Accepted {
				l.fencedSel[p.SuspendID] = nil // refused: terminal
			}
		case wire.EnvironmentResumed:
			if p.Accepted {
				l.fencedSel[p.SuspendID] = nil // resumed: terminal
			}
		}
	}
}

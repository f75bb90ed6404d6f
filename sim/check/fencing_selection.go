package check

import (
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: suspended_selection (rules.go). A refused quiesce or an
// accepted resume may reach Core too late for it to apply, so the
// suspension is no longer judged from the first of them (the checker can
// only miss, never invent, a violation). Suspensions are durable across
// Core restarts. A read of a running Run and an export's begin on its
// ready profile continue work already on the device: they select no
// device, and are not judged.
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
			what := "execution_prepare "
			if p.Configuration.WorkspaceReadOnly {
				what = "the read-only execution_prepare (a workspace read or export) "
			}
			l.judgeFencedSelection(ev, what+ev.Frame.ID+" of session "+p.SessionID)
		case wire.WorkspaceWrite:
			if p.Step == wire.StepBegin {
				l.judgeFencedSelection(ev, "the workspace_write begin of mutation "+ev.Frame.ID+" (environment "+p.EnvironmentID+")")
			}
		case wire.RuntimePrepare:
			if p.Step == wire.StepBegin && !strings.HasPrefix(ev.Frame.ID, HostileIDPrefix) {
				if !l.fencedSteps.continues(ev, p) {
					l.judgeFencedSelection(ev, "the runtime_prepare begin of transfer "+ev.Frame.ID+
						" (starting a preparation of environment "+p.EnvironmentID+")")
				}
				made(&l.fencedSteps.begun)[ev.Frame.ID] = p.EnvironmentID + "/" + p.SessionID
			}
		}
	case ev.Kind == WireDelivered && ev.To == CoreNode:
		if m, ok := fenceMsgOf(ev.Frame.Payload); ok && m.ends() {
			made(&l.fencedSel)[m.suspend] = nil // terminal
		}
		if r, ok := ev.Frame.Payload.(wire.RuntimePrepareResult); ok && r.Outcome == wire.OutcomeCompleted {
			if pair, ok := l.fencedSteps.begun[ev.Frame.ID]; ok {
				made(&l.fencedSteps.completed)[ev.Conn] = stepEnd{at: ev.At, pair: pair}
			}
		}
	}
}

// fencedSteps tells a preparation's next step from the start of one: a
// begin Core sends on a connection in the instant a completed result of
// the same Environment and Session reached it there continues that
// preparation (a suspension sent meanwhile does not stop a preparation
// under way; the Runtime refuses the step if it is quiesced). Any other
// begin starts a preparation, which is device selection.
type fencedSteps struct {
	begun     map[string]string  // transfer ID → environment/session of its begin
	completed map[uint64]stepEnd // connection → its last completed transfer
}

type stepEnd struct {
	at   int64
	pair string
}

func (f *fencedSteps) continues(ev WireEvent, p wire.RuntimePrepare) bool {
	e, ok := f.completed[ev.Conn]
	return ok && e.at == ev.At && e.pair == p.EnvironmentID+"/"+p.SessionID
}

// judgeFencedSelection: Core sent what (work that selects ev.To) while a
// suspension of that device is unresolved.
func (l *Ledger) judgeFencedSelection(ev WireEvent, what string) {
	for _, id := range sortedKeys(l.fencedSel) {
		if f := l.fencedSel[id]; f != nil && f.device == ev.To {
			l.violate(ev.At, CheckFencedSelection, "Core sent %s to %s, which has the unresolved suspension %s (quiesce sent at %s)",
				what, ev.To, id, vtime(f.since))
			return
		}
	}
}

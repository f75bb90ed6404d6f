package world

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/wire"
)

// tapLimits marks a daemon closing a connection because a write could not
// complete within its budget (the shell's close reason, seen on the wire).
func (u *universe) tapLimits(ev sim.TapEvent) {
	if ev.Kind == sim.TapClosed && ev.From == ev.To && ev.Reason == harness.ReasonSendBudget {
		u.mark(check.MarkReceiptBudgetClosed)
	}
}

// observeNative marks a native terminal result without usage after the
// Turn emitted usage snapshots: Core's usage must then be the last
// snapshot (usage replaces, never adds; usage_added judges it).
func (o *devObserver) observeNative(_ time.Time, ev daemon.Event) {
	e, ok := ev.(daemon.NativeTurnEvent)
	if !ok {
		return
	}
	switch p := e.Event.(type) {
	case wire.UsageUpdate:
		if o.usageSeen == nil {
			o.usageSeen = map[daemon.TurnID]bool{}
		}
		o.usageSeen[e.Turn] = true
	case wire.Done:
		if p.Usage == nil && o.usageSeen[e.Turn] {
			o.u.mark(check.MarkUsageFromSnapshot)
		}
	}
}

package world

import (
	"fmt"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// observeReport traces a daemon's shutdown report and hands it to the
// ledger, which checks a claim of completeness against the Harness's
// ground truth.
func (o *devObserver) observeReport(now time.Time, r daemon.Report) {
	owned := make([]string, len(r.Owned))
	for i, res := range r.Owned {
		owned[i] = res.String()
	}
	o.u.w.Note(fmt.Sprintf("%s shutdown report complete=%v owned=[%s]", o.d.ID, r.Complete, strings.Join(owned, " ")))
	o.u.led.ShutdownReported(o.u.lt(now), string(o.d.ID), r.Complete, len(r.Owned))
	o.u.count("ShutdownReported")
}

// declareLimits gives the ledger a device's configured limits (never the
// machine's own accounting).
func (u *universe) declareLimits(id sim.NodeID, cfg daemon.Config) {
	l := cfg.WithDefaults().Limits
	u.led.DeviceConfigured(string(id), check.DeviceLimits{ActiveMax: l.ActiveMax,
		ExecutorsMax: l.ExecutorsMax, ReceiptSendBudget: l.ReceiptSendBudget})
}

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
// machine's own accounting): what the world set, else the documents'.
func (u *universe) declareLimits(id sim.NodeID, cfg daemon.Config) {
	l := documentedLimits(cfg.Limits)
	u.led.DeviceConfigured(string(id), check.DeviceLimits{ActiveMax: l.ActiveMax,
		ExecutorsMax: l.ExecutorsMax, ReceiptSendBudget: l.ReceiptSendBudget})
}

// documentedLimits fills the limits the world left zero (the daemon's
// defaults) with the documents' numbers as sim/check writes them out, not
// with the daemon's DefaultLimits: a wrong default must not move the
// yardstick of the checks.
func documentedLimits(l daemon.Limits) daemon.Limits {
	fill := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	fillD := func(v *time.Duration, timer string) {
		if *v == 0 {
			*v = check.DocumentedTimer(timer)
		}
	}
	fill(&l.ActiveMax, check.DocumentedActiveMax)
	fill(&l.IdleExecutorsMax, check.DocumentedIdleExecutorsMax)
	fill(&l.ExecutorsMax, check.DocumentedExecutorsMax)
	fill(&l.AdmissionRecordsMax, check.DocumentedAdmissionRecordsMax)
	fill(&l.SteerInputsPerRunMax, check.DocumentedSteerInputsPerRun)
	fillD(&l.AdmissionExpiry, check.TimerAdmission)
	fillD(&l.NativeWriteBudget, check.TimerNativeWrite)
	fillD(&l.ReceiptSendBudget, check.TimerReceiptSend)
	fillD(&l.SettlementWait, check.TimerSettlementWait)
	fillD(&l.IdleExpiry, check.TimerIdleExecutor)
	return l
}

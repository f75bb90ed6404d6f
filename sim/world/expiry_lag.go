package world

import (
	"time"

	"github.com/turnstile-sim/turnstile/sim/check"
)

// Late expiry timers. A loaded host delivers a timer after its instant;
// the daemon machine must then still refuse a start that reaches it past
// an admission's deadline, by reading its own clock. In a third of the
// seeds with faults (drawn from the "expiry-lag" stream, apart from every
// other draw), every device's process delivers each admission expiry
// timer late by up to 1 s, 10 s or 30 s (the bound drawn once a seed,
// each timer's lag drawn by its device). The admission expiry oracle is
// told the bound (check.Ledger.TimerLate).
var expiryLags = []time.Duration{time.Second, 10 * time.Second, 30 * time.Second}

func (u *universe) drawExpiryLag() {
	r := u.w.Rand("expiry-lag")
	if r.IntN(3) != 0 || u.faultFree() {
		return
	}
	lag := expiryLags[r.IntN(len(expiryLags))]
	for _, d := range u.devices {
		d.ExpiryLag = lag
		u.led.TimerLate(string(d.ID), check.TimerAdmission, lag)
	}
}

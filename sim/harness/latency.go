package harness

import (
	"math/rand/v2"
	"time"
)

// Latencies that straddle the documents' timers. Each is drawn around its
// bound, so in the seeds that enable it the timer sometimes decides and
// sometimes the native answer beats it by a little: Core's 15 s cancel
// confirmation (a Run still starting answers cancels not_ready), the
// daemon's 10 s native write budget, its 10 s settlement wait and the
// 5-minute admission expiry.

// swarmChance is a chance in 8: 0 in three seeds of four, else 2–5.
func swarmChance(r *rand.Rand) int {
	on, n := r.IntN(4) == 0, 2+r.IntN(4)
	if !on {
		return 0
	}
	return n
}

// chance draws a chance in 8, drawing nothing when it is off (a seed
// without the latency keeps the Harness's stream as it was).
func (h *Harness) chance(in8 int) bool { return in8 > 0 && h.r.IntN(8) < in8 }

func (h *Harness) ms(lo, span int) time.Duration {
	return time.Duration(lo+h.r.IntN(span)) * time.Millisecond
}

// startLatency: a StartTurn usually answers at once; sometimes after
// 3–20 s, while prompt_cancel is refused not_ready and retried.
func (h *Harness) startLatency() time.Duration {
	if h.chance(h.dev.Harness.SlowStart) {
		return h.ms(3000, 17000)
	}
	return h.latency()
}

// writeLatency: a durable write that succeeds sometimes takes 8–12 s,
// either side of the daemon's 10 s budget.
func (h *Harness) writeLatency(d time.Duration) time.Duration {
	if h.chance(h.dev.Harness.SlowWrite) {
		return h.ms(8000, 4000)
	}
	return d
}

// cancelLatency: a cancelled Turn usually stops at once; sometimes 8–18 s
// later, either side of the daemon's 10 s settlement wait (and, with the
// receipt's way back, of Core's 15 s confirmation).
func (h *Harness) cancelLatency() time.Duration {
	if h.chance(h.dev.Harness.SlowCancel) {
		return h.ms(8000, 10000)
	}
	return h.latency() + h.latency()
}

// glacialPrepare: with Config.GlacialPrepare the device's first
// preparation takes 290–320 s, either side of the 5-minute admission expiry,
// so the documented expiry itself decides (not only a seed's short one).
// So does its first preparation after heal, if it begins within
// glacialHealWindow of it: faults end at heal, so that admission's
// connection usually lives the 5 minutes, where the first one's often
// dies with a fault.
func (h *Harness) glacialPrepare(now time.Time, d time.Duration) time.Duration {
	dev := h.dev
	if !dev.Harness.GlacialPrepare {
		return d
	}
	switch {
	case !dev.glacialDone:
		dev.glacialDone = true
		dev.glacialHealed = !dev.healedAt.IsZero() // it is the one after heal too
	case !dev.glacialHealed && !dev.healedAt.IsZero():
		dev.glacialHealed = true
		if now.Sub(dev.healedAt) > glacialHealWindow {
			return d
		}
	default:
		return d
	}
	return h.ms(290_000, 30_000)
}

// glacialHealWindow bounds how long after heal a preparation may still be
// the glacial one: the liveness deadline allows 330 s for it past heal
// and keeps slack beyond (sim/world livenessBase).
const glacialHealWindow = 60 * time.Second

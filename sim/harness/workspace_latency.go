package harness

import (
	"math/rand/v2"
	"time"
)

// Native workspace latencies around Core's waits. A read, an install or
// an export answered a few milliseconds after its call never lets Core's
// 17 s read, 195 s write or 180 s export wait decide; so in the seeds
// that enable Config.SlowWorkspace (two in three) a native read or
// install is sometimes slow and every export is, each drawn either side
// of the wait it counts against: a read 14–20 s, an install 190–200 s,
// an export 176–188 s (and one runtime_prepare transfer per device
// stages each chunk in 100–130 s, slowStageDrawn). The wait then ends some of them (Core
// answers timeout, the write stays unknown until its late receipt) and
// the native answer beats it in others.
const (
	slowReadMin    = 14 * time.Second
	slowReadMax    = 20 * time.Second
	slowInstallMin = 190 * time.Second
	slowInstallMax = SlowInstallMax
	slowExportMin  = 176 * time.Second
	slowExportMax  = 188 * time.Second
	slowStageMin   = 100 * time.Second
	slowStageMax   = 130 * time.Second
)

// SlowInstallMax bounds a slow native install: the simulated world's
// liveness phase allows it for every workspace write a Session plans.
const SlowInstallMax = 200 * time.Second

// wsOp names the native workspace call a latency is drawn for.
type wsOp int

const (
	wsRead wsOp = iota
	wsInstall
	wsExport
)

// drawSlowWorkspace is Config.SlowWorkspace: 0 in a third of the seeds,
// else a chance of 3–6 in 8.
func drawSlowWorkspace(r *rand.Rand) int {
	on, n := r.IntN(3) > 0, 3+r.IntN(4)
	if !on {
		return 0
	}
	return n
}

// wsLatency is a native workspace call's latency: long under a stall
// fault, around Core's wait for op when the seed's slow chance draws it,
// else the Harness's usual latency.
func (h *Harness) wsLatency(op wsOp) time.Duration {
	if h.take(WorkspaceStall) {
		lo, hi := WorkspaceStallShortMin, WorkspaceStallShortMax
		if h.r.IntN(2) == 0 {
			lo, hi = WorkspaceStallLongMin, WorkspaceStallLongMax
		}
		return h.between(lo, hi)
	}
	switch {
	case op == wsExport && h.dev.Harness.SlowWorkspace > 0:
		// exports are the rarest call: every one of the seed is slow
		return h.between(slowExportMin, slowExportMax)
	case !h.chance(h.dev.Harness.SlowWorkspace):
		return h.latency()
	case op == wsRead:
		return h.between(slowReadMin, slowReadMax)
	}
	return h.between(slowInstallMin, slowInstallMax)
}

// between draws a latency in [lo, hi) in whole milliseconds.
func (h *Harness) between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(h.r.Int64N(int64((hi-lo)/time.Millisecond)))*time.Millisecond
}

// slowStageDrawn: in the seeds that enable Config.SlowWorkspace, the
// device's one slow runtime_prepare transfer starts at a chunk the slow
// chance draws. Every chunk of a slow transfer stages in 100–130 s, so a
// transfer of one chunk stays inside Core's 195 s exchange and one of two
// or more outlasts it (and the daemon's expiry of the same length). One
// per device keeps the Environment definitions a Session waits for within
// the liveness phase.
func (h *Harness) slowStageDrawn() bool {
	if h.dev.slowStaged || !h.chance(h.dev.Harness.SlowWorkspace) {
		return false
	}
	h.dev.slowStaged = true
	return true
}

package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
)

// Export cancels behind a stalled link. Core's export cancel is best
// effort within 2 s (wire reference §3.11 step 4, §6.2): a shell drops
// it, leaving the connection open, when it could not leave in time. In
// half the seeds with faults (drawn once from the "export-cancel" stream,
// apart from every other draw), the streaming client goes away after the
// first chunk of half its streamed exports (Core then cancels them), and
// whenever Core sends an export cancel, Core's direction of that
// connection is stalled for 0.5–4 s: the cancel leaves within its budget
// or is dropped, and a cancel written past its budget shows in the
// export-cancel oracle (workspace_export_cancel_budget). A stall is a
// transport delay a WebSocket can have; the frames behind the cancel are
// held, not lost.
type exportCancelStall struct {
	r *rand.Rand // nil: not in this seed
}

// exportCancelStallMin and exportCancelStallMax bound one stall.
const (
	exportCancelStallMin = 500 * time.Millisecond
	exportCancelStallMax = 4 * time.Second
)

// exportAbandonPrefix starts the timers of a streaming client that goes
// away instead of taking its chunk.
const exportAbandonPrefix = "export-abandon/"

func (u *universe) initExportCancelStall() {
	r := u.w.Rand("export-cancel")
	if r.IntN(2) == 0 && !u.faultFree() {
		u.exportCancelStall = exportCancelStall{r: r}
	}
}

// exportCancelSent stalls Core's direction of conn as Core sends an
// export cancel on it (the cancel is queued behind the stall).
func (u *universe) exportCancelSent(conn core.ConnID) {
	s := &u.exportCancelStall
	if s.r == nil {
		return
	}
	d := exportCancelStallMin + time.Duration(s.r.Int64N(int64(exportCancelStallMax-exportCancelStallMin)))
	u.w.Stall(sim.ConnID(conn), coreID, d)
}

// streamedExportsPerSession is how many streamed exports such a seed adds
// to each Session with an Environment.
const streamedExportsPerSession = 2

// planStreamedExports adds, in such a seed, streamed exports of s at
// random instants of the workspace workload's window (exports are a
// seventh of its operations otherwise, too few to meet a stall).
func (u *universe) planStreamedExports(now time.Time, s *wSession) {
	r := u.exportCancelStall.r
	if r == nil {
		return
	}
	for range streamedExportsPerSession {
		at := time.Duration(200+r.IntN(30000)) * time.Millisecond
		u.wl.after(now, at, func(now time.Time) {
			if s.id != "" {
				u.wl.exportCall(now, s, true)
			}
		})
	}
}

// abandonsExport: whether the streaming client goes away instead of
// taking the first chunk of an export.
func (u *universe) abandonsExport(first bool) bool {
	s := &u.exportCancelStall
	return s.r != nil && first && s.r.IntN(2) == 0
}

package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// A stale subagent observation. In half the seeds with faults (drawn once
// from the "subagent-stale" stream, apart from every other draw), when a
// daemon's subagent_identity passes towards Core, a peer in the middle
// sends Core, 1 ms later on the same connection and under the same Run
// ID, half the time an observation that breaks the freshness rules: a
// lifecycle of a native_id that was never identified, or an item of a
// subagent turn the Run never reported (at most subagentStaleMax a seed).
// Core must refuse it; subagent_record (sim/check/subagents.go) sees a
// recorded one as a report the Harness did not make. Mark
// subagent_stale_forged.
type subagentStale struct {
	r    *rand.Rand // nil: not in this seed
	left int
}

const subagentStaleMax = 4

func (u *universe) initSubagentStale() {
	r := u.w.Rand("subagent-stale")
	if r.IntN(2) == 0 && !u.faultFree() {
		u.subagentStale = subagentStale{r: r, left: subagentStaleMax}
	}
}

// forgeStaleSubagent reads one honest frame sent on conn.
func (u *universe) forgeStaleSubagent(conn sim.ConnID, from sim.NodeID, f wire.Frame) {
	s := &u.subagentStale
	id, ok := f.Payload.(wire.SubagentIdentity)
	if s.r == nil || s.left == 0 || !ok || from == coreID || s.r.IntN(2) == 0 {
		return
	}
	s.left--
	var p wire.Payload = wire.SubagentLifecycle{NativeID: id.NativeID + "/unborn", EffectID: "forged", Status: "running"}
	if s.r.IntN(2) == 0 {
		p = wire.SubagentItem{NativeID: id.NativeID, TurnID: "unreported", ItemID: "forged", Kind: "message", Payload: []byte(`{}`)}
	}
	u.w.After(time.Millisecond, "", func() {
		if u.w.Forge(conn, from, encodeFrame(f.ID, p)) {
			u.mark(check.MarkSubagentStaleForged)
		}
	})
}

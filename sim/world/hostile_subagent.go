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
// Likewise behind the done of a Run that reported a subagent, half the
// time, and every time Core had sent the Run a prompt_cancel (its Turn
// may then still await the cancel receipt, not yet terminal), a new
// subagent_identity for the Run: nothing may be recorded for a Run after
// its done. Core must refuse them; subagent_record
// (sim/check/subagents.go) sees a recorded one as a report the Harness
// did not make. Marks subagent_stale_forged and subagent_after_done_forged.
type subagentStale struct {
	r    *rand.Rand        // nil: not in this seed
	left int               // stale forgeries left
	late int               // forgeries behind done left
	runs map[string]string // conn/run → a native_id the Run identified
	// cancelled: conn/run → Core sent the Run a prompt_cancel
	cancelled map[string]bool
}

const subagentStaleMax = 4

func (u *universe) initSubagentStale() {
	r := u.w.Rand("subagent-stale")
	if r.IntN(2) == 0 && !u.faultFree() {
		u.subagentStale = subagentStale{r: r, left: subagentStaleMax, late: subagentStaleMax, runs: map[string]string{}, cancelled: map[string]bool{}}
	}
}

// forgeStaleSubagent reads one honest frame sent on conn.
func (u *universe) forgeStaleSubagent(conn sim.ConnID, from sim.NodeID, f wire.Frame) {
	s := &u.subagentStale
	if s.r == nil {
		return
	}
	if from == coreID {
		if _, ok := f.Payload.(wire.PromptCancel); ok {
			s.cancelled[statusKey(conn, f.ID)] = true
		}
		return
	}
	if _, done := f.Payload.(wire.Done); done {
		u.forgeAfterDone(conn, from, f.ID)
		return
	}
	id, ok := f.Payload.(wire.SubagentIdentity)
	if !ok {
		return
	}
	s.runs[statusKey(conn, f.ID)] = id.NativeID
	if s.left == 0 || s.r.IntN(2) == 0 {
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

// forgeAfterDone: behind the done of a Run that identified a subagent, a
// new identity for the Run.
func (u *universe) forgeAfterDone(conn sim.ConnID, from sim.NodeID, run string) {
	s := &u.subagentStale
	k := statusKey(conn, run)
	native, ok := s.runs[k]
	if !ok {
		return
	}
	delete(s.runs, k)
	cancelled := s.cancelled[k]
	delete(s.cancelled, k)
	if s.late == 0 || !cancelled && s.r.IntN(2) == 0 {
		return
	}
	s.late--
	p := wire.SubagentIdentity{NativeID: native + "/late", ParentNativeID: native}
	u.w.After(time.Millisecond, "", func() {
		if u.w.Forge(conn, from, encodeFrame(run, p)) {
			u.mark(check.MarkSubagentAfterDoneForged)
		}
	})
}

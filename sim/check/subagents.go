package check

import (
	"bytes"
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// Check: subagent_record (Rules). The Harness's ground truth is every
// subagent report its native Turn emitted, per Run, in output order
// (NativeSubagent); Core's record is the Turn's list of accepted
// observations each time its durable record changes (CoreSubagents),
// judged after each step as a prefix of its Runs' reports, frame for
// frame. Core persists a Run's done taken on the Run's live route (every
// earlier frame of the connection reached it), and the simulated Harness
// reports only fresh observations (identity first, items inside their
// subagent turn) and only for a Run prepared with
// observe_subagent_identities, so none may be missing then. A report the
// Harness made for a Run that did not ask (NativeSubagentUnasked) is
// judged on the frames its daemon sends (core-runtime: 未携带显式启用项的请求
// 保留未启用时的 frame 和字段).
//
// The simulated Harness never makes the same report twice in a Run, so a
// frame a peer in the middle duplicates or replays (hostile_proxy) that
// Core records shows as a report the Harness did not make.

// CheckSubagentRecord is rule subagent_record (Rules).
const CheckSubagentRecord = "subagent_record"

const (
	// Core persisted the done of a Run whose Harness reported subagent
	// observations, and held all of them
	MarkSubagentRecorded Mark = "subagent_recorded"
	// a peer in the middle sent Core a stale subagent observation
	// (sim/world/hostile_subagent.go)
	MarkSubagentStaleForged Mark = "subagent_stale_forged"
	// a peer in the middle sent Core a subagent observation behind its
	// Run's done (sim/world/hostile_subagent.go)
	MarkSubagentAfterDoneForged Mark = "subagent_after_done_forged"
	// the Harness reported a subagent for a Run that did not ask, and the
	// Run's done left its daemon without it
	MarkSubagentUnaskedDropped Mark = "subagent_unasked_dropped"
)

// SubagentEntry is one observation of Core's record of a Turn: its Run and
// frame (wire.Encode of the envelope).
type SubagentEntry struct {
	Run   string
	Frame []byte
}

type subagentState struct {
	unasked map[string]bool            // run → the Harness reported a subagent it was not asked for
	native  map[string][][]byte        // run → the Harness's reports, encoded
	core    map[string][]SubagentEntry // turn → Core's latest record
	ended   map[string]int             // run → Core's count of its observations when it persisted done
}

// NativeSubagent records the Harness emitting subagent observation p of
// run.
func (l *Ledger) NativeSubagent(at int64, run string, p wire.Payload) {
	b, err := wire.Encode(wire.Frame{ID: run, Payload: p})
	if err != nil {
		l.violate(at, CheckSubagentRecord, "run %s: the Harness reported an invalid %s: %v", run, p.MessageType(), err)
		return
	}
	s := &l.subagents
	made(&s.native)[run] = append(s.native[run], b)
}

// NativeSubagentUnasked records the Harness emitting subagent observation
// p of run although run's executor was not prepared to observe them.
func (l *Ledger) NativeSubagentUnasked(at int64, run string, p wire.Payload) {
	made(&l.subagents.unasked)[run] = true
}

// observeUnaskedSubagents judges the frames daemons send: none is a
// subagent observation of a Run that did not ask for them; a Run's done
// leaving without one is the mark.
func (l *Ledger) observeUnaskedSubagents(ev WireEvent) {
	if ev.Kind != WireSent || ev.From == CoreNode || !ev.HasFrame() || !l.subagents.unasked[ev.Frame.ID] {
		return
	}
	switch p := ev.Frame.Payload.(type) {
	case wire.SubagentIdentity, wire.SubagentLifecycle, wire.SubagentTurn, wire.SubagentItem:
		l.violate(ev.At, CheckSubagentRecord, "%s sent %s of run %s, whose executor was not prepared with observe_subagent_identities",
			ev.From, p.MessageType(), ev.Frame.ID)
	case wire.Done:
		l.reach(MarkSubagentUnaskedDropped)
	}
}

// CoreSubagents records Core's durable list of turn's subagent
// observations after a change.
func (l *Ledger) CoreSubagents(at int64, turn string, entries []SubagentEntry) {
	s := &l.subagents
	old := s.core[turn]
	made(&s.core)[turn] = entries
	runs := l.core.turns[turn]
	perRun := map[string]int{}
	for i, e := range entries {
		if i < len(old) && (old[i].Run != e.Run || !bytes.Equal(old[i].Frame, e.Frame)) {
			l.violate(at, CheckSubagentRecord, "turn %s: Core rewrote its subagent observation %d", turn, i)
			return
		}
		if runs == nil || !slices.Contains(runs.runs, e.Run) {
			l.violate(at, CheckSubagentRecord, "turn %s: Core recorded a subagent observation of run %s, not a run it started for the turn", turn, e.Run)
			return
		}
		n := perRun[e.Run]
		perRun[e.Run] = n + 1
		native := s.native[e.Run]
		switch {
		case n >= len(native):
			l.violate(at, CheckSubagentRecord, "run %s: Core recorded subagent observation %d (%s) but the Harness reported only %d",
				e.Run, n+1, e.Frame, len(native))
			return
		case !bytes.Equal(native[n], e.Frame):
			l.violate(at, CheckSubagentRecord, "run %s: Core's subagent observation %d is %s; the Harness reported %s",
				e.Run, n+1, e.Frame, native[n])
			return
		}
		if end, ok := s.ended[e.Run]; ok && n+1 > end {
			l.violate(at, CheckSubagentRecord, "run %s: Core recorded subagent observation %d after the run's done", e.Run, n+1)
			return
		}
	}
}

// subagentDone judges Core persisting run's done: it holds every report
// the Harness made for the run.
func (l *Ledger) subagentDone(at int64, run string) {
	s := &l.subagents
	r := l.core.runs[run]
	if r == nil {
		return
	}
	n := 0
	for _, e := range s.core[r.turn] {
		if e.Run == run {
			n++
		}
	}
	made(&s.ended)[run] = n
	if want := len(s.native[run]); n != want {
		l.violate(at, CheckSubagentRecord, "run %s: Core persisted done holding %d subagent observations; the Harness reported %d before it",
			run, n, want)
		return
	}
	if n > 0 {
		l.reach(MarkSubagentRecorded)
	}
}

package api

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
)

// A snapshot read while the one before it was not taken carries that
// one's run events first, Turn by Turn: the stream loses none.
func TestStreamSnapshotAfterKeepsEventsNotTaken(t *testing.T) {
	evs := func(from, to uint64) []core.RunEvent {
		var out []core.RunEvent
		for s := from; s <= to; s++ {
			out = append(out, core.RunEvent{Seq: s})
		}
		return out
	}
	turn := func(id string, e []core.RunEvent) streamTurn {
		return streamTurn{rec: core.TurnRecord{ID: id}, events: e}
	}
	earlier := streamSnapshot{turns: []streamTurn{turn("t-1", evs(3, 4)), turn("t-2", evs(1, 2))}}
	later := streamSnapshot{turns: []streamTurn{turn("t-2", evs(3, 5)), turn("t-3", evs(1, 1))}}
	got := later.after(earlier)
	seqs := func(t streamTurn) string {
		var s []uint64
		for _, e := range t.events {
			s = append(s, e.Seq)
		}
		return fmt.Sprint(t.rec.ID, s)
	}
	if len(got.turns) != 2 || seqs(got.turns[0]) != "t-2[1 2 3 4 5]" || seqs(got.turns[1]) != "t-3[1]" {
		t.Fatalf("merged %v %v", seqs(got.turns[0]), seqs(got.turns[1]))
	}
}

// Two snapshots handed over before the stream takes one arrive as one,
// the newer Turns' state with the run events of both; a take with
// nothing new is nil.
func TestStreamHandoffCoalescesRunEvents(t *testing.T) {
	h := newStreamHandoff()
	ev := func(s uint64) core.RunEvent { return core.RunEvent{Seq: s} }
	h.put(streamSnapshot{turns: []streamTurn{{rec: core.TurnRecord{ID: "t-1", State: core.TurnRunning}, events: []core.RunEvent{ev(1), ev(2)}}}}, true)
	h.put(streamSnapshot{turns: []streamTurn{{rec: core.TurnRecord{ID: "t-1", State: core.TurnCompleted}, events: []core.RunEvent{ev(3)}}}}, true)
	select {
	case <-h.wake:
	default:
		t.Fatal("no wake after a hand-over")
	}
	got, has := h.take()
	if !has || !got.ok || len(got.snap.turns) != 1 {
		t.Fatalf("took %+v", got)
	}
	tt := got.snap.turns[0]
	if tt.rec.State != core.TurnCompleted || len(tt.events) != 3 || tt.events[0].Seq != 1 || tt.events[2].Seq != 3 {
		t.Fatalf("coalesced turn %+v", tt)
	}
	if again, has := h.take(); has {
		t.Fatalf("second take %+v", again)
	}
	if sp := h.spare(); sp.turns != nil {
		t.Fatalf("spare before any release: %+v", sp)
	}
	h.release(got.snap)
	if sp := h.spare(); cap(sp.turns) == 0 || &sp.turns[:1][0] != &got.snap.turns[0] {
		t.Fatal("the released snapshot's storage is not offered for the next read")
	}
	if sp := h.spare(); sp.turns != nil {
		t.Fatal("a released snapshot offered twice")
	}
	h.put(streamSnapshot{}, false)
	if gone, has := h.take(); !has || gone.ok {
		t.Fatalf("gone session %+v", gone)
	}
}

// A Turn's mark changes only where derive may emit: the claim (queued to
// starting, its Run named) is no change; running, run events, an
// interaction and the end are.
func TestStreamMarkChangesWhereEventsAreDue(t *testing.T) {
	queued := core.TurnRecord{ID: "t-1", State: core.TurnQueued}
	starting := queued
	starting.State, starting.RunID = core.TurnStarting, "r-1"
	if markOf(queued) != markOf(starting) {
		t.Fatalf("the claim changed the mark: %+v %+v", markOf(queued), markOf(starting))
	}
	running := starting
	running.State = core.TurnRunning
	evented := starting
	evented.EventCount = 1
	asked := starting
	asked.Interactions = []core.InteractionRecord{{ID: "i-1"}}
	ended := starting
	ended.State = core.TurnCancelled
	endedUnstarted := queued
	endedUnstarted.State = core.TurnCancelled
	for name, rec := range map[string]core.TurnRecord{"running": running, "event": evented, "interaction": asked, "end": ended} {
		if markOf(rec) == markOf(starting) {
			t.Errorf("%s left the mark as it was", name)
		}
	}
	if markOf(ended) == markOf(endedUnstarted) {
		t.Error("a finished Turn's mark does not tell whether its Run started")
	}
}

// The marks of Turns the cursor moved past are dropped before the
// comparison, in place; marks starting at the first Turn stay.
func TestStreamMarksFromDropsTurnsPassed(t *testing.T) {
	prev := []turnMark{{id: "t-1"}, {id: "t-2", events: 3}, {id: "t-3"}}
	got := marksFrom(prev, "t-2")
	if len(got) != 2 || got[0].id != "t-2" || got[0].events != 3 || got[1].id != "t-3" || &got[0] != &prev[0] {
		t.Fatalf("from t-2: %+v", got)
	}
	if got := marksFrom([]turnMark{{id: "t-1"}}, "t-1"); len(got) != 1 {
		t.Fatalf("from the first Turn: %+v", got)
	}
	if got := marksFrom([]turnMark{{id: "t-1"}}, "t-9"); len(got) != 1 {
		t.Fatalf("from a Turn not marked: %+v", got)
	}
}

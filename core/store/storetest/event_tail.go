package storetest

import (
	"reflect"

	"github.com/turnstile-sim/turnstile/core"
)

// EventTail is the read of a Turn's later run events (server.EventLog):
// the events with a sequence above seq, a copy; none when seq is at or
// past the end or the Turn has no events.
type EventTail interface {
	EventsAfter(turn string, seq uint64) []core.RunEvent
}

// eventTail is h's store as an EventTail; the contract requires it.
func (h *rig) eventTail() EventTail {
	h.t.Helper()
	et, ok := h.st.(EventTail)
	if !ok {
		h.t.Fatalf("store %T does not implement EventsAfter", h.st)
	}
	return et
}

// verifyEventTails checks EventsAfter against the model for each turn
// key at every sequence from 0 to one past the end.
func (h *rig) verifyEventTails(when string, keys []string) {
	h.t.Helper()
	et := h.eventTail()
	for _, k := range keys {
		all := h.model.events[k]
		for seq := uint64(0); seq <= uint64(len(all))+1; seq++ {
			got := et.EventsAfter(k, seq)
			var want []core.RunEvent
			if seq < uint64(len(all)) {
				want = all[seq:]
			}
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				h.t.Fatalf("%s: EventsAfter(%q, %d) = %d events %+v, want %d %+v", when, k, seq, len(got), got, len(want), want)
			}
		}
	}
}

// scenarioEventTail reads the tail of event logs across commits and
// reopens: each read returns exactly the later events, and a caller
// changing what it got changes nothing in the store.
func scenarioEventTail(h *rig) {
	h.probes = []string{"t-none"}
	for range 5 {
		h.appendEvent("t-1")
	}
	h.appendEvent("t-2")
	h.verify("before commit")
	h.commit()
	h.appendEvent("t-1")
	h.crash()
	for range 3 {
		h.appendEvent("t-1")
	}
	h.commit()
	h.crash()
	n := uint64(len(h.model.events["t-1"]))
	tail := h.eventTail().EventsAfter("t-1", n-2)
	if len(tail) != 2 || tail[0].Seq != n-1 || tail[1].Seq != n {
		h.t.Fatalf("EventsAfter(t-1, %d) = %+v, want sequences %d and %d", n-2, tail, n-1, n)
	}
	tail[0].Type, tail[0].Seq = "x", 99
	_ = append(tail[:0], core.RunEvent{Seq: 42})
	h.verify("after mutating a returned tail")
}

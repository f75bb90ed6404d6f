package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Pushes and pops interleaved in any order pop items by (at, seq), each
// item whole, however the queue reuses the slots of popped items.
func TestQueueInterleavedOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	q := newQueue(1000)
	var model []item // pending, in push order
	for step := range 5000 {
		if q.len() == 0 || r.IntN(3) > 0 && q.len() < 900 {
			it := item{at: int64(r.IntN(50)), gen: uint64(step), text: "t"}
			q.push(it)
			it.seq = q.seq
			model = append(model, it)
			continue
		}
		i := 0
		for j, m := range model {
			if m.at < model[i].at || m.at == model[i].at && m.seq < model[i].seq {
				i = j
			}
		}
		want := model[i]
		model = slices.Delete(model, i, i+1)
		if got := q.pop(); got.at != want.at || got.seq != want.seq || got.gen != want.gen || got.text != want.text {
			t.Fatalf("step %d: popped %+v, want %+v", step, got, want)
		}
	}
	if q.len() != len(model) {
		t.Fatalf("queue holds %d items, model %d", q.len(), len(model))
	}
	if len(q.slots) > q.peak {
		t.Fatalf("%d slots for a peak of %d items: popped slots are not reused", len(q.slots), q.peak)
	}
}

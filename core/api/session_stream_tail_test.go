package api_test

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
)

// A long Turn's stream, which reads only the run events committed since
// its last read, sends every delta once and in order, then the final
// text, and a stream resumed in the middle sends exactly the rest.
func TestSessionStreamLongTurnSendsEachDeltaOnce(t *testing.T) {
	e := newEnv(t)
	const n = 60
	stop := e.connect(&scripted.Runtime{Deltas: n})
	defer stop()
	s := e.v1Session(inlineSession)
	ch, close := e.v1Stream(s.ID, "")
	e.postEvents(s.ID, helloMessage)
	evs := until(t, ch, api.EvSessionIdle)
	close()
	var deltas []sseEvent
	for _, ev := range evs {
		if ev.Type == api.EvOutputTextDelta {
			deltas = append(deltas, ev)
		}
	}
	if len(deltas) != n {
		t.Fatalf("%d deltas, want %d: %v", len(deltas), n, types(evs))
	}
	for i, ev := range deltas {
		if want := fmt.Sprintf("d%d ", i+1); ev.Data["delta"] != want {
			t.Fatalf("delta %d is %v, want %q", i, ev.Data["delta"], want)
		}
	}
	if last := evs[len(evs)-4]; last.Type != api.EvOutputTextDone || last.Data["text"] != "echo: hello" {
		t.Fatalf("final text %+v in %v", last, types(evs))
	}
	ch, close = e.v1Stream(s.ID, deltas[n/2].ID)
	rest := until(t, ch, api.EvSessionIdle)
	close()
	if len(rest) != len(evs)-(2+n/2+1) || rest[0].ID != deltas[n/2+1].ID || rest[0].Data["delta"] != fmt.Sprintf("d%d ", n/2+2) {
		t.Fatalf("resumed after delta %d: %v", n/2+1, types(rest))
	}
}

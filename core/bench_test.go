package core_test

import (
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

// BenchmarkCoreTurn runs one Turn from submit to done with 10 deltas
// through the machine and the memory store (frames already decoded: no
// JSON). Each iteration is the next Turn of one Session.
func BenchmarkCoreTurn(b *testing.B) {
	st := store.NewMemory()
	m := core.New(core.Config{}, st)
	m.Step(t0, core.ConnOpened{Device: "d1", Conn: 1})
	m.Step(t0, core.FrameReceived{Conn: 1, Frame: wire.Frame{Payload: heartbeat(baseCaps())}})
	input := wire.TextInput("hello")
	deltas := make([]wire.Frame, 10)
	for i := range deltas {
		deltas[i] = wire.Frame{Payload: wire.Delta{Delta: "token ", Sequence: uint64(i + 1)}}
	}
	ready := wire.PreparationStatus{ExecutorID: "e", Handle: "h", Revision: 1, State: wire.StateReady}
	started := wire.PreparationStatus{ExecutorID: "e", Handle: "h", Revision: 2, State: wire.StateStarted}
	done := wire.Done{Content: "token token", Metadata: &wire.DoneMetadata{AgentSessionID: "native-1"}}
	effs := m.Step(t0, core.CreateSession{Call: "c", Agent: defaultAgent()})
	sid := effs[0].(core.APIResult).SessionID
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		effs = m.Step(t0, core.SubmitTurn{Call: "c", Session: sid, Input: input})
		tid := effs[0].(core.APIResult).TurnID
		prepID := effs[1].(core.Send).Frame.ID
		m.Step(t0, core.FrameReceived{Conn: 1, Frame: wire.Frame{ID: prepID, Payload: ready}})
		m.Step(t0, core.FrameReceived{Conn: 1, Frame: wire.Frame{ID: prepID, Payload: started}})
		for _, d := range deltas {
			d.ID = tid
			m.Step(t0, core.FrameReceived{Conn: 1, Frame: d})
		}
		effs = m.Step(t0, core.FrameReceived{Conn: 1, Frame: wire.Frame{ID: tid, Payload: done}})
		if v, _ := m.Turn(tid); v.State != core.TurnCompleted {
			b.Fatalf("turn %s is %s", tid, v.State)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/turn")
}

package core_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
	"github.com/turnstile-sim/turnstile/wire"
)

// BenchmarkCoreTurn runs one Turn from submit to done with 10 deltas
// through the machine and the memory store (frames already decoded: no
// JSON). Each iteration is the next Turn of one Session.
func BenchmarkCoreTurn(b *testing.B) {
	benchmarkTurns(b, store.NewMemory(), func() {}, func() {})
}

// BenchmarkCoreTurnSQLite is BenchmarkCoreTurn over the SQLite store
// (synchronous=FULL: each Commit waits for the disk). commit=step commits
// after every Step, as a server loop that drains one event at a time
// does; commit=turn commits once per Turn, as a loop that drained the
// Turn's 14 Steps together would.
func BenchmarkCoreTurnSQLite(b *testing.B) {
	for _, perStep := range []bool{true, false} {
		name := "commit=turn"
		if perStep {
			name = "commit=step"
		}
		b.Run(name, func(b *testing.B) {
			st, err := sqlitestore.Open(b.TempDir())
			require.NoError(b, err)
			defer st.Close()
			commit := func() {
				if err := st.Commit(); err != nil {
					require.Fail(b, fmt.Sprint(err))
				}
			}
			if perStep {
				benchmarkTurns(b, st, commit, func() {})
			} else {
				benchmarkTurns(b, st, func() {}, commit)
			}
		})
	}
}

// benchmarkTurns drives Turns through a Machine over st, calling
// afterStep after every Step and afterTurn after every Turn. It reports
// ns/turn and persisted run events per second.
func benchmarkTurns(b *testing.B, st core.Store, afterStep, afterTurn func()) {
	m := core.New(testConfig(), st)
	step := func(ev core.Event) []core.Effect {
		effs := m.Step(t0, ev)
		afterStep()
		return effs
	}
	step(core.ConnOpened{Device: "d1", Conn: 1})
	step(core.FrameReceived{Conn: 1, Frame: wire.Frame{Payload: heartbeat(baseCaps())}})
	input := wire.TextInput("hello")
	deltas := make([]wire.Frame, 10)
	for i := range deltas {
		deltas[i] = wire.Frame{Payload: wire.Delta{Delta: "token ", Sequence: uint64(i + 1)}}
	}
	ready := wire.PreparationStatus{ExecutorID: "e", Handle: "h", Revision: 1, State: wire.StateReady}
	started := wire.PreparationStatus{ExecutorID: "e", Handle: "h", Revision: 2, State: wire.StateStarted}
	done := wire.Done{Content: "token token", Metadata: &wire.DoneMetadata{AgentSessionID: "native-1"}}
	effs := step(core.CreateSession{Call: "c", Agent: defaultAgent()})
	sid := effs[0].(core.APIResult).Value.(core.SessionCreated).Session
	afterTurn()
	var events uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		effs = step(core.SubmitTurn{Call: "c", Session: sid, Input: input})
		tid := effs[0].(core.APIResult).Value.(core.TurnSubmitted).Turn
		prepID := effs[1].(core.Send).Frame.ID
		step(core.FrameReceived{Conn: 1, Frame: wire.Frame{ID: prepID, Payload: ready}})
		step(core.FrameReceived{Conn: 1, Frame: wire.Frame{ID: prepID, Payload: started}})
		for _, d := range deltas {
			d.ID = tid
			step(core.FrameReceived{Conn: 1, Frame: d})
		}
		step(core.FrameReceived{Conn: 1, Frame: wire.Frame{ID: tid, Payload: done}})
		afterTurn()
		v, _ := m.Turn(tid)
		require.Equalf(b, core.TurnCompleted, v.State, "turn %s is %s", tid, v.State)
		events += uint64(len(st.Events(tid)))
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/turn")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

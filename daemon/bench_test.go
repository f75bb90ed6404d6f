package daemon

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func findCall[O Op](effs []Effect) (CallID, O) {
	for _, e := range effs {
		if c, ok := e.(NativeCall); ok {
			if o, ok := c.Op.(O); ok {
				return c.Call, o
			}
		}
	}
	var zero O
	return "", zero
}

func findStatus(effs []Effect) wire.PreparationStatus {
	for _, e := range effs {
		if s, ok := e.(Send); ok {
			if p, ok := s.Frame.Payload.(wire.PreparationStatus); ok {
				return p
			}
		}
	}
	return wire.PreparationStatus{}
}

// BenchmarkDaemonTurn runs one full turn per iteration through the
// machine, no encoding: prepare (native), start, ten deltas, native done,
// settlement (not reusable), confirmed close, done.
func BenchmarkDaemonTurn(b *testing.B) {
	m := New(testConfig())
	now := t0
	m.Step(now, ConnOpened{Conn: 1})
	reqs := make([]string, 2*wire.AdmissionRecordsMax)
	for i := range reqs {
		reqs[i] = "p" + strconv.Itoa(i)
	}
	prep := prepareFor("s1")
	input := wire.TextInput("hello")
	deltas := make([]NativeTurnEvent, 10)
	recv := func(id string, p wire.Payload) []Effect {
		return m.Step(now, FrameReceived{Conn: 1, Frame: wire.Frame{ID: id, Payload: p}})
	}
	runs := make([]string, b.N) // a Run ID is used once per connection
	for i := range runs {
		runs[i] = "run" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now = now.Add(time.Millisecond)
		req := reqs[i%len(reqs)]
		effs := recv(req, prep)
		c, _ := findCall[Prepare](effs)
		st := findStatus(m.Step(now, NativeResult{Call: c, Result: PrepareResult{}}))
		effs = recv(req, wire.ExecutionStart{ExecutorID: st.ExecutorID, Handle: st.Handle, RunID: runs[i], Input: input})
		c, op := findCall[StartTurn](effs)
		m.Step(now, NativeResult{Call: c, Result: StartResult{Turn: true}})
		for j := range deltas {
			deltas[j] = NativeTurnEvent{Turn: op.Turn, Event: wire.Delta{Delta: "x", Sequence: uint64(j + 1)}}
			m.Step(now, deltas[j])
		}
		effs = m.Step(now, NativeTurnEvent{Turn: op.Turn, Event: wire.Done{Content: "ok"}})
		c, _ = findCall[AwaitSettlement](effs)
		effs = m.Step(now, NativeResult{Call: c, Result: SettleResult{Settled: true, Reusable: false, Reason: "bench"}})
		c, _ = findCall[CloseExecutor](effs)
		effs = m.Step(now, NativeResult{Call: c, Result: CloseResult{}})
		if !sentDone(effs, runs[i]) {
			require.Fail(b, fmt.Sprintf("no done frame for run: %s", describeAll(effs)))
		}
	}
}

// sentDone reports whether effs send a done frame on run.
func sentDone(effs []Effect, run string) bool {
	for _, e := range effs {
		if s, ok := e.(Send); ok && s.Frame.ID == run {
			if _, ok := s.Frame.Payload.(wire.Done); ok {
				return true
			}
		}
	}
	return false
}

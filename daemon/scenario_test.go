package daemon

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// The shared wire scenarios (wire-reference §7), played against the
// machine: Core's frames are decoded from their reference JSON, the
// Runtime's frames are encoded and compared with the reference after the
// Runtime-generated placeholders (executor, handle, expires_at) are bound
// to the first values the machine sent.

type scenario struct {
	t        *testing.T
	r        *rig
	bindings map[string]string
}

func newScenario(t *testing.T) *scenario {
	cfg := testConfig()
	return &scenario{t: t, r: newRigWith(t, cfg), bindings: map[string]string{}}
}

// core decodes a reference Core frame and feeds it to the machine.
func (s *scenario) core(frame string) {
	s.t.Helper()
	f, err := wire.Decode([]byte(frame))
	require.NoErrorf(s.t, err, "reference frame does not decode: %v\n%s", err, frame)
	s.r.step(FrameReceived{Conn: s.r.gen, Frame: f})
}

// runtime checks the Runtime frames of the last step against references.
func (s *scenario) runtime(want ...string) {
	s.t.Helper()
	got := s.r.sent()
	if len(got) != len(want) {
		require.Fail(s.t, fmt.Sprintf("want %d frames, got %s", len(want), describeAll(s.r.out)))
	}
	for i, f := range got {
		b, err := wire.Encode(f)
		require.NoErrorf(s.t, err, "frame %d does not encode: %v", i, err)
		if norm := s.bind(string(b)); norm != want[i] {
			require.Fail(s.t, fmt.Sprintf("frame %d:\n got %s\nwant %s", i, norm, want[i]))
		}
	}
}

// bind replaces Runtime-generated values with their placeholders.
func (s *scenario) bind(frame string) string {
	for _, key := range []string{"executor_id", "handle", "expires_at"} {
		frame = s.bindMember(frame, key)
	}
	return frame
}

func (s *scenario) bindMember(frame, key string) string {
	placeholder := map[string]string{"executor_id": `"executor"`, "handle": `"handle"`, "expires_at": "1800000000000"}[key]
	marker := `"` + key + `":`
	i := strings.Index(frame, marker)
	if i < 0 {
		return frame
	}
	start := i + len(marker)
	end := start + strings.IndexAny(frame[start:], ",}")
	value := frame[start:end]
	if bound, ok := s.bindings[key]; !ok {
		s.bindings[key] = value
	} else if bound != value {
		require.Fail(s.t, fmt.Sprintf("%s changed from %s to %s", key, bound, value))
	}
	return frame[:start] + placeholder + frame[end:]
}

const (
	refPrepare = `{"type":"execution_prepare","id":"prepare","payload":{"session_id":"session","configuration":{"agent_kind":"contract","conversation_id":"","run_id":"","agent_state_key":"agents-api-session","strict_resume":true,"disable_execution_environment":true}}}`
	refStart   = `{"type":"execution_start","id":"prepare","payload":{"executor_id":"EX","handle":"HD","run_id":"run","input":[{"content":[{"type":"input_text","text":"hello"}]}]}}`
	refStatus  = `{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":%d,"state":"%s","expires_at":1800000000000}}`
	refRunStat = `{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":%d,"state":"%s","run_id":"run"}}`
)

func status(format string, rev int, state string) string {
	return strings.Replace(strings.Replace(format, "%d", strconv.Itoa(rev), 1), "%s", state, 1)
}

// started plays the common prefix: prepare, preparing, ready, start,
// starting, started.
func (s *scenario) started() TurnID {
	s.core(refPrepare)
	s.runtime(status(refStatus, 1, "preparing"))
	c, _ := callOf[Prepare](s.r)
	s.r.result(c, PrepareResult{})
	s.runtime(status(refStatus, 2, "ready"))
	start := strings.NewReplacer(`"EX"`, s.bindings["executor_id"], `"HD"`, s.bindings["handle"]).Replace(refStart)
	s.core(start)
	s.runtime(status(refRunStat, 3, "starting"))
	c, op := callOf[StartTurn](s.r)
	s.r.result(c, StartResult{Turn: true})
	s.runtime(status(refRunStat, 4, "started"))
	return op.Turn
}

func TestScenarioCancellationWaitsForSettlement(t *testing.T) {
	s := newScenario(t)
	turn := s.started()
	turnOf := func(*scenario) TurnID { return turn }
	s.core(`{"type":"prompt_cancel","id":"run","payload":{"delivery_id":"cancel"}}`)
	s.runtime() // no receipt precedes settlement
	c, _ := callOf[AwaitSettlement](s.r)
	// The native side ends its output (an empty terminal result) before
	// it settles; done republishes that, the receipt carries the outcome.
	s.r.step(NativeTurnEvent{Turn: turnOf(s), Event: wire.Done{}})
	s.runtime()
	s.r.result(c, SettleResult{Settled: true, Reusable: true,
		Outcome: wire.Done{Content: "partial", Metadata: &wire.DoneMetadata{AgentSessionID: "native-session"}}})
	s.runtime(
		`{"type":"done","id":"run","payload":{"content":""}}`,
		`{"type":"interaction_decision_ack","id":"run","payload":{"delivery_id":"cancel","applied":true,"outcome":{"content":"partial","metadata":{"agent_session_id":"native-session"}}}}`,
	)
}

func TestScenarioPreparationFailureCleansUpWithoutRunCompletion(t *testing.T) {
	s := newScenario(t)
	s.core(refPrepare)
	s.runtime(status(refStatus, 1, "preparing"))
	c, _ := callOf[Prepare](s.r)
	s.r.result(c, PrepareResult{Err: "native setup failed"})
	s.runtime(`{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":2,"state":"failed","error_code":"preparation_failed"}}`)
	for _, e := range s.r.all {
		if send, ok := e.(Send); ok && send.Frame.ID == "run" {
			require.Fail(t, fmt.Sprintf("run output after a failed preparation: %s", send.Describe()))
		}
	}
}

func TestScenarioDisconnectIsUnknownAndReconnectDoesNotReplay(t *testing.T) {
	s := newScenario(t)
	turn := s.started()
	s.r.step(ConnClosed{Conn: s.r.gen})
	s.runtime() // no fabricated error or done
	s.r.connect()
	require.Equal(t, "heartbeat", frameTypes(s.r.sent()), "the new connection starts with a heartbeat only")
	c, _ := callOf[AwaitSettlement](&rig{t: t, out: s.r.all})
	s.r.result(c, SettleResult{Settled: true, Reusable: true})
	s.r.step(NativeTurnEvent{Turn: turn, Event: wire.Delta{Delta: "late"}})
	for _, e := range s.r.all {
		if send, ok := e.(Send); ok && send.Conn == s.r.gen && send.Frame.ID != "" {
			require.Fail(t, fmt.Sprintf("replayed on the new connection: %s", send.Describe()))
		}
	}
}

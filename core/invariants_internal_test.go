package core

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// memStore is a minimal Store for internal tests (package store imports
// core, so it cannot be used here).
type memStore struct {
	ctr      Counters
	sessions []SessionRecord
	turns    []TurnRecord
	inputs   map[string][]InputRecord
	events   map[string][]RunEvent
}

func newMemStore() *memStore {
	return &memStore{inputs: map[string][]InputRecord{}, events: map[string][]RunEvent{}}
}

func (s *memStore) Counters() Counters      { return s.ctr }
func (s *memStore) SaveCounters(c Counters) { s.ctr = c }
func (s *memStore) PutSession(r SessionRecord) {
	for i := range s.sessions {
		if s.sessions[i].ID == r.ID {
			s.sessions[i] = r
			return
		}
	}
	s.sessions = append(s.sessions, r)
}
func (s *memStore) Session(id string) (SessionRecord, bool) {
	for _, r := range s.sessions {
		if r.ID == id {
			return r, true
		}
	}
	return SessionRecord{}, false
}
func (s *memStore) Sessions() []SessionRecord { return append([]SessionRecord(nil), s.sessions...) }
func (s *memStore) PutTurn(r TurnRecord) {
	for i := range s.turns {
		if s.turns[i].ID == r.ID {
			s.turns[i] = r
			return
		}
	}
	s.turns = append(s.turns, r)
}
func (s *memStore) Turn(id string) (TurnRecord, bool) {
	for _, r := range s.turns {
		if r.ID == id {
			return r, true
		}
	}
	return TurnRecord{}, false
}
func (s *memStore) Turns() []TurnRecord { return append([]TurnRecord(nil), s.turns...) }
func (s *memStore) PutInput(turn string, in InputRecord) {
	l := s.inputs[turn]
	if in.Index <= len(l) {
		l[in.Index-1] = in
		return
	}
	s.inputs[turn] = append(l, in)
}
func (s *memStore) Inputs(turn string) []InputRecord {
	return append([]InputRecord(nil), s.inputs[turn]...)
}
func (s *memStore) AppendEvent(turn string, ev RunEvent) { s.events[turn] = append(s.events[turn], ev) }
func (s *memStore) Events(turn string) []RunEvent {
	return append([]RunEvent(nil), s.events[turn]...)
}

var now0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// runningMachine returns a machine with one running Turn "t-1" on conn 1
// and one queued active input.
func runningMachine(t *testing.T) *Machine {
	m := New(Config{}, newMemStore())
	caps := wire.AllCapabilities(wire.CapabilitySupported)
	m.Step(now0, ConnOpened{Device: "d1", Conn: 1})
	m.Step(now0, FrameReceived{Conn: 1, Frame: wire.Frame{Payload: wire.Heartbeat{
		SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: "synthetic", Available: true, Capabilities: caps}}}}})
	m.Step(now0, CreateSession{Call: "c", Agent: AgentConfig{Kind: "synthetic", Model: "m", Environment: EnvNone}})
	m.Step(now0, SubmitTurn{Call: "c", Session: "s-1", Input: wire.TextInput("x")})
	st := wire.PreparationStatus{ExecutorID: "e", Handle: "h", Revision: 1, State: wire.StateReady}
	m.Step(now0, FrameReceived{Conn: 1, Frame: wire.Frame{ID: "p-1", Payload: st}})
	st.Revision, st.State = 2, wire.StateStarted
	m.Step(now0, FrameReceived{Conn: 1, Frame: wire.Frame{ID: "p-1", Payload: st}})
	m.Step(now0, SteerInput{Call: "c", Turn: "t-1", Input: wire.TextInput("a")})
	m.Step(now0, SteerInput{Call: "c", Turn: "t-1", Input: wire.TextInput("b")})
	if m.turns["t-1"].rec.State != TurnRunning {
		require.Fail(t, fmt.Sprintf("setup: turn is %s", m.turns["t-1"].rec.State))
	}
	return m
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		require.Truef(t, r != nil, "no panic; want %q", want)
		if s := fmt.Sprint(r); !strings.Contains(s, want) {
			require.Fail(t, fmt.Sprintf("panic %v; want it to mention %q", r, want))
		}
	}()
	f()
}

func TestCheckInvariantsCatchesCorruption(t *testing.T) {
	cases := map[string]struct {
		corrupt func(m *Machine)
		want    string
	}{
		"cursor past accepted": {func(m *Machine) { m.turns["t-1"].rec.InputCursor = 1 }, "below cursor"},
		"delivered after cursor": {func(m *Machine) {
			m.turns["t-1"].inputs[1].State = InputDelivering
		}, "after cursor"},
		"terminal still live": {func(m *Machine) { m.turns["t-1"].rec.State = TurnCompleted }, "terminal turn"},
		"route lost":          {func(m *Machine) { delete(m.runs, "t-1") }, "without a live route"},
		"second active turn": {func(m *Machine) {
			q := m.sessions["s-1"]
			q.queue = append(q.queue, &turn{rec: TurnRecord{ID: "t-9", Seq: 9, State: TurnRunning}})
		}, "finished turn"},
		"device conn mismatch":  {func(m *Machine) { m.devices["d1"].conn = 7 }, "current connection"},
		"negative run count":    {func(m *Machine) { m.conns[1].runs = -1 }, "negative"},
		"done while live":       {func(m *Machine) { m.turns["t-1"].rec.Done = &wire.Done{} }, "after done"},
		"input index":           {func(m *Machine) { m.turns["t-1"].inputs[0].Index = 5 }, "index"},
		"subscriber of nothing": {func(m *Machine) { m.subs["x"] = &subscriber{id: "x", turn: "t-404"} }, "subscriber"},
		"subscriber of a stale turn": {func(m *Machine) {
			m.addSub(&subscriber{id: "x", turn: "t-1", t: &turn{rec: TurnRecord{ID: "t-1"}}})
		}, "subscriber"},
		"subscriber renamed": {func(m *Machine) {
			m.addSub(&subscriber{id: "x", turn: "t-1", t: m.turns["t-1"]})
			m.subList[len(m.subList)-1].id = "y"
		}, "listed"},
		"turn entered twice":   {func(m *Machine) { m.turns["t-9"] = m.turns["t-1"] }, "unfinished"},
		"turn renamed":         {func(m *Machine) { m.turns["t-1"].rec.ID = "t-7" }, "listed"},
		"turn off its slot":    {func(m *Machine) { m.turnList = append(m.turnList, m.turnList[0]) }, "unfinished"},
		"session renamed":      {func(m *Machine) { m.sessions["s-1"].rec.ID = "s-7" }, "order mismatch"},
		"session listed twice": {func(m *Machine) { m.order = append(m.order, m.order[0]) }, "order size"},
		"preparation entered twice": {func(m *Machine) {
			p := &preparation{reqID: "p-9", turn: m.turns["t-1"], sess: m.sessions["s-1"], conn: m.conns[1]}
			m.preps["p-9"] = p
		}, "open"},
		"cursor without inputs": {func(m *Machine) {
			tt := m.turns["t-1"]
			tt.inputs, tt.rec.InputCursor = nil, 1
		}, "cursor 1 of 0"},
		"retrying without inputs or timer": {func(m *Machine) {
			tt := m.turns["t-1"]
			tt.inputs, tt.rec.InputCursor, tt.retrying = nil, 0, true
		}, "retrying without timer"},
		"delivering interaction unindexed": {func(m *Machine) {
			tt := m.turns["t-1"]
			tt.rec.Interactions = append(tt.rec.Interactions, InteractionRecord{ID: "i-9", Status: InteractionDelivering, DeliveryID: "d-9"})
		}, "without its index"},
		"device unlisted": {func(m *Machine) { m.devices["d9"] = &device{id: "d9"} }, "listed devices"},
		"devices out of order": {func(m *Machine) {
			m.deviceList = append([]*device{{id: "d9"}}, m.deviceList...)
			m.devices["d9"] = m.deviceList[0]
		}, "out of place"},
		"backoff written past its ready mark": {func(m *Machine) { m.sessions["s-1"].backoff = true }, "ready mark"},
		"ready mark of no session":            {func(m *Machine) { m.ready = append(m.ready, true) }, "ready marks"},
		"session off its slot":                {func(m *Machine) { m.order[0].slot = 3 }, "order mismatch"},
		"cancel window restarted": {func(m *Machine) {
			requestCancel(m, 0).timers["cancel:t-1"] = m.now.Add(30 * time.Second)
		}, "confirmation timer"},
		"cancel retry at deadline": {func(m *Machine) {
			m.turns["t-1"].rec.CancelAnswered = true
			requestCancel(m, 0).timers["cancel-retry:t-1"] = m.turns["t-1"].rec.CancelDeadline
		}, "not before its deadline"},
		"cancel retry unanswered": {func(m *Machine) {
			requestCancel(m, 0).timers["cancel-retry:t-1"] = m.now.Add(time.Second)
		}, "answered"},
		"cancel answered, no retry": {func(m *Machine) {
			m.turns["t-1"].rec.CancelAnswered = true
			requestCancel(m, 0)
		}, "without a retry"},
		"cancel delivery ID, answered near deadline": {func(m *Machine) {
			m.turns["t-1"].rec.CancelAnswered = true
			requestCancel(m, -14500*time.Millisecond)
			m.turns["t-1"].rec.CancelDeliveryID = "wrong"
		}, "cancel delivery ID"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			m := runningMachine(t)
			m.checkInvariants()
			c.corrupt(m)
			mustPanic(t, c.want, m.checkInvariants)
		})
	}
}

func TestAssertPanicsWithMessage(t *testing.T) {
	mustPanic(t, "boom 7", func() { assert.That(false, "boom %d", 7) })
	assert.That(true, "never")
}

func TestUnknownTimerKindPanics(t *testing.T) {
	m := New(Config{}, newMemStore())
	m.timers["weird:x"] = now0
	mustPanic(t, "unknown kind", func() { m.Step(now0, TimerFired{Timer: "weird:x"}) })
}

func TestJSONString(t *testing.T) {
	got := string(jsonString("a\"b\\c\n\x01é"))
	require.Equalf(t, `"a\"b\\c\n\u0001é"`, got, "got %s", got)
}

// requestCancel puts t-1 in a consistent requested cancel whose first
// attempt was sent ago+now (ago <= 0), its confirmation timer at the
// deadline.
func requestCancel(m *Machine, ago time.Duration) *Machine {
	r := &m.turns["t-1"].rec
	r.Cancel, r.CancelAttempts = CancelRequested, 1
	r.CancelDeliveryID = cancelDeliveryID(r.RunID, 1)
	r.CancelDeadline = m.now.Add(ago + m.cfg.CancelConfirmTimeout)
	m.timers[timerID(timerCancel, r.ID)] = r.CancelDeadline
	return m
}

// timerAt finds exactly the timers timerID names, without allocating.
func TestTimerAtMatchesTimerID(t *testing.T) {
	m := &Machine{timers: map[TimerID]time.Time{}}
	at := time.Unix(100, 0)
	m.timers[timerID(timerCancel, "t-1")] = at
	if got, ok := m.timerAt(timerCancel, "t-1"); !ok || !got.Equal(at) {
		require.Fail(t, fmt.Sprintf("timerAt(cancel, t-1) = %v %v", got, ok))
	}
	for _, c := range [][2]string{{timerCancelRetry, "t-1"}, {timerCancel, "t-2"}, {timerCancel, "t-"}} {
		if _, ok := m.timerAt(c[0], c[1]); ok {
			require.Fail(t, fmt.Sprintf("timerAt(%s, %s) found a timer", c[0], c[1]))
		}
	}
	if n := testing.AllocsPerRun(100, func() { m.timerAt(timerCancel, "t-1") }); n != 0 {
		require.Fail(t, fmt.Sprintf("timerAt allocates %v times", n))
	}
}

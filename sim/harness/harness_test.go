package harness_test

import (
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/wire"
)

// caller issues scripted native calls and records every reply.
type caller struct {
	script  []step
	replies []reply
	next    sim.CallID
}

type step struct {
	at time.Duration
	op daemon.Op
}

type reply struct {
	at   time.Duration
	call sim.CallID
	res  sim.Describer
}

func (c *caller) Step(now time.Time, ev sim.Event) []sim.Effect {
	switch e := ev.(type) {
	case sim.Start:
		var out []sim.Effect
		for i, s := range c.script {
			out = append(out, sim.SetTimer{Timer: sim.TimerID(string(rune('a' + i))), At: now.Add(s.at)})
		}
		return out
	case sim.TimerFired:
		s := c.script[int(e.Timer[0]-'a')]
		c.next++
		return []sim.Effect{sim.Call{To: "harness", Call: c.next, Req: s.op}}
	case sim.CallReturned:
		c.replies = append(c.replies, reply{at: now.Sub(sim.Epoch), call: e.Call, res: e.Res})
	}
	return nil
}

func run(t *testing.T, cfg harness.Config, script ...step) (*caller, *harness.Harness) {
	t.Helper()
	c := &caller{script: script}
	var h *harness.Harness
	r := sim.Run(1, sim.Options{
		Swarm: sim.SwarmConfig{Kinds: []sim.FaultKind{}, HealMin: 10 * time.Second, HealMax: 10 * time.Second},
		Setup: func(w *sim.World) {
			h = harness.New(w, "harness", cfg)
			w.AddNode("caller", func() sim.Node { return c })
			w.AddNode("harness", h.Factory)
		},
	})
	if r.Failed() {
		t.Fatalf("run failed: %v", r.Violations)
	}
	return c, h
}

func (c *caller) results(call sim.CallID) []daemon.Result {
	var out []daemon.Result
	for _, r := range c.replies {
		if m, ok := r.res.(harness.ResultMsg); ok && r.call == call {
			out = append(out, m.Result)
		}
	}
	return out
}

func (c *caller) events(call sim.CallID) []string {
	var out []string
	for _, r := range c.replies {
		if m, ok := r.res.(harness.EventMsg); ok && r.call == call {
			out = append(out, m.Describe())
		}
	}
	return out
}

func always() sim.Ratio { return sim.Ratio{Num: 1, Den: 1} }

func TestLifecycleRecordsTruth(t *testing.T) {
	c, h := run(t, harness.Config{},
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s"}},
		step{time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r"}},
		step{2 * time.Second, daemon.AwaitSettlement{Turn: "t-1"}},
		step{3 * time.Second, daemon.CloseExecutor{Executor: "ex-1"}},
	)
	if r := c.results(1); len(r) != 1 || r[0].(daemon.PrepareResult).Err != "" {
		t.Fatalf("prepare: %v", r)
	}
	if r := c.results(2); len(r) != 1 || !r[0].(daemon.StartResult).Turn {
		t.Fatalf("start: %v", r)
	}
	ev := c.events(2)
	if len(ev) < 2 || !strings.Contains(ev[len(ev)-1], " done {") {
		t.Fatalf("native output should end with the terminal result: %v", ev)
	}
	s := c.results(3)[0].(daemon.SettleResult)
	if !s.Settled || !s.Reusable || s.Outcome.Metadata.AgentSessionID != "native-ex-1" {
		t.Fatalf("settlement: %+v", s)
	}
	truth := h.Truth()
	if tt := truth.Turn("t-1"); tt == nil || !tt.Settled || truth.TurnsForRun("r") != 1 {
		t.Fatalf("turn truth: %+v", tt)
	}
	if e := truth.Executor("ex-1"); e == nil || !e.Closed {
		t.Fatalf("executor truth: %+v", e)
	}
	if len(truth.OpenExecutors()) != 0 || len(truth.UnsettledTurns()) != 0 || len(truth.Violations()) != 0 {
		t.Fatalf("leftovers: %s %v", truth, truth.Violations())
	}
}

func TestFaultsFireAndStopAtHeal(t *testing.T) {
	cfg := harness.Config{Faults: harness.Faults{PrepareFailure: always(), CloseFailure: always()}}
	c, h := run(t, cfg,
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s"}},
		step{11 * time.Second, daemon.Prepare{Executor: "ex-2", Session: "s"}},
		step{12 * time.Second, daemon.CloseExecutor{Executor: "ex-2"}},
	)
	if r := c.results(1)[0].(daemon.PrepareResult); r.Err == "" {
		t.Fatal("prepare failure fault did not fire")
	}
	if h.Truth().Executor("ex-1") != nil {
		t.Fatal("a failed preparation created an executor")
	}
	if r := c.results(2)[0].(daemon.PrepareResult); r.Err != "" {
		t.Fatalf("faults continue after heal: %v", r)
	}
	if r := c.results(3)[0].(daemon.CloseResult); r.Err != "" || !h.Truth().Executor("ex-2").Closed {
		t.Fatalf("close after heal: %v", r)
	}
}

func TestCloseFailureKeepsExecutorOpen(t *testing.T) {
	cfg := harness.Config{Faults: harness.Faults{CloseFailure: always()}}
	c, h := run(t, cfg,
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s"}},
		step{time.Second, daemon.CloseExecutor{Executor: "ex-1"}},
	)
	if r := c.results(2)[0].(daemon.CloseResult); r.Err == "" {
		t.Fatal("close failure fault did not fire")
	}
	if open := h.Truth().OpenExecutors(); len(open) != 1 {
		t.Fatalf("failed close must leave the executor open: %v", open)
	}
}

func TestHangHoldsRepliesUntilHeal(t *testing.T) {
	c, _ := run(t, harness.Config{Faults: harness.Faults{Hang: always()}},
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s"}})
	if len(c.replies) != 1 || c.replies[0].at < 10*time.Second {
		t.Fatalf("hung reply should arrive after heal: %+v", c.replies)
	}
}

func TestStartFaults(t *testing.T) {
	c, h := run(t, harness.Config{Faults: harness.Faults{StartBeforeInput: always()}},
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s"}},
		step{time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r"}})
	if r := c.results(2)[0].(daemon.StartResult); r.Turn || r.Err == "" || h.Truth().TurnsForRun("r") != 0 {
		t.Fatalf("before-input failure must create no turn: %+v", r)
	}
	c, h = run(t, harness.Config{Faults: harness.Faults{StartAfterInput: always()}},
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s"}},
		step{time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r"}},
		step{2 * time.Second, daemon.AwaitSettlement{Turn: "t-1"}})
	if r := c.results(2)[0].(daemon.StartResult); !r.Turn || r.Err == "" || h.Truth().TurnsForRun("r") != 1 {
		t.Fatalf("after-input failure returns a turn with an error: %+v", r)
	}
	if s := c.results(3)[0].(daemon.SettleResult); !s.Settled {
		t.Fatalf("the failed turn still settles: %+v", s)
	}
}

func TestWritesAndConsumption(t *testing.T) {
	cfg := harness.Config{LongTurn: always(), TurnMax: 20 * time.Second}
	input := wire.TextInput("more")
	c, h := run(t, cfg,
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s"}},
		step{time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r"}},
		step{2 * time.Second, daemon.DurableWrite{Turn: "t-1", InputID: "in-1", Input: input}},
		step{3 * time.Second, daemon.DurableWrite{Turn: "t-1", InputID: "in-1", Input: input}},
	)
	if r := c.results(3)[0].(daemon.WriteResult); r.Outcome != daemon.WriteWritten {
		t.Fatalf("write: %+v", r)
	}
	if ev := c.events(3); len(ev) != 1 || !strings.Contains(ev[0], "native-input-applied") {
		t.Fatalf("consumption streamed on the write call: %v", ev)
	}
	in := h.Truth().Input("t-1", "in-1")
	if !in.Written || !in.Applied || in.Writes != 2 {
		t.Fatalf("input truth: %+v", in)
	}
	if vs := h.Truth().Violations(); len(vs) != 1 || !strings.Contains(vs[0], "written 2 times") {
		t.Fatalf("a replayed write is a contract breach: %v", vs)
	}
}

func TestCancelSettlesLate(t *testing.T) {
	cfg := harness.Config{LongTurn: always(), Faults: harness.Faults{SettleLate: always()}}
	c, h := run(t, cfg,
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s"}},
		step{time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r"}},
		step{2 * time.Second, daemon.Cancel{Turn: "t-1"}},
		step{2 * time.Second, daemon.AwaitSettlement{Turn: "t-1"}},
	)
	var settledAt time.Duration
	for _, r := range c.replies {
		if r.call == 4 {
			settledAt = r.at
		}
	}
	if settledAt < 13*time.Second {
		t.Fatalf("late settlement should exceed the daemon's 10s wait: %v", settledAt)
	}
	if !h.Truth().Turn("t-1").Cancelled {
		t.Fatal("cancel not recorded")
	}
}

func TestNotReusableRetiresExecutor(t *testing.T) {
	cfg := harness.Config{Faults: harness.Faults{NotReusable: always()}}
	c, h := run(t, cfg,
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s"}},
		step{time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r"}},
		step{2 * time.Second, daemon.AwaitSettlement{Turn: "t-1"}},
		step{3 * time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-2", Run: "r2"}},
	)
	s := c.results(3)[0].(daemon.SettleResult)
	if !s.Settled || s.Reusable || s.Reason == "" || !h.Truth().Executor("ex-1").Retired {
		t.Fatalf("retiring settlement: %+v", s)
	}
	if vs := h.Truth().Violations(); len(vs) != 1 || !strings.Contains(vs[0], "unusable executor") {
		t.Fatalf("a start on a retired executor is a contract breach: %v", vs)
	}
}

func TestDrawFaultsDeterministic(t *testing.T) {
	a := harness.DrawFaults(sim.NewStream(7, "h"), sim.Ratio{Num: 1, Den: 2})
	b := harness.DrawFaults(sim.NewStream(7, "h"), sim.Ratio{Num: 1, Den: 2})
	if a != b || a.String() == "[]" {
		t.Fatalf("draws differ or empty: %s vs %s", a, b)
	}
}

// The simulator's check ledger takes the Harness's ground truth directly.
var _ harness.Recorder = (*check.Ledger)(nil)

type recorder struct{ lines []string }

func (r *recorder) ExecutorCreated(at int64, device, executor string) {
	r.lines = append(r.lines, "created "+device+" "+executor)
}
func (r *recorder) ExecutorClosed(at int64, device, executor string) {
	r.lines = append(r.lines, "closed "+device+" "+executor)
}
func (r *recorder) TurnCreated(at int64, device, run string) {
	r.lines = append(r.lines, "turn "+device+" "+run)
}
func (r *recorder) InputApplied(at int64, run, input string) {
	r.lines = append(r.lines, "applied "+run+" "+input)
}
func (r *recorder) TurnSettled(at int64, run, outcome string) {
	r.lines = append(r.lines, "settled "+run+" "+outcome)
}

func TestRecorderSeesTruth(t *testing.T) {
	rec := &recorder{}
	c := &caller{script: []step{
		{0, daemon.Prepare{Executor: "ex-1", Session: "s"}},
		{time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r"}},
		{2 * time.Second, daemon.Cancel{Turn: "t-1"}},
		{2 * time.Second, daemon.AwaitSettlement{Turn: "t-1"}},
		{3 * time.Second, daemon.CloseExecutor{Executor: "ex-1"}},
	}}
	sim.Run(1, sim.Options{
		Swarm: sim.SwarmConfig{Kinds: []sim.FaultKind{}, HealMin: 10 * time.Second, HealMax: 10 * time.Second},
		Setup: func(w *sim.World) {
			h := harness.New(w, "harness", harness.Config{LongTurn: always()})
			h.SetRecorder("d1", rec)
			w.AddNode("caller", func() sim.Node { return c })
			w.AddNode("harness", h.Factory)
		},
	})
	want := "created d1 ex-1|turn d1 r|settled r cancelled|closed d1 ex-1"
	if got := strings.Join(rec.lines, "|"); got != want {
		t.Fatalf("recorded %q, want %q", got, want)
	}
}

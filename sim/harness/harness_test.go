package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// testHost runs a Harness alone: scripted calls at fixed offsets, every
// result and native event recorded with its call.
type testHost struct {
	h      *Harness
	script []step
	out    []sim.Effect
	seen   []string
	calls  int
}

type step struct {
	at time.Duration
	op daemon.Op // nil: heal
}

func (c *testHost) Schedule(id sim.TimerID, at time.Time) {
	c.out = append(c.out, sim.SetTimer{Timer: id, At: at})
}

func (c *testHost) Feed(now time.Time, ev daemon.Event) {
	c.seen = append(c.seen, ev.Describe())
}

func (c *testHost) Step(now time.Time, ev sim.Event) []sim.Effect {
	c.out = nil
	switch e := ev.(type) {
	case sim.Start:
		for i, s := range c.script {
			c.Schedule(sim.TimerID("s/"+string(rune('a'+i))), now.Add(s.at))
		}
	case sim.TimerFired:
		if !strings.HasPrefix(string(e.Timer), "s/") {
			c.h.Fire(now, e.Timer)
			break
		}
		s := c.script[int(e.Timer[2]-'a')]
		if s.op == nil {
			c.h.Heal(now)
			break
		}
		c.calls++
		c.h.Call(now, daemon.NativeCall{Call: daemon.CallID("c" + string(rune('0'+c.calls))), Op: s.op})
	}
	return c.out
}

type recorder struct{ lines []string }

func (r *recorder) ExecutorCreated(at int64, device, executor string) {
	r.lines = append(r.lines, "created "+executor)
}
func (r *recorder) ExecutorClosed(at int64, device, executor string) {
	r.lines = append(r.lines, "closed "+executor)
}
func (r *recorder) TurnCreated(at int64, device, run string) { r.lines = append(r.lines, "turn "+run) }
func (r *recorder) InputApplied(at int64, run, input string) {
	r.lines = append(r.lines, "applied "+run+"/"+input)
}
func (r *recorder) TurnSettled(at int64, run, outcome string) {
	r.lines = append(r.lines, "settled "+run+" "+outcome)
}
func (r *recorder) CloseRetried(at int64, device, executor string) {
	r.lines = append(r.lines, "retry "+executor)
}

var _ Recorder = (*recorder)(nil)

// run plays script against a Harness with the given faults armed up front;
// crashAt (if set) kills the process then.
func run(t *testing.T, armed []sim.FaultKind, crashAt time.Duration, script ...step) (*testHost, *recorder) {
	t.Helper()
	host := &testHost{script: script}
	rec := &recorder{}
	r := sim.Run(1, sim.Options{
		Swarm: sim.SwarmConfig{Kinds: []sim.FaultKind{}, HealMin: time.Hour, HealMax: time.Hour},
		Setup: func(w *sim.Kernel) {
			dev := NewDevice(w, "dev", "core", daemon.Config{}, Config{})
			dev.Native = NewNativeHistory()
			dev.Recorder = rec
			for _, k := range armed {
				dev.Arm(k)
			}
			host.h = New(w, dev, host)
			w.AddNode("dev", func() sim.Node { return host })
			if crashAt > 0 {
				w.After(crashAt, "crash", func() { host.h.processDied(w.Now()) })
			}
		},
	})
	if r.Failed() {
		t.Fatalf("run failed: %v", r.Violations)
	}
	return host, rec
}

func lifecycle() []step {
	return []step{
		{0, daemon.Prepare{Executor: "ex-1", Session: "s1"}},
		{10 * time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r1", Input: wire.TextInput("hi")}},
		{10*time.Second + 300*time.Millisecond, daemon.DurableWrite{Turn: "t-1", InputID: "in-1"}},
		{10*time.Second + 400*time.Millisecond, daemon.AwaitSettlement{Turn: "t-1"}},
		{100 * time.Second, daemon.CloseExecutor{Executor: "ex-1"}},
	}
}

func TestLifecycleRecordsTruthAtTheInstant(t *testing.T) {
	host, rec := run(t, nil, 0, lifecycle()...)
	got := strings.Join(rec.lines, "; ")
	want := "created ex-1; turn r1; applied r1/in-1; settled r1 completed; closed ex-1"
	if got != want {
		t.Fatalf("recorded %q, want %q", got, want)
	}
	tr := host.h.Truth()
	if e := tr.Executor("ex-1"); e == nil || !e.Closed || e.ClosedByCrash {
		t.Errorf("executor truth %+v", e)
	}
	if tt := tr.Turn("t-1"); tt == nil || !tt.Settled || !tt.Reported || tt.Outcome != check.NativeCompleted {
		t.Errorf("turn truth %+v", tt)
	}
	if in := tr.Input("t-1", "in-1"); in == nil || !in.Written || !in.Applied || in.Writes != 1 {
		t.Errorf("input truth %+v", in)
	}
	if vs := tr.Violations(); len(vs) > 0 || len(tr.OpenExecutors()) > 0 || len(tr.UnsettledTurns()) > 0 {
		t.Errorf("violations %v open %v unsettled %v", vs, tr.OpenExecutors(), tr.UnsettledTurns())
	}
}

func TestArmedFaultsChangeTheNextCall(t *testing.T) {
	host, _ := run(t, []sim.FaultKind{PrepareFailure, CloseFailure}, 0,
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s1"}},
		step{time.Second, daemon.Prepare{Executor: "ex-2", Session: "s1"}},
		step{20 * time.Second, daemon.CloseExecutor{Executor: "ex-2"}},
		step{21 * time.Second, daemon.CloseExecutor{Executor: "ex-2"}})
	seen := strings.Join(host.seen, "\n")
	for _, want := range []string{"simulated prepare failure", "simulated close failure"} {
		if strings.Count(seen, want) != 1 {
			t.Errorf("want one %q in:\n%s", want, seen)
		}
	}
	tr := host.h.Truth()
	if tr.Executor("ex-1") != nil || tr.Executor("ex-2") == nil || !tr.Executor("ex-2").Closed {
		t.Errorf("truth %s", tr)
	}
}

func TestHangAnswersAtHeal(t *testing.T) {
	host, rec := run(t, []sim.FaultKind{Hang}, 0,
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s1"}},
		step{30 * time.Second, nil})
	if len(host.seen) != 1 || len(rec.lines) != 1 {
		t.Fatalf("hung prepare: events %v truth %v", host.seen, rec.lines)
	}
	if host.h.Truth().Executor("ex-1").CreatedAt.Sub(sim.Epoch) != 30*time.Second {
		t.Errorf("prepared at %v, want at heal", host.h.Truth().Executor("ex-1").CreatedAt.Sub(sim.Epoch))
	}
}

func TestCancelFailureThenCancelSettles(t *testing.T) {
	host, rec := run(t, []sim.FaultKind{CancelFailure}, 0,
		step{0, daemon.Prepare{Executor: "ex-1", Session: "s1"}},
		step{10 * time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r1"}},
		step{10*time.Second + 500*time.Millisecond, daemon.Cancel{Turn: "t-1"}},
		step{10*time.Second + 600*time.Millisecond, daemon.Cancel{Turn: "t-1"}})
	if !strings.Contains(strings.Join(host.seen, "\n"), "simulated cancel failure") {
		t.Errorf("no failed cancel in %v", host.seen)
	}
	if !strings.Contains(strings.Join(rec.lines, "; "), "settled r1 cancelled") {
		t.Errorf("turn not cancelled: %v", rec.lines)
	}
}

func TestProcessDeathEndsEveryNativeResource(t *testing.T) {
	host, rec := run(t, nil, 10*time.Second+200*time.Millisecond, lifecycle()[:2]...)
	tr := host.h.Truth()
	if e := tr.Executor("ex-1"); e == nil || !e.Closed || !e.ClosedByCrash {
		t.Errorf("executor truth %+v", e)
	}
	if tt := tr.Turn("t-1"); tt == nil || !tt.Settled || !tt.EndedByCrash || tt.Outcome != check.NativeFailed {
		t.Errorf("turn truth %+v", tt)
	}
	want := "created ex-1; turn r1; settled r1 failed; closed ex-1"
	if got := strings.Join(rec.lines, "; "); got != want {
		t.Errorf("recorded %q, want %q", got, want)
	}
}

func TestRegisterArmsTheTargetDevice(t *testing.T) {
	var dev *Device
	r := sim.Run(3, sim.Options{
		Swarm: sim.SwarmConfig{Kinds: Kinds(), Enable: sim.Ratio{Num: 1, Den: 1}},
		Setup: func(w *sim.Kernel) {
			dev = NewDevice(w, "dev", "core", daemon.Config{}, Config{})
			w.AddNode("dev", func() sim.Node { return &testHost{} })
			Register(w, []*Device{dev})
		},
	})
	if len(r.Schedule.Faults) == 0 {
		t.Fatal("no Harness fault scheduled")
	}
	for _, f := range r.Schedule.Faults {
		if f.Node != "dev" {
			t.Errorf("fault %s not on the device", f)
		}
	}
	for _, k := range Kinds() {
		max := 0
		if k == WriteOverBudget {
			max = 1 // a bounded overrun is no partition: one survives heal
		}
		if dev.Armed(k) > max {
			t.Errorf("%s: %d armed after heal, want at most %d", k, dev.Armed(k), max)
		}
	}
}

// TestHealKeepsOneWriteOverrun: heal drops every armed fault but a single
// write overrun, which completes on its own and so may happen after heal.
func TestHealKeepsOneWriteOverrun(t *testing.T) {
	sim.Run(1, sim.Options{Setup: func(w *sim.Kernel) {
		dev := NewDevice(w, "dev", "core", daemon.Config{}, Config{})
		w.AddNode("dev", func() sim.Node { return &testHost{} })
		for range 3 {
			dev.Arm(WriteOverBudget)
			dev.Arm(WriteFailure)
		}
		dev.Heal()
		if got := dev.Armed(WriteOverBudget); got != 1 {
			t.Errorf("write overruns armed after heal: %d, want 1", got)
		}
		if got := dev.Armed(WriteFailure); got != 0 {
			t.Errorf("write failures armed after heal: %d, want 0", got)
		}
	}})
}

func cancelScript() []step {
	return []step{
		{0, daemon.Prepare{Executor: "ex-1", Session: "s1"}},
		{10 * time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r1"}},
		{10*time.Second + 50*time.Millisecond, daemon.AwaitSettlement{Turn: "t-1"}},
		{10*time.Second + 60*time.Millisecond, daemon.Cancel{Turn: "t-1"}},
	}
}

// Under harness_settle_before_done the awaited, cancelled turn settles and
// the wait is answered with the outcome, and no native done is emitted.
func TestSettleBeforeDoneSuppressesNativeDone(t *testing.T) {
	host, rec := run(t, []sim.FaultKind{SettleBeforeDone}, 0, cancelScript()...)
	seen := strings.Join(host.seen, "\n")
	if strings.Contains(seen, "native-event t-1 done") {
		t.Errorf("native done emitted:\n%s", seen)
	}
	if !strings.Contains(seen, "settled=true") {
		t.Errorf("settlement not answered:\n%s", seen)
	}
	tr := host.h.Truth()
	if tt := tr.Turn("t-1"); tt == nil || !tt.Settled || !tt.Reported || !tt.DoneSuppressed || tt.Outcome != check.NativeCancelled {
		t.Errorf("turn truth %+v", tt)
	}
	if !strings.Contains(strings.Join(rec.lines, "; "), "settled r1 cancelled") {
		t.Errorf("settlement not recorded: %v", rec.lines)
	}
	if len(tr.Violations())+len(tr.Breaches()) > 0 {
		t.Errorf("violations %v breaches %v", tr.Violations(), tr.Breaches())
	}
	// Without the fault the native done precedes the settlement answer.
	host, _ = run(t, nil, 0, cancelScript()...)
	seen = strings.Join(host.seen, "\n")
	done, settled := strings.Index(seen, "native-event t-1 done"), strings.Index(seen, "settled=true")
	if done < 0 || settled < done {
		t.Errorf("want native done before the settlement answer:\n%s", seen)
	}
}

// A native event after settlement (harness_late_events) is recorded as a
// breach of the Harness's contract, not as a daemon violation.
func TestLateEventsAreHarnessBreaches(t *testing.T) {
	host, _ := run(t, []sim.FaultKind{LateEvents}, 0, cancelScript()...)
	tr := host.h.Truth()
	if b := tr.Breaches(); len(b) != 1 || !strings.Contains(b[0], "after its settlement") {
		t.Errorf("breaches %v", b)
	}
	if tt := tr.Turn("t-1"); tt == nil || tt.EventsAfterSettlement != 1 {
		t.Errorf("turn truth %+v", tt)
	}
	if vs := tr.Violations(); len(vs) > 0 {
		t.Errorf("violations %v", vs)
	}
	host, _ = run(t, nil, 0, cancelScript()...)
	if b := host.h.Truth().Breaches(); len(b) > 0 {
		t.Errorf("breaches without the fault: %v", b)
	}
}

func TestASecondDurableWriteWhileOneIsOutIsAContractBreach(t *testing.T) {
	script := func(second time.Duration) []step {
		return []step{
			{0, daemon.Prepare{Executor: "ex-1", Session: "s1"}},
			{10 * time.Second, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r1", Input: wire.TextInput("hi")}},
			{11 * time.Second, daemon.DurableWrite{Turn: "t-1", InputID: "in-1"}},
			{second, daemon.DurableWrite{Turn: "t-1", InputID: "in-2"}},
		}
	}
	host, _ := run(t, nil, 0, script(25*time.Second)...)
	if vs := host.h.Truth().Violations(); len(vs) > 0 {
		t.Fatalf("writes one after the other breach nothing: %v", vs)
	}
	// in-2's write comes in the instant of in-1's, which is still out
	host, _ = run(t, nil, 0, script(11*time.Second)...)
	vs := host.h.Truth().Violations()
	if len(vs) != 1 || !strings.Contains(vs[0], "while the write of input in-1 is still out") {
		t.Fatalf("violations %v; want the second write named", vs)
	}
}

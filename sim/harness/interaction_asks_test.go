package harness

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// askHost runs one native turn of a Harness with an AskConfig and, when
// answerAfter is set, answers every question that long after it was asked
// (permissions approved, user choices cancelled, function results
// successful). It records when each question was asked, when each native
// decision call was made and answered, withdrawals and the native done.
type askHost struct {
	h           *Harness
	answerAfter time.Duration
	out         []sim.Effect
	calls       int

	asked     map[string]time.Time
	called    map[daemon.CallID]time.Time
	answered  map[daemon.CallID]time.Duration // call → answer latency
	outcome   map[daemon.CallID]daemon.DecisionOutcome
	kindOf    map[daemon.CallID]string
	withdrawn []string
	doneAt    time.Time
	answers   map[sim.TimerID]daemon.Op
}

func (c *askHost) Schedule(id sim.TimerID, at time.Time) {
	c.out = append(c.out, sim.SetTimer{Timer: id, At: at})
}

func (c *askHost) Feed(now time.Time, ev daemon.Event) {
	switch e := ev.(type) {
	case daemon.NativeTurnEvent:
		var op daemon.Op
		switch p := e.Event.(type) {
		case wire.PermissionRequest:
			c.asked[p.RequestID] = now
			op = daemon.RespondPermission{Turn: e.Turn, InteractionID: p.RequestID,
				Decision: wire.PermissionDecision{DeliveryID: "d-" + p.RequestID, Approved: true}}
		case wire.UserChoicePrompt:
			c.asked[p.AskID] = now
			op = daemon.RespondUserChoice{Turn: e.Turn, InteractionID: p.AskID,
				Decision: wire.UserChoiceDecision{DeliveryID: "d-" + p.AskID, Cancelled: true}}
		case wire.FunctionCall:
			c.asked[p.CallID] = now
			op = daemon.SubmitFunctionResult{Turn: e.Turn,
				Result: wire.FunctionResult{DeliveryID: "d-" + p.CallID, CallID: p.CallID, Success: true, Content: []wire.InputContent{}}}
		case wire.Done:
			c.doneAt = now
		}
		if op != nil && c.answerAfter > 0 {
			id := sim.TimerID("a/" + strconv.Itoa(len(c.answers)))
			c.answers[id] = op
			c.Schedule(id, now.Add(c.answerAfter))
		}
	case daemon.NativePermissionWithdrawn:
		c.withdrawn = append(c.withdrawn, e.InteractionID)
	case daemon.NativeResult:
		if at, ok := c.called[e.Call]; ok {
			c.answered[e.Call] = now.Sub(at)
			if r, ok := e.Result.(daemon.DecisionResult); ok {
				c.outcome[e.Call] = r.Outcome
			}
		}
	}
}

func (c *askHost) call(now time.Time, op daemon.Op) daemon.CallID {
	c.calls++
	id := daemon.CallID("c" + strconv.Itoa(c.calls))
	c.h.Call(now, daemon.NativeCall{Call: id, Op: op})
	return id
}

func (c *askHost) Step(now time.Time, ev sim.Event) []sim.Effect {
	c.out = nil
	switch e := ev.(type) {
	case sim.Start:
		c.Schedule("s/prepare", now)
		c.Schedule("s/start", now.Add(time.Second))
	case sim.TimerFired:
		switch {
		case e.Timer == "s/prepare":
			c.call(now, daemon.Prepare{Executor: "ex-1", Session: "s1"})
		case e.Timer == "s/start":
			c.call(now, daemon.StartTurn{Executor: "ex-1", Turn: "t-1", Run: "r1", Input: wire.TextInput("hi")})
			c.call(now, daemon.AwaitSettlement{Turn: "t-1"})
		case strings.HasPrefix(string(e.Timer), "a/"):
			op := c.answers[e.Timer]
			id := c.call(now, op)
			c.called[id] = now
			switch op.(type) {
			case daemon.RespondPermission:
				c.kindOf[id] = AskPermission
			case daemon.RespondUserChoice:
				c.kindOf[id] = AskUserChoice
			default:
				c.kindOf[id] = AskFunction
			}
		default:
			c.h.Fire(now, e.Timer)
		}
	}
	return c.out
}

// runAsks plays one native turn under asks for each of the seeds.
func runAsks(t *testing.T, seed uint64, asks AskConfig, answerAfter time.Duration) *askHost {
	t.Helper()
	host := &askHost{answerAfter: answerAfter, asked: map[string]time.Time{}, called: map[daemon.CallID]time.Time{},
		answered: map[daemon.CallID]time.Duration{}, outcome: map[daemon.CallID]daemon.DecisionOutcome{},
		kindOf: map[daemon.CallID]string{}, answers: map[sim.TimerID]daemon.Op{}}
	r := sim.Run(seed, sim.Options{
		Swarm: sim.SwarmConfig{Kinds: []sim.FaultKind{}, HealMin: time.Hour, HealMax: time.Hour},
		Setup: func(w *sim.Kernel) {
			dev := NewDevice(w, "dev", "core", daemon.Config{}, Config{Asks: asks})
			dev.Native = NewNativeHistory()
			host.h = New(w, dev, host)
			w.AddNode("dev", func() sim.Node { return host })
		},
	})
	if r.Failed() {
		t.Fatalf("seed %d: run failed: %v", seed, r.Violations)
	}
	if len(host.asked) == 0 {
		t.Fatalf("seed %d: a turn under Always asked nothing", seed)
	}
	if host.doneAt.IsZero() {
		t.Fatalf("seed %d: the native turn never ended", seed)
	}
	return host
}

func (c *askHost) lastAsked() time.Time {
	var last time.Time
	for _, at := range c.asked { //tidy:sorted a maximum
		if at.After(last) {
			last = at
		}
	}
	return last
}

// A turn that waits for its answers and gets none ends only once the
// native side stops waiting (AnswerWaitMax after its last question); with
// answers it ends without waiting that long. Without Await it never
// waits.
func TestAwaitingTurnWaitsForItsAnswers(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		c := runAsks(t, seed, AskConfig{Always: true, Await: true}, 0)
		if wait := c.doneAt.Sub(c.lastAsked()); wait < AnswerWaitMax || wait > AnswerWaitMax+answerPoll {
			t.Fatalf("seed %d: unanswered, done %s after the last question, want %s (+%s)", seed, wait, AnswerWaitMax, answerPoll)
		}
		c = runAsks(t, seed, AskConfig{Always: true, Await: true}, time.Second)
		if wait := c.doneAt.Sub(c.lastAsked()); wait >= AnswerWaitMax {
			t.Fatalf("seed %d: answered after 1 s, yet done %s after the last question", seed, wait)
		}
		for id, o := range c.outcome { //tidy:sorted each checked alone
			if o != daemon.DecisionApplied {
				t.Fatalf("seed %d: decision %s answered %v, want applied", seed, id, o)
			}
		}
		c = runAsks(t, seed, AskConfig{Always: true}, 0)
		if wait := c.doneAt.Sub(c.lastAsked()); wait >= AnswerWaitMax {
			t.Fatalf("seed %d: a turn that does not wait was done %s after its last question", seed, wait)
		}
	}
}

// SlowDecisions 8 in 8: every native decision confirms 16–25 s after its
// call, past Core's 15 s receipt wait.
func TestSlowDecisionsConfirmPastCoresWait(t *testing.T) {
	n := 0
	for seed := uint64(1); seed <= 20; seed++ {
		c := runAsks(t, seed, AskConfig{Always: true, Await: true, SlowDecisions: 8}, 500*time.Millisecond)
		for id, d := range c.answered { //tidy:sorted each checked alone
			n++
			if d < 16*time.Second || d >= 25*time.Second || c.outcome[id] != daemon.DecisionApplied {
				t.Fatalf("seed %d: decision %s answered %v after %s, want applied after 16–25 s", seed, id, c.outcome[id], d)
			}
		}
	}
	if n == 0 {
		t.Fatal("no decision was made")
	}
}

// WithdrawRaces 8 in 8: every permission decision meets the native side
// withdrawing the request (permission_cancel is fed while the decision
// call is out) and is not applied; other decisions are applied.
func TestWithdrawRacesWithdrawPermissionsUnderTheirDecision(t *testing.T) {
	perms := 0
	for seed := uint64(1); seed <= 20; seed++ {
		c := runAsks(t, seed, AskConfig{Always: true, Await: true, WithdrawRaces: 8}, 500*time.Millisecond)
		for id, kind := range c.kindOf { //tidy:sorted each checked alone
			want := daemon.DecisionApplied
			if kind == AskPermission {
				want = daemon.DecisionNotPending
				perms++
			}
			if c.outcome[id] != want {
				t.Fatalf("seed %d: %s decision %s answered %v, want %v", seed, kind, id, c.outcome[id], want)
			}
		}
		asked := 0
		for id := range c.asked { //tidy:sorted counting
			if strings.HasPrefix(id, "perm-") {
				asked++
			}
		}
		if len(c.withdrawn) != asked {
			t.Fatalf("seed %d: %d permissions asked, %d withdrawn: %v", seed, asked, len(c.withdrawn), c.withdrawn)
		}
	}
	if perms == 0 {
		t.Fatal("no permission was decided")
	}
}

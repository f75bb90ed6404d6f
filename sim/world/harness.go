package world

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// longTurnsMax bounds the long turns of one device in a run.
const longTurnsMax = 1

// harnessParams are the seeded behaviour of the simulated Harness.
type harnessParams struct {
	slowPrepare int // chance in 8 that a preparation takes seconds
	engineError int // chance in 16 that a turn ends with an engine error
}

func drawHarness(r *rand.Rand) harnessParams {
	return harnessParams{slowPrepare: r.IntN(4), engineError: r.IntN(3)}
}

// harness is the simulated Harness of one device, inside the daemon
// process: it answers native calls after seeded latencies, runs native
// turns, applies written inputs, and records ground truth in the ledger
// at the instant each native fact happens. Armed faults (device tokens)
// change how the next matching call behaves.
type harness struct {
	n       *daemonNode
	u       *universe
	r       *rand.Rand
	dev     string
	execs   map[string]*hExec
	turns   map[daemon.TurnID]*hTurn
	actions map[sim.TimerID]func(now time.Time)
	hung    []func(now time.Time)
	seq     uint64
}

type hExec struct {
	id         string
	session    string
	closeFails int // failed closes so far
}

type hTurn struct {
	id        daemon.TurnID
	run       string
	exec      string
	settled   bool
	outcome   string
	cancelled bool
	waiters   []daemon.CallID
	usage     int64
	content   string
	done      bool // a native terminal result (wire.Done) was emitted
	writesOut int  // write calls not answered yet
	// endPending is the natural end, deferred while writes are out.
	endPending func(now time.Time)
}

func newHarness(n *daemonNode) *harness {
	return &harness{n: n, u: n.u, r: n.u.w.Rand("harness:" + string(n.d.id)), dev: string(n.d.id),
		execs: map[string]*hExec{}, turns: map[daemon.TurnID]*hTurn{}, actions: map[sim.TimerID]func(time.Time){}}
}

// after runs fn d from now (a node timer).
func (h *harness) after(now time.Time, d time.Duration, fn func(now time.Time)) {
	h.seq++
	id := sim.TimerID(harnessPref + strconv.FormatUint(h.seq, 10))
	h.actions[id] = fn
	h.n.schedule(id, now.Add(d))
}

func (h *harness) fire(now time.Time, id sim.TimerID) {
	fn, ok := h.actions[id]
	if !ok {
		return
	}
	delete(h.actions, id)
	fn(now)
}

// heal releases every call hung until the heal time.
func (h *harness) heal(now time.Time) {
	hung := h.hung
	h.hung = nil
	for _, fn := range hung {
		fn(now)
	}
}

func (h *harness) latency() time.Duration {
	return time.Duration(2+h.r.IntN(150)) * time.Millisecond
}

// take consumes one armed fault of kind k for this device.
func (h *harness) take(k kind) bool {
	d := h.n.d
	if d.tokens[k.kind] == 0 {
		return false
	}
	d.tokens[k.kind]--
	return true
}

// result feeds a native result to the machine.
func (h *harness) result(now time.Time, c daemon.CallID, r daemon.Result) {
	h.n.feed(now, daemon.NativeResult{Call: c, Result: r})
}

// later answers after a latency, or at heal when a hang fault is armed.
func (h *harness) later(now time.Time, d time.Duration, fn func(now time.Time)) {
	if h.take(kHang) {
		h.hung = append(h.hung, fn)
		return
	}
	h.after(now, d, fn)
}

func (h *harness) call(now time.Time, e daemon.NativeCall) {
	switch op := e.Op.(type) {
	case daemon.Prepare:
		h.prepare(now, e.Call, op)
	case daemon.StartTurn:
		h.start(now, e.Call, op)
	case daemon.DurableWrite:
		h.write(now, e.Call, op)
	case daemon.Cancel:
		h.cancel(now, e.Call, op)
	case daemon.AwaitSettlement:
		h.await(now, e.Call, op)
	case daemon.CloseExecutor:
		h.close(now, e.Call, op)
	}
}

func (h *harness) prepare(now time.Time, c daemon.CallID, op daemon.Prepare) {
	d := h.latency()
	if h.r.IntN(8) < h.u.harness.slowPrepare {
		d = time.Duration(1000+h.r.IntN(7000)) * time.Millisecond
	}
	fail := h.take(kPrepareFailure)
	h.later(now, d, func(now time.Time) {
		if fail {
			h.result(now, c, daemon.PrepareResult{Err: "simulated prepare failure"})
			return
		}
		h.execs[op.Executor] = &hExec{id: op.Executor, session: op.Session}
		h.u.led.ExecutorCreated(h.u.lt(now), h.dev, op.Executor)
		h.u.count("ExecutorCreated")
		h.result(now, c, daemon.PrepareResult{})
	})
}

func (h *harness) start(now time.Time, c daemon.CallID, op daemon.StartTurn) {
	failNil, failTurn := h.take(kStartFailureNil), h.take(kStartFailureTurn)
	h.later(now, h.latency(), func(now time.Time) {
		if failNil {
			h.result(now, c, daemon.StartResult{Err: "simulated start failure before input"})
			return
		}
		t := &hTurn{id: op.Turn, run: op.Run, exec: op.Executor}
		h.turns[op.Turn] = t
		h.u.led.TurnCreated(h.u.lt(now), h.dev, op.Run)
		h.u.count("TurnCreated")
		if failTurn {
			h.result(now, c, daemon.StartResult{Turn: true, Err: "simulated start failure after input"})
			h.after(now, h.latency(), func(now time.Time) { h.settle(now, t, check.NativeFailed) })
			return
		}
		h.result(now, c, daemon.StartResult{Turn: true})
		h.script(now, t)
	})
}

// script plays a native turn: a few deltas and usage snapshots, sometimes
// an engine error, then the terminal result and settlement. Most turns
// last up to 11 s; one in five (at most longTurnsMax per device)
// runs for 16–48 s.
func (h *harness) script(now time.Time, t *hTurn) {
	steps := 1 + h.r.IntN(6)
	gap := time.Duration(100+h.r.IntN(1500)) * time.Millisecond
	if long := h.r.IntN(5) == 0; long && h.n.d.longTurns < longTurnsMax {
		// A long turn: 16–48 s of native work, long enough for a steer to
		// wait out Core's written window behind a stuck write. Few per
		// device, so sessions' FIFO queues still drain before the deadline.
		h.n.d.longTurns++
		steps, gap = 3+h.r.IntN(3), time.Duration(4000+h.r.IntN(4000))*time.Millisecond
	}
	engineErr := h.r.IntN(16) < h.u.harness.engineError
	for i := 1; i <= steps; i++ {
		h.after(now, gap*time.Duration(i), func(now time.Time) { h.emitProgress(now, t, i) })
	}
	var end func(now time.Time)
	end = func(now time.Time) {
		// A cancel that reached the native turn wins: it settles the turn.
		if t.settled || t.done || t.cancelled {
			return
		}
		if t.writesOut > 0 {
			t.endPending = end
			return
		}
		outcome := check.NativeCompleted
		if engineErr {
			outcome = check.NativeFailed
			h.event(now, t, wire.RunError{Error: "simulated engine error", Code: "server_error"})
		}
		h.finishNative(now, t, outcome)
	}
	h.after(now, gap*time.Duration(steps+1), end)
}

func (h *harness) emitProgress(now time.Time, t *hTurn, i int) {
	if t.settled || t.done {
		return
	}
	t.content += "x"
	h.event(now, t, wire.Delta{Delta: "x", Sequence: uint64(i)})
	if i%2 == 0 {
		t.usage += int64(10 + h.r.IntN(50))
		h.event(now, t, wire.UsageUpdate{Usage: h.usage(t)})
	}
}

func (h *harness) usage(t *hTurn) wire.Usage {
	return wire.Usage{Tokens: &wire.TokenUsage{InputTokens: t.usage, OutputTokens: t.usage / 2, TotalTokens: t.usage + t.usage/2}}
}

func (h *harness) event(now time.Time, t *hTurn, p wire.Payload) {
	h.n.feed(now, daemon.NativeTurnEvent{Turn: t.id, Event: p})
}

// finishNative emits the native terminal result and settles the turn.
func (h *harness) finishNative(now time.Time, t *hTurn, outcome string) {
	t.done = true
	done := h.outcome(t)
	h.event(now, t, done)
	h.settle(now, t, outcome)
}

func (h *harness) outcome(t *hTurn) wire.Done {
	// The native session is the Session's: it continues across turns.
	native := "native-" + t.run
	if ex := h.execs[t.exec]; ex != nil {
		native = "native-" + ex.session
	}
	d := wire.Done{Content: t.content, Metadata: &wire.DoneMetadata{AgentSessionID: native}}
	if t.usage > 0 {
		u := h.usage(t)
		d.Usage = &u
	}
	return d
}

// settle records the native settlement and answers settlement waiters.
func (h *harness) settle(now time.Time, t *hTurn, outcome string) {
	if t.settled {
		return
	}
	t.settled, t.outcome = true, outcome
	if outcome == check.NativeCompleted && h.u.cfg.breakTruth == truthCompletedAsCancelled {
		outcome = check.NativeCancelled
	}
	h.u.led.TurnSettled(h.u.lt(now), t.run, outcome)
	h.u.count("TurnSettled")
	h.u.nativeOutcome[t.run] = outcome
	waiters := t.waiters
	t.waiters = nil
	for _, c := range waiters {
		h.answerSettled(now, c, t)
	}
}

func (h *harness) answerSettled(now time.Time, c daemon.CallID, t *hTurn) {
	notReusable := h.take(kNotReusable)
	h.after(now, h.latency(), func(now time.Time) {
		r := daemon.SettleResult{Settled: true, Reusable: true, Outcome: h.outcome(t)}
		if notReusable {
			r.Reusable, r.Reason = false, "simulated native session not reusable"
		}
		h.result(now, c, r)
	})
}

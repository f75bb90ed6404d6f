package harness

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// ResultMsg is a reply carrying the result of a native call.
type ResultMsg struct{ Result daemon.Result }

// EventMsg is a reply carrying a native event of a Turn (a
// daemon.NativeTurnEvent or daemon.NativeInputApplied), streamed on the
// call that caused it.
type EventMsg struct{ Event daemon.Event }

func (m ResultMsg) Describe() string { return m.Result.Describe() }
func (m EventMsg) Describe() string  { return m.Event.Describe() }

// flushTimer is injected at heal to release replies held by Hang and
// SettleNever.
const flushTimer sim.TimerID = "heal-flush"

// Harness is the simulated Harness: a sim service answering the native
// calls of one daemon in virtual time, with seeded latencies and faults,
// recording ground truth. Build it in Setup with New and register it with
// World.AddNode(id, h.Factory).
type Harness struct {
	w     *sim.World
	id    sim.NodeID
	cfg   Config
	rng   *rand.Rand
	truth *Truth

	exec    map[string]*hExec
	turns   map[daemon.TurnID]*hTurn
	actions map[sim.TimerID]func(now time.Time) []sim.Effect
	seq     uint64
	held    []func(now time.Time) []sim.Effect

	rec    Recorder
	device string
}

// Recorder receives ground truth as it happens, in the shape of the
// simulator's check ledger (times are virtual UnixNano; outcome is
// "completed", "failed" or "cancelled").
type Recorder interface {
	ExecutorCreated(at int64, device, executor string)
	ExecutorClosed(at int64, device, executor string)
	TurnCreated(at int64, device, run string)
	InputApplied(at int64, run, input string)
	TurnSettled(at int64, run, outcome string)
}

// SetRecorder forwards ground truth to r, naming this Harness's device.
func (h *Harness) SetRecorder(device string, r Recorder) {
	h.device = device
	h.rec = r
}

type hExec struct {
	truth *ExecutorTruth
	turn  daemon.TurnID // the live Turn, if any
}

type hTurn struct {
	truth    *TurnTruth
	caller   sim.NodeID
	call     sim.CallID // StartTurn call: the stream native events go on
	content  string
	seq      uint64
	tokens   int64
	waiters  []waiter // AwaitSettlement calls until native settlement
	quiet    bool     // no more native events
	natively bool     // settled on the native side
	late     int      // events still to emit after cancel
}

type waiter struct {
	from sim.NodeID
	call sim.CallID
}

// New builds the Harness for node id, drawing from the world's "harness:<id>"
// stream. It registers a heal hook that releases held replies.
func New(w *sim.World, id sim.NodeID, cfg Config) *Harness {
	h := &Harness{w: w, id: id, cfg: cfg.withDefaults(), truth: newTruth()}
	h.rng = w.Rand("harness:" + string(id))
	h.exec = map[string]*hExec{}
	h.turns = map[daemon.TurnID]*hTurn{}
	h.actions = map[sim.TimerID]func(time.Time) []sim.Effect{}
	w.OnHeal(func() { w.Inject(id, sim.TimerFired{Timer: flushTimer}) })
	return h
}

// Factory returns h itself: the native side survives nothing but keeps its
// truth for the checkers.
func (h *Harness) Factory() sim.Node { return h }

// Truth returns the ground truth.
func (h *Harness) Truth() *Truth { return h.truth }

// Config returns the configuration in use.
func (h *Harness) Config() Config { return h.cfg }

// Step answers calls and runs delayed native work.
func (h *Harness) Step(now time.Time, ev sim.Event) []sim.Effect {
	switch e := ev.(type) {
	case sim.CallReceived:
		return h.call(now, e)
	case sim.TimerFired:
		if e.Timer == flushTimer {
			return h.flush(now)
		}
		if fn, ok := h.actions[e.Timer]; ok {
			delete(h.actions, e.Timer)
			return fn(now)
		}
	}
	return nil
}

// fault draws one decision of a fault kind; faults stop at heal.
func (h *Harness) fault(r sim.Ratio) bool {
	if h.w.Healed() {
		return false
	}
	return r.Chance(h.rng)
}

func (h *Harness) latency() time.Duration {
	lo, hi := h.cfg.LatencyMin, h.cfg.LatencyMax
	return lo + time.Duration(h.rng.Int64N(int64(hi-lo)+1))
}

func between(r *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(r.Int64N(int64(hi-lo)+1))
}

// after runs fn d from now (as a harness timer).
func (h *Harness) after(now time.Time, d time.Duration, fn func(now time.Time) []sim.Effect) sim.Effect {
	h.seq++
	id := sim.TimerID("a" + strconv.FormatUint(h.seq, 10))
	h.actions[id] = fn
	return sim.SetTimer{Timer: id, At: now.Add(d)}
}

// reply answers after a latency, or holds the answer until heal (Hang).
func (h *Harness) reply(now time.Time, fn func(now time.Time) []sim.Effect) []sim.Effect {
	if h.fault(h.cfg.Faults.Hang) {
		h.w.Sometimes("harness_hang")
		h.held = append(h.held, fn)
		return nil
	}
	return []sim.Effect{h.after(now, h.latency(), fn)}
}

func (h *Harness) flush(now time.Time) []sim.Effect {
	var out []sim.Effect
	held := h.held
	h.held = nil
	for _, fn := range held {
		out = append(out, h.after(now, h.latency(), fn))
	}
	return out
}

func result(to sim.NodeID, c sim.CallID, r daemon.Result) sim.Effect {
	return sim.Reply{To: to, Call: c, Res: ResultMsg{r}}
}

func event(to sim.NodeID, c sim.CallID, e daemon.Event) sim.Effect {
	return sim.Reply{To: to, Call: c, Res: EventMsg{e}}
}

func (h *Harness) call(now time.Time, e sim.CallReceived) []sim.Effect {
	switch op := e.Req.(type) {
	case daemon.Prepare:
		return h.reply(now, func(now time.Time) []sim.Effect { return h.prepare(now, e, op) })
	case daemon.StartTurn:
		return h.reply(now, func(now time.Time) []sim.Effect { return h.start(now, e, op) })
	case daemon.DurableWrite:
		return h.write(now, e, op)
	case daemon.Cancel:
		return h.reply(now, func(now time.Time) []sim.Effect { return h.cancel(now, e, op) })
	case daemon.AwaitSettlement:
		return h.await(now, e, op)
	case daemon.CloseExecutor:
		return h.reply(now, func(now time.Time) []sim.Effect { return h.close(now, e, op) })
	}
	return nil
}

func (h *Harness) prepare(now time.Time, e sim.CallReceived, op daemon.Prepare) []sim.Effect {
	if h.fault(h.cfg.Faults.PrepareFailure) {
		h.w.Sometimes("harness_prepare_failure")
		return []sim.Effect{result(e.From, e.Call, daemon.PrepareResult{Err: "native preparation failed"})}
	}
	if h.truth.executors[op.Executor] != nil {
		h.truth.violate("executor %s prepared twice", op.Executor)
	}
	t := &ExecutorTruth{ID: op.Executor, Session: op.Session, CreatedAt: now}
	h.truth.executors[op.Executor] = t
	h.exec[op.Executor] = &hExec{truth: t}
	if h.rec != nil {
		h.rec.ExecutorCreated(now.UnixNano(), h.device, op.Executor)
	}
	return []sim.Effect{result(e.From, e.Call, daemon.PrepareResult{})}
}

func (h *Harness) close(now time.Time, e sim.CallReceived, op daemon.CloseExecutor) []sim.Effect {
	x := h.exec[op.Executor]
	if x == nil || x.truth.Closed {
		h.truth.violate("close of unknown or closed executor %s", op.Executor)
		return []sim.Effect{result(e.From, e.Call, daemon.CloseResult{Err: "unknown executor"})}
	}
	if t := h.turns[x.turn]; t != nil && !t.natively {
		h.truth.violate("executor %s closed under unsettled turn %s", op.Executor, x.turn)
	}
	if h.fault(h.cfg.Faults.CloseFailure) {
		h.w.Sometimes("harness_close_failure")
		return []sim.Effect{result(e.From, e.Call, daemon.CloseResult{Err: "native close failed"})}
	}
	x.truth.Closed = true
	x.truth.ClosedAt = now
	if h.rec != nil {
		h.rec.ExecutorClosed(now.UnixNano(), h.device, op.Executor)
	}
	return []sim.Effect{result(e.From, e.Call, daemon.CloseResult{})}
}

// doneSnapshot is the continuity snapshot of a Turn so far.
func (t *hTurn) doneSnapshot() wire.Done {
	d := wire.Done{Content: t.content, Metadata: &wire.DoneMetadata{AgentSessionID: "native-" + t.truth.Executor}}
	if t.tokens > 0 {
		d.Usage = &wire.Usage{Tokens: &wire.TokenUsage{OutputTokens: t.tokens, TotalTokens: t.tokens}}
	}
	return d
}

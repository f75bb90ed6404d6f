package harness

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// Config is the seeded behaviour of the simulated Harness (its faults are
// scheduled fault kinds, not configuration).
type Config struct {
	SlowPrepare  int // chance in 8 that a preparation takes 1–8 s
	EngineError  int // chance in 16 that a turn ends with an engine error
	LongTurnsMax int // long native turns (16–48 s) per device

	// Latencies around the documents' timers, so that each timer is
	// sometimes the one that decides (see latency.go).
	SlowStart      int  // chance in 8 that a StartTurn answers after 3–20 s (cancels meet not_ready past Core's 15 s)
	SlowWrite      int  // chance in 8 that a durable write answers after 8–12 s (around the 10 s write budget)
	SlowCancel     int  // chance in 8 that a cancelled Turn settles 8–18 s later (around the 10 s and 15 s waits)
	GlacialPrepare bool // the device's first preparation, and its first within 60 s after heal, take 290–320 s (around the 5 min admission expiry)
	SlowWorkspace  int  // chance in 8 that a native workspace read, install or export answers around Core's wait (workspace_latency.go)

	// SlowClose is the chance in 8 that an executor close takes 1–6 s
	// (workload shapes with capacity pressure set it; 0 draws nothing).
	SlowClose int
	// DoneWithoutUsage: the native terminal result carries no usage even
	// when usage snapshots were emitted (the last snapshot stands).
	DoneWithoutUsage bool
	// ShortTurns: every native turn plays one or two steps 50–300 ms
	// apart, none long (many short Turns drain in time).
	ShortTurns bool
	// CancelRetires: a Turn the daemon cancelled settles Reusable=false, as
	// a native cancel may require retirement rather than reuse (the daemon
	// must then confirm the executor's close before done or an applied
	// cancel receipt).
	CancelRetires bool
	// RetireShare is the chance in 4 that any settlement answers
	// Reusable=false (workload shapes with capacity pressure set it, so
	// that closing executors hold their Turn's slot while others queue;
	// 0 retires only through faults and CancelRetires).
	RetireShare int
	// PollPeriod, when set, is how often the Harness's adapter polls its
	// native engine: it learns a native turn's natural end, and answers
	// settlement waits, only at poll ticks (multiples of the period in
	// virtual time). Turns whose native work ends within one period end,
	// and their executors become idle, at one instant (drawn per seed in
	// sim/world; 0 answers as soon as known).
	PollPeriod time.Duration
	// Asks is how native turns ask for permissions, user choices and
	// function results (interaction.go); the zero value asks now and then
	// and never waits.
	Asks AskConfig
}

// DrawConfig draws a Config from r: slow preparations and engine errors
// vary per seed; one long turn per device; each latency around a timer is
// off in most seeds and likely in a few.
func DrawConfig(r *rand.Rand) Config {
	c := Config{SlowPrepare: r.IntN(4), EngineError: r.IntN(3), LongTurnsMax: 1}
	c.SlowStart = swarmChance(r)
	c.SlowWrite = swarmChance(r)
	c.SlowCancel = swarmChance(r)
	c.GlacialPrepare = r.IntN(10) == 0
	c.SlowWorkspace = drawSlowWorkspace(r)
	return c
}

// Host is the process the Harness runs in: it arms node timers for the
// Harness (IDs with the prefix TimerPrefix, handed back to Fire) and feeds
// native results and events to the daemon machine.
type Host interface {
	Schedule(id sim.TimerID, at time.Time)
	Feed(now time.Time, ev daemon.Event)
}

// TimerPrefix starts every timer ID the Harness schedules.
const TimerPrefix = "h/"

// Harness is the simulated Harness of one device, inside its daemon
// process: it answers native calls after seeded latencies, runs native
// turns, applies written inputs, and records ground truth (in its Truth
// and the device's Recorder) at the instant each native fact happens.
// Armed faults of the device change how the next matching call behaves.
type Harness struct {
	w          *sim.Kernel
	boundsPick int // harness_workspace_read_out_of_bounds answers so far (workspace.go)
	dev        *Device
	host       Host
	r          *rand.Rand
	truth      *Truth
	execs      map[string]*hExec
	turns      map[daemon.TurnID]*hTurn
	actions    map[sim.TimerID]func(now time.Time)
	hung       []func(now time.Time)
	seq        uint64
	budget     time.Duration  // the daemon's native write budget
	native     *NativeHistory // this Harness's own memory when the device shares none
	// wsReaders are the open read-only workspace profiles (workspace.go).
	wsReaders map[string]*hReader
	xfers     map[string]*hTransfer // runtime_prepare staging (transfers.go)
	ix        *hAsks                // interactions (interaction.go)
	sr        *rand.Rand            // subagent draws (subagents.go)
	su        *rand.Rand            // unasked subagent draws (subagents.go)
}

type hExec struct {
	id         string
	session    string
	closeFails int           // failed closes so far
	live       daemon.TurnID // the unsettled Turn on it, if any
	forks      bool          // a new native root prepared while the Session had history
	subagents  bool          // prepared with observe_subagent_identities
	truth      *ExecutorTruth
}

type hTurn struct {
	id        daemon.TurnID
	run       string
	exec      string
	settled   bool
	cancelled bool
	waiters   []daemon.CallID
	usage     int64
	content   string
	done      bool // a native terminal result (wire.Done) was emitted
	writesOut int  // write calls not answered yet
	// writing is the input whose durable write is out, "" when none:
	// one input per Run is in flight (a second write while one is out,
	// even past the daemon's budget, must have been refused busy)
	writing string
	// endPending is the natural end, deferred while writes are out.
	endPending func(now time.Time)
	truth      *TurnTruth
	// subagents are the planned subagent reports, emitted along the
	// progress steps (subagents.go); subNext is the next one; steps is
	// the script's progress step count.
	subagents []wire.Payload
	subNext   int
	steps     int
	// unasked: the subagents are reported although the executor was not
	// prepared with observe_subagent_identities (the daemon drops them)
	unasked bool
}

// New builds the Harness of device dev inside host, drawing from the
// world's "harness:<device>" stream.
func New(w *sim.Kernel, dev *Device, host Host) *Harness {
	return &Harness{w: w, dev: dev, host: host, r: w.Rand("harness:" + string(dev.ID)), truth: newTruth(),
		execs: map[string]*hExec{}, turns: map[daemon.TurnID]*hTurn{}, actions: map[sim.TimerID]func(time.Time){},
		budget: documentedOr(dev.Daemon.Limits.NativeWriteBudget, check.TimerNativeWrite)}
}

// documentedOr is d, or the documents' value of timer when the world left
// it zero (the daemon's default, which the simulation never reads back).
func documentedOr(d time.Duration, timer string) time.Duration {
	if d == 0 {
		return check.DocumentedTimer(timer)
	}
	return d
}

// Truth returns the ground truth of this Harness (this process's life).
func (h *Harness) Truth() *Truth { return h.truth }

// after runs fn d from now (a host timer).
func (h *Harness) after(now time.Time, d time.Duration, fn func(now time.Time)) {
	h.seq++
	id := sim.TimerID(TimerPrefix + strconv.FormatUint(h.seq, 10))
	h.actions[id] = fn
	h.host.Schedule(id, now.Add(d))
}

// Fire runs the Harness work due on timer id; it reports whether id was a
// Harness timer.
func (h *Harness) Fire(now time.Time, id sim.TimerID) bool {
	if !strings.HasPrefix(string(id), TimerPrefix) {
		return false
	}
	if fn, ok := h.actions[id]; ok {
		delete(h.actions, id)
		fn(now)
	}
	return true
}

// Heal releases every call hung until the heal time.
func (h *Harness) Heal(now time.Time) {
	hung := h.hung
	h.hung = nil
	for _, fn := range hung {
		fn(now)
	}
}

// polled stretches a delay d from now to the next poll tick when the
// adapter polls its native engine (Config.PollPeriod).
func (h *Harness) polled(now time.Time, d time.Duration) time.Duration {
	p := h.dev.Harness.PollPeriod
	if p <= 0 {
		return d
	}
	if late := now.Add(d).Sub(sim.Epoch) % p; late != 0 {
		d += p - late
	}
	return d
}

func (h *Harness) latency() time.Duration {
	return time.Duration(2+h.r.IntN(150)) * time.Millisecond
}

func (h *Harness) take(k sim.FaultKind) bool { return h.dev.take(k) }

// result feeds a native result to the machine.
func (h *Harness) result(now time.Time, c daemon.CallID, r daemon.Result) {
	if tr := h.timing(); tr != nil {
		tr.NativeAnswered(at(now), string(h.dev.ID))
	}
	h.host.Feed(now, daemon.NativeResult{Call: c, Result: r})
}

// later answers after a latency, or at heal when a hang fault is armed.
func (h *Harness) later(now time.Time, d time.Duration, fn func(now time.Time)) {
	if h.take(Hang) {
		h.hung = append(h.hung, fn)
		return
	}
	h.after(now, d, fn)
}

// Call starts answering one native call of the machine.
func (h *Harness) Call(now time.Time, e daemon.NativeCall) {
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
	case daemon.StageChunk:
		h.stage(now, e.Call, op)
	case daemon.InstallTransfer:
		h.install(now, e.Call, op)
	case daemon.DiscardTransfer:
		h.discard(now, e.Call, op)
	default:
		if !h.workspaceCall(now, e.Call, e.Op) {
			h.decisionCall(now, e)
		}
	}
}

func (h *Harness) prepare(now time.Time, c daemon.CallID, op daemon.Prepare) {
	h.notePrepare(now, op)
	d := h.latency()
	if h.r.IntN(8) < h.dev.Harness.SlowPrepare {
		d = time.Duration(1000+h.r.IntN(7000)) * time.Millisecond
	}
	d = h.glacialPrepare(now, d)
	fail := h.take(PrepareFailure)
	retained := fail && h.r.IntN(2) == 0                      // the failure leaves its executor behind
	refusal, forks := h.nativeRefusal(op), h.forksHistory(op) // decided on the request
	h.later(now, d, func(now time.Time) {
		if retained {
			h.execs[op.Executor] = &hExec{id: op.Executor, session: op.Session, forks: forks,
				subagents: op.Configuration.ObserveSubagentIdentities, truth: h.executorCreated(now, op)}
			h.result(now, c, daemon.PrepareResult{Err: "simulated prepare failure", Retained: true})
			return
		}
		if fail {
			h.prepareFailed(now, op)
			h.result(now, c, daemon.PrepareResult{Err: "simulated prepare failure"})
			return
		}
		if refusal != "" {
			h.prepareFailed(now, op)
			h.result(now, c, daemon.PrepareResult{Err: refusal})
			return
		}
		h.execs[op.Executor] = &hExec{id: op.Executor, session: op.Session, forks: forks,
			subagents: op.Configuration.ObserveSubagentIdentities, truth: h.executorCreated(now, op)}
		h.result(now, c, daemon.PrepareResult{})
	})
}

func (h *Harness) start(now time.Time, c daemon.CallID, op daemon.StartTurn) {
	failNil, failTurn := h.take(StartFailureNil), h.take(StartFailureTurn)
	h.later(now, h.askBeforeStart(now, op, h.startLatency()), func(now time.Time) {
		h.truth.startCalls[op.Run]++
		h.startAnswered(now, op.Run)
		ex := h.execs[op.Executor]
		switch {
		case ex == nil || ex.truth.Retired:
			h.truth.violate("start of run %s on unusable executor %s", op.Run, op.Executor)
		case ex.live != "":
			h.truth.violate("start of run %s while turn %s is live on %s", op.Run, ex.live, op.Executor)
		case ex.forks:
			h.truth.violate("start of run %s on executor %s, a new native root although native session %s holds session %s's history",
				op.Run, op.Executor, nativeSessionID(ex.session), ex.session)
		}
		if failNil {
			h.result(now, c, daemon.StartResult{Err: "simulated start failure before input"})
			return
		}
		t := &hTurn{id: op.Turn, run: op.Run, exec: op.Executor, truth: h.turnCreated(now, op)}
		h.turns[op.Turn] = t
		if ex != nil {
			ex.live = op.Turn
			h.history().record(ex.session)
		}
		if failTurn {
			t.truth.Failed = true
			h.result(now, c, daemon.StartResult{Turn: true, Err: "simulated start failure after input"})
			h.after(now, h.latency(), func(now time.Time) { h.settle(now, t, check.NativeFailed) })
			return
		}
		h.result(now, c, daemon.StartResult{Turn: true})
		switch {
		case ex != nil && ex.subagents:
			t.subagents = h.planSubagents(t)
		case ex != nil:
			t.subagents = h.planUnasked(t)
			t.unasked = t.subagents != nil
		}
		h.script(now, t)
	})
}

// cancel asks the native turn to stop. A cancel-failure fault fails the
// request (the turn runs on); otherwise the turn settles as cancelled after
// a short delay, late (seconds), or only at heal, and late events may
// follow.
func (h *Harness) cancel(now time.Time, c daemon.CallID, op daemon.Cancel) {
	t := h.turns[op.Turn]
	if t == nil {
		h.truth.violate("cancel of unknown turn %s", op.Turn)
	}
	if h.take(CancelFailure) {
		h.after(now, h.latency(), func(now time.Time) {
			if tr := h.timing(); tr != nil && t != nil {
				tr.CancelFailed(at(now), string(h.dev.ID), t.run)
			}
			h.result(now, c, daemon.CancelResult{Err: "simulated cancel failure"})
		})
		return
	}
	h.after(now, h.latency(), func(now time.Time) { h.result(now, c, daemon.CancelResult{}) })
	if t == nil || t.settled || t.cancelled {
		return
	}
	t.cancelled = true
	t.truth.Cancelled = true
	late := h.take(LateEvents)
	stop := func(now time.Time) { h.stop(now, t, late) }
	switch {
	case h.take(CancelNever):
		h.hung = append(h.hung, stop)
	case h.take(CancelLate):
		h.after(now, time.Duration(5000+h.r.IntN(15000))*time.Millisecond, stop)
	default:
		h.after(now, h.cancelLatency(), stop)
	}
}

// await answers once the turn has settled.
func (h *Harness) await(now time.Time, c daemon.CallID, op daemon.AwaitSettlement) {
	t := h.turns[op.Turn]
	if t != nil {
		h.settleCalled(now, t.run)
	}
	switch {
	case t == nil:
		h.truth.violate("settlement awaited for unknown turn %s", op.Turn)
		h.after(now, h.latency(), func(now time.Time) { h.result(now, c, daemon.SettleResult{Err: "unknown turn"}) })
	case t.settled:
		h.answerSettled(now, c, t)
	default:
		t.waiters = append(t.waiters, c)
	}
}

// answerSettled answers one settlement wait: unconfirmed under a
// settle-error fault, else settled (not reusable under that fault).
func (h *Harness) answerSettled(now time.Time, c daemon.CallID, t *hTurn) {
	if h.take(SettleError) {
		h.after(now, h.latency(), func(now time.Time) {
			h.settleAnswered(now, t.run, false)
			h.result(now, c, daemon.SettleResult{Err: "simulated settlement unconfirmed"})
		})
		return
	}
	notReusable := h.take(NotReusable) || h.dev.Harness.CancelRetires && t.cancelled
	if share := h.dev.Harness.RetireShare; share > 0 && h.r.IntN(4) < share {
		notReusable = true
	}
	h.after(now, h.polled(now, h.latency()), func(now time.Time) {
		r := daemon.SettleResult{Settled: true, Reusable: true, Outcome: h.outcome(t)}
		if notReusable {
			r.Reusable, r.Reason = false, "simulated native session not reusable"
			if ex := h.execs[t.exec]; ex != nil {
				ex.truth.Retired = true
			}
			if rr, ok := h.dev.Recorder.(RetireRecorder); ok {
				rr.ExecutorRetired(at(now), string(h.dev.ID), t.run, t.exec)
			}
		}
		t.truth.Reported = true
		h.settleAnswered(now, t.run, true)
		h.result(now, c, r)
	})
}

// close retires an executor; a close-failure fault fails one attempt
// (the daemon retries). A live turn on it is killed.
func (h *Harness) close(now time.Time, c daemon.CallID, op daemon.CloseExecutor) {
	ex := h.execs[op.Executor]
	if cr, ok := h.dev.Recorder.(CloseRecorder); ok {
		cr.CloseRequested(at(now), string(h.dev.ID), op.Executor)
	}
	if ex != nil && ex.closeFails > 0 && h.dev.Recorder != nil {
		h.dev.Recorder.CloseRetried(at(now), string(h.dev.ID), op.Executor)
	}
	if tr := h.timing(); tr != nil {
		tr.CloseCalled(at(now), string(h.dev.ID), op.Executor)
	}
	fail := h.take(CloseFailure)
	d := h.latency()
	if h.dev.Harness.SlowClose > 0 && h.r.IntN(8) < h.dev.Harness.SlowClose {
		d = time.Duration(1000+h.r.IntN(5000)) * time.Millisecond
	}
	h.later(now, d, func(now time.Time) {
		if fail {
			if ex != nil {
				ex.closeFails++
			}
			h.closeFailed(now, op.Executor)
			h.closeAnswered(now, op.Executor, false)
			h.result(now, c, daemon.CloseResult{Err: "simulated close failure"})
			return
		}
		if ex == nil {
			h.truth.violate("close of unknown or closed executor %s", op.Executor)
		}
		for _, id := range sortedTurnIDs(h.turns) {
			if t := h.turns[id]; t.exec == op.Executor && !t.settled {
				h.truth.violate("executor %s closed under unsettled turn %s", op.Executor, id)
				h.settle(now, t, check.NativeFailed)
			}
		}
		if ex != nil {
			delete(h.execs, op.Executor)
			h.executorClosed(now, ex, false)
		}
		h.closeAnswered(now, op.Executor, true)
		h.result(now, c, daemon.CloseResult{})
	})
}

// processDied records the end of every native resource when the daemon
// process (and the Harness inside it) dies: live turns settle failed and
// executors close, both marked as ended by the crash.
func (h *Harness) processDied(now time.Time) {
	if tr := h.timing(); tr != nil {
		tr.ProcessDied(at(now), string(h.dev.ID))
	}
	for _, id := range sortedTurnIDs(h.turns) {
		if t := h.turns[id]; !t.settled {
			t.truth.EndedByCrash = true
			t.waiters = nil // nobody is left to answer
			h.settle(now, t, check.NativeFailed)
		}
	}
	for _, id := range sortedKeys(h.execs) {
		h.executorClosed(now, h.execs[id], true)
	}
	h.execs = map[string]*hExec{}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m { //tidy:sorted sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedTurnIDs[V any](m map[daemon.TurnID]V) []daemon.TurnID {
	keys := make([]daemon.TurnID, 0, len(m))
	for k := range m { //tidy:sorted sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

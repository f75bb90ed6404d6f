package check

import "github.com/turnstile-sim/turnstile/wire"

// The idle executor expiry oracle (rule timing_idle_executor_expiry,
// Rules). An executor becomes idle when the daemon publishes done for the
// Run it served (it parks the executor in the same step), or when an
// admission reserving a prepared executor ends (released, expired) — or,
// for one still preparing, when the Harness finishes preparing it. It
// stays idle until a status or starting status names it again. The close
// calls are the Harness's ground truth; an eviction (over the idle limit,
// or to make room) comes in the instant another executor of the device
// went idle, or a native answer or an execution_prepare reached it.

// idleRec is an executor's idle stretch, bounded from when it went idle:
// settled once it is busy again or a close call reached the Harness.
type idleRec struct {
	device, executor string
	timerWindow
}

type idleState struct {
	runExec       map[string]string   // device\x00run → executor of its start
	prepared      map[string]bool     // device\x00executor → a ready status named it
	pendingIdle   map[string]bool     // device\x00executor → admission ended while preparing
	closing       map[string]bool     // device\x00executor → a close was called
	current       map[string]*idleRec // device\x00executor → its latest idle stretch
	lastIdle      map[string]string   // device → executor that went idle at lastIdleAt
	lastIdleAt    map[string]int64
	lastPrepareAt map[string]int64 // device → last execution_prepare it received
	lastAnswerAt  map[string]int64 // device → last native answer it received
	lastConnEnd   map[string]int64 // device → last instant it learned its connection ended
	lastExpiry    map[string]int64 // device → last instant it expired an admission (sent or lost)
	shutdown      map[string]bool
	handle        map[string]string // device\x00executor → handle of its latest admission
}

func (s *idleState) init() {
	s.runExec = map[string]string{}
	s.prepared = map[string]bool{}
	s.pendingIdle = map[string]bool{}
	s.closing = map[string]bool{}
	s.current = map[string]*idleRec{}
	s.lastIdle = map[string]string{}
	s.lastIdleAt = map[string]int64{}
	s.lastPrepareAt = map[string]int64{}
	s.lastAnswerAt = map[string]int64{}
	s.lastConnEnd = map[string]int64{}
	s.lastExpiry = map[string]int64{}
	s.shutdown = map[string]bool{}
	s.handle = map[string]string{}
}

func (l *Ledger) idleDaemonReceived(ev WireEvent) {
	if _, ok := ev.Frame.Payload.(wire.ExecutionPrepare); ok {
		l.timing.idle.lastPrepareAt[ev.To] = ev.At
	}
	if p, ok := ev.Frame.Payload.(wire.ExecutionStart); ok && !ev.Hostile() {
		s := &l.timing.idle
		// A forged start (refused) must not rebind an honest Run ID to
		// another executor.
		// Only the daemon's starting status takes it: a start on an
		// expired handle is refused and leaves the executor idle.
		s.runExec[pairKey(ev.To, p.RunID)] = p.ExecutorID
	}
}

func (l *Ledger) idleDaemonSent(ev WireEvent) {
	s := &l.timing.idle
	switch p := ev.Frame.Payload.(type) {
	case wire.Done:
		if ex := s.runExec[pairKey(ev.From, ev.Frame.ID)]; ex != "" {
			l.idleStart(ev.At, ev.From, ex)
		}
	case wire.PreparationStatus:
		if p.ExecutorID == "" {
			return
		}
		k := pairKey(ev.From, p.ExecutorID)
		switch p.State {
		case wire.StatePreparing, wire.StateStarting, wire.StateStarted:
			s.noteHandle(k, p.Handle)
			l.idleBusy(ev.From, p.ExecutorID)
		case wire.StateReady:
			s.noteHandle(k, p.Handle)
			s.prepared[k] = true
			l.idleBusy(ev.From, p.ExecutorID)
		case wire.StateReleased, wire.StateExpired:
			if h := s.handle[k]; h != "" && p.Handle != "" && p.Handle != h {
				return // a republished end of an earlier admission: the executor is held by a later one
			}
			if s.prepared[k] {
				l.idleStart(ev.At, ev.From, p.ExecutorID)
			} else {
				s.pendingIdle[k] = true
			}
		}
	}
}

func (s *idleState) noteHandle(k, handle string) {
	if handle != "" {
		s.handle[k] = handle
	}
}

// idleExecutorCreated: an executor whose admission ended while it was
// preparing becomes idle when its preparation completes.
func (l *Ledger) idleExecutorCreated(at int64, device, executor string) {
	s := &l.timing.idle
	k := pairKey(device, executor)
	if s.pendingIdle[k] {
		delete(s.pendingIdle, k)
		s.prepared[k] = true
		l.idleStart(at, device, executor)
	}
}

func (l *Ledger) idleBusy(device, executor string) {
	s := &l.timing.idle
	k := pairKey(device, executor)
	delete(s.pendingIdle, k)
	if r := s.current[k]; r != nil {
		r.settled = true
	}
}

func (l *Ledger) idleStart(at int64, device, executor string) {
	s := &l.timing.idle
	k := pairKey(device, executor)
	if s.closing[k] {
		return // closed before its Run ended (not reusable): never idle
	}
	if r := s.current[k]; r != nil && !r.settled {
		return
	}
	s.lastIdle[device], s.lastIdleAt[device] = executor, at
	r := &idleRec{device: device, executor: executor}
	s.current[k] = r
	l.startWindow(&r.timerWindow, device, TimerIdleExecutor, 0, at, l.timer(device, TimerIdleExecutor), func() {
		if r.live() {
			r.settled = true
			l.report(&r.timerWindow, r.deadline, "executor %s on %s idle since %s was not closed at %s, the end of its %s idle bound",
				r.executor, r.device, vtime(r.from), vtime(r.deadline), r.length())
		}
	})
	if s.shutdown[device] {
		r.excuse(at, "shutdown requested")
	}
}

// CloseCalled records the Harness receiving a close of executor (ground
// truth), whether or not it succeeds.
func (l *Ledger) CloseCalled(at int64, device, executor string) {
	l.advance(at)
	l.closeRetryCalled(at, device, executor) // timing_close_retry.go
	s := &l.timing.idle
	k := pairKey(device, executor)
	s.closing[k] = true
	r := s.current[k]
	if r == nil || r.settled {
		return
	}
	r.settled = true
	switch {
	case r.excused != "" || s.shutdown[device]:
	case at == r.deadline:
		l.decide(TimerIdleExecutor)
	case at < r.deadline:
		// An eviction closes it in the step that parks another executor,
		// whose done may follow the close call: judge once the instant is over.
		l.arm(at, func() {
			if s.lastIdleAt[device] == at && s.lastIdle[device] != executor {
				return // evicted over the idle limit
			}
			if t, ok := s.lastPrepareAt[device]; ok && t == at {
				return // evicted to make room for a preparation
			}
			if t, ok := s.lastAnswerAt[device]; ok && t == at {
				return // a native answer may have parked another executor
			}
			if t, ok := s.lastConnEnd[device]; ok && t == at {
				return // a lost connection parks its admissions' executors
			}
			if t, ok := s.lastExpiry[device]; ok && t == at {
				return // an expired admission parks its executor
			}
			if l.writeBudgetEnds(device, at) {
				return // the daemon's write timer may end a Turn and park its executor
			}
			l.report(&r.timerWindow, at, "%s closed idle executor %s at %s, %s after it went idle at %s: before its %s idle bound",
				device, executor, vtime(at), r.elapsed(at), vtime(r.from), r.length())
		})
	case r.overdue(at):
		l.report(&r.timerWindow, at, "%s closed idle executor %s at %s, after its idle bound ended at %s",
			device, executor, vtime(at), vtime(r.deadline))
	}
}

// NativeAnswered records a native call's result reaching device's daemon
// (ground truth): that step may park an executor and evict another.
func (l *Ledger) NativeAnswered(at int64, device string) {
	l.advance(at)
	l.timing.idle.lastAnswerAt[device] = at
}

// ShutdownRequested records that the world asked device to shut down:
// it closes its idle executors at once.
func (l *Ledger) ShutdownRequested(at int64, device string) {
	l.advance(at)
	l.timing.idle.shutdown[device] = true
	if _, seen := l.hostile.shutdownAt[device]; !seen {
		l.hostile.shutdownAt[device] = at
	}
}

func (l *Ledger) idleExecutorGone(device, executor string) {
	if r := l.timing.idle.current[pairKey(device, executor)]; r != nil {
		r.excuse(-1, "executor closed") // an idle stretch never reads the instant
	}
}

func (l *Ledger) idleNodeDown(node string) {
	s := &l.timing.idle
	for _, m := range []map[string]bool{s.closing, s.prepared, s.pendingIdle} {
		for _, k := range sortedKeys(m) {
			if deviceOfKey(k) == node {
				delete(m, k)
			}
		}
	}
}

func deviceOfKey(k string) string {
	for i := 0; i < len(k); i++ {
		if k[i] == 0 {
			return k[:i]
		}
	}
	return k
}

// idleExpirySeen notes a daemon expiring an admission: its status may be
// lost with a broken connection, but the expiry still parks the executor.
func (l *Ledger) idleExpirySeen(ev WireEvent) {
	if ev.From == CoreNode || ev.Hostile() || !ev.HasFrame() || (ev.Kind != WireSent && ev.Kind != WireLost) {
		return
	}
	if st, ok := ev.Frame.Payload.(wire.PreparationStatus); ok && st.State == wire.StateExpired {
		l.timing.idle.lastExpiry[ev.From] = ev.At
	}
}

// writeBudgetEnds reports whether the budget of a native write on device,
// still outstanding then, ends at at: the daemon's write timer may end that
// Turn and park its executor in that step, unseen on the wire when the
// Turn's connection is gone, and an eviction over the idle limit follows.
func (l *Ledger) writeBudgetEnds(device string, at int64) bool {
	for _, w := range l.timing.writes.all {
		if w.device == device && w.deadline == at && (w.returned < 0 || w.returned >= at) {
			return true
		}
	}
	return false
}

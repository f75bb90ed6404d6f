package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: timing_idle_executor_expiry (rules.go), from the executor index
// (executor_index.go). An executor goes idle when the daemon publishes
// done for its Run (parking it in that step), when an admission reserving
// it prepared ends (released, expired), or, still preparing then, when the
// Harness finishes preparing it; a status naming it again ends the idle
// stretch. The loss of the connection it is bound to excuses the stretch:
// it is closed then, never parked (executor_connection.go).

// idleState is what each device's idle timers share: the executor that
// last went idle, and when the daemon may have parked one unseen.
type idleState struct {
	lastIdle   map[string]string // device → executor that went idle at lastIdleAt
	lastIdleAt map[string]int64
	// parkAt is, per device, the last instant the daemon may have parked
	// an executor unseen by its own idle stretch (an execution_prepare
	// reached it, a native answer, its connection ended, it expired an
	// admission): an eviction may close another then.
	parkAt map[string]int64
}

// idleStart starts executor x's idle stretch on device at at.
func (l *Ledger) idleStart(at int64, device, executor string, x *executor) {
	s := &l.timing.idle
	if x.idle.closing || x.bind.lost {
		return // closed before its Run ended (not reusable), or its connection is gone: never idle
	}
	if r := x.idle.window; r != nil && !r.settled {
		return
	}
	made(&s.lastIdle)[device], made(&s.lastIdleAt)[device] = executor, at
	r := &timerWindow{}
	x.idle.window = r
	l.startWindow(r, device, TimerIdleExecutor, 0, at, l.timer(device, TimerIdleExecutor), func() {
		l.expire(r, "executor %s on %s idle since %s was not closed at %s, the end of its %s idle bound",
			executor, device, vtime(r.from), vtime(r.deadline), r.length())
	})
	if _, down := l.hostile.shutdownAt[device]; down {
		r.excuse(at, "shutdown requested")
		l.shutdownCloses(at, device, executor, "went idle after shutdown was requested")
	}
}

// CloseCalled records the Harness receiving a close of executor (ground
// truth), whether or not it succeeds.
func (l *Ledger) CloseCalled(at int64, device, executor string) {
	l.advance(at)
	s, x := &l.timing.idle, l.execDevice(device).executor(executor)
	l.cleanupCalled(l.timing.cleanup.closes, at, pairKey(device, executor))
	x.idle.closing = true
	x.idle.closingAt = at
	r := x.idle.window
	if r == nil || r.settled {
		return
	}
	r.settled = true
	_, down := l.hostile.shutdownAt[device]
	switch {
	case r.excused != "" || down:
	case at == r.deadline:
		l.decide(TimerIdleExecutor)
	case at < r.deadline:
		// An eviction closes it in the step that parks another executor,
		// whose done may follow the close call: judge once the instant is over.
		l.arm(at, func() {
			t, parked := s.parkAt[device]
			switch {
			case s.lastIdleAt[device] == at && s.lastIdle[device] != executor: // evicted over the idle limit
			case parked && t == at:
			case l.writeBudgetEnds(device, at): // the daemon's write timer may end a Turn and park its executor
			default:
				l.report(r, at, "%s closed idle executor %s at %s, %s after it went idle at %s: before its %s idle bound",
					device, executor, vtime(at), r.elapsed(at), vtime(r.from), r.length())
			}
		})
	case r.overdue(at):
		l.report(r, at, "%s closed idle executor %s at %s, after its idle bound ended at %s",
			device, executor, vtime(at), vtime(r.deadline))
	}
}

// idleParkMayCome notes an instant in which device's daemon may park an
// executor (idleState.parkAt).
func (l *Ledger) idleParkMayCome(at int64, device string) {
	made(&l.timing.idle.parkAt)[device] = at
}

// evictMayCome notes an instant in which a step of device's daemon other
// than a connection's loss may park an executor and evict another, or
// close one (execDevice.evictAt).
func (l *Ledger) evictMayCome(at int64, device string) {
	l.idleParkMayCome(at, device)
	l.execDevice(device).evictAt = at
}

// NativeAnswered records a native call's result reaching device's daemon
// (ground truth): that step may park an executor and evict another.
func (l *Ledger) NativeAnswered(at int64, device string) {
	l.advance(at)
	l.evictMayCome(at, device)
}

// CheckShutdownClosesIdle is rule shutdown_closes_idle (Rules).
const CheckShutdownClosesIdle = "shutdown_closes_idle"

// ShutdownRequested records that the world asked device to shut down:
// it closes its idle executors at once (shutdown_closes_idle).
func (l *Ledger) ShutdownRequested(at int64, device string) {
	l.advance(at)
	if _, again := l.hostile.shutdownAt[device]; again {
		return
	}
	l.hostile.shutdownAt[device] = at
	d := l.execDevice(device)
	for _, id := range sortedKeys(d.execs) {
		if x := d.execs[id]; x.idle.window != nil && !x.idle.window.settled && !x.idle.closing {
			l.shutdownCloses(at, device, id, "idle since "+vtime(x.idle.window.from))
		}
	}
}

// shutdownCloses judges, once instant at is over, that executor of a
// device shutting down had its close called by then (shutdown_closes_idle):
// one idle at the request, or one its Run or admission left idle later.
// A crash forgets the device's executors, and the judgment with them.
func (l *Ledger) shutdownCloses(at int64, device, executor, why string) {
	x := l.execDevice(device).executor(executor)
	l.arm(at, func() {
		if l.execDevice(device).execs[executor] == x && !x.idle.closing {
			l.violate(at, CheckShutdownClosesIdle, "%s, shutting down since %s, did not close executor %s (%s) at %s",
				device, vtime(l.hostile.shutdownAt[device]), executor, why, vtime(at))
		}
	})
}

// idleExpirySeen notes a daemon expiring an admission: its status may be
// lost with a broken connection, but the expiry still parks the executor.
func (l *Ledger) idleExpirySeen(ev WireEvent) {
	if ev.From == CoreNode || ev.Hostile() || !ev.HasFrame() || (ev.Kind != WireSent && ev.Kind != WireLost) {
		return
	}
	if st, ok := ev.Frame.Payload.(wire.PreparationStatus); ok && st.State == wire.StateExpired {
		l.evictMayCome(ev.At, ev.From)
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

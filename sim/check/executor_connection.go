package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckExecutorConnection is rule executor_connection_bound (rules.go),
// from the executor index (executor_index.go) and the Harness's ground
// truth. An executor is bound to the connection it was prepared on: the
// connection of the first status that announced it new (reused=false).
// Three clauses:
//   - no other connection's admission holds it: a status on another
//     connection naming it ready (a reuse), starting or started breaks
//     the rule, and so does a native turn the Harness creates on it for a
//     Run whose honest execution_start reached the device on another
//     connection;
//   - when its connection is lost (closed, or replaced by a newer one)
//     while the daemon had it idle or ready and unstarted (the wire said
//     so: a ready status or a done named it, and no start reached it),
//     its close is called in that instant;
//   - one busy with a Run then is closed in the instant the Run is over
//     for the daemon, from the Harness's ground truth: its settlement
//     answered settled, every native write of the Run returned (or past
//     its budget with its input not consumed by then: its outcome is
//     unknown), every native decision call of the Run answered (the
//     daemon holds the Turn for each).
//
// runtime-harness-protocol (Executor 和 Turn 生命周期, 绑定): Runtime
// 将其 Executor 记录绑定到 Session、Environment、连接和不可变执行配置
// ... 连接丢失会让其所有者和句柄退役.
const CheckExecutorConnection = "executor_connection_bound"

// bindFacts are an executor's connection binding (executor_connection_bound).
type bindFacts struct {
	conn   uint64 // the connection it was announced new on (0: unknown)
	ready  bool   // the daemon said it was prepared (a ready status or a done named it)
	lost   bool   // conn is gone
	lostAt int64
}

// bindStatus follows a status naming executor x sent on conn.
func (l *Ledger) bindStatus(ev WireEvent, st wire.PreparationStatus, x *executor) {
	b := &x.bind
	switch st.State {
	case wire.StatePreparing, wire.StateReady, wire.StateStarting, wire.StateStarted:
	default:
		return
	}
	if b.conn == 0 && !st.Reused && (st.State == wire.StatePreparing || st.State == wire.StateReady) {
		b.conn = ev.Conn
	}
	b.ready = b.ready || st.State != wire.StatePreparing
	if b.conn != 0 && b.conn != ev.Conn {
		l.violate(ev.At, CheckExecutorConnection, "%s answered %s %s on connection %d with executor %s, which was prepared on connection %d",
			ev.From, ev.Frame.ID, st.State, ev.Conn, st.ExecutorID, b.conn)
	}
}

// bindTurnCreated: the Harness created run's native turn (ground truth)
// on the executor the Run's honest start named; the start's connection
// must be the executor's.
func (l *Ledger) bindTurnCreated(at int64, device, run string) {
	d := l.execs.devices[device]
	if d == nil || d.runs[run] == "" {
		return
	}
	id := d.runs[run]
	x, ok := d.execs[id]
	if !ok || x.bind.conn == 0 {
		return
	}
	if c := d.runConn[run]; c != 0 && c != x.bind.conn {
		l.violate(at, CheckExecutorConnection, "%s started run %s natively on executor %s, prepared on connection %d, for a start that came on connection %d",
			device, run, id, x.bind.conn, c)
	}
}

// bindConnLost: executor id of device lost its connection at at. One the
// daemon had idle or ready and unstarted is closed in that instant.
func (l *Ledger) bindConnLost(at int64, device, id string, x *executor) {
	b := &x.bind
	b.lost, b.lostAt = true, at
	if r := x.idle.window; r != nil {
		r.excuse(at, "its connection was lost: it is closed, never parked")
	}
	e := &x.evict
	if e.phase == evictBusy && e.run != "" {
		l.bindRecheck(at, device, e.run) // its Run may be settled already
	}
	parked := e.phase == evictIdle || e.phase == evictReserved && !e.starting
	if !b.ready || !parked || x.idle.closing {
		return
	}
	l.arm(at, func() {
		if l.execDevice(device).execs[id] != x || x.idle.closing {
			return
		}
		l.violate(at, CheckExecutorConnection, "%s did not close executor %s, idle or ready on connection %d, when that connection was lost at %s",
			device, id, b.conn, vtime(at))
	})
	l.reach(MarkExecutorRetiredWithConnection)
}

// bindSettled: the settlement of run reached device's daemon, settled
// (ground truth). The executor run holds, bound to a lost connection, is
// closed as soon as nothing of the Run is outstanding.
func (l *Ledger) bindSettled(at int64, device, run string) {
	made(&l.execs.settled)[pairKey(device, run)] = true
	l.bindRecheck(at, device, run)
}

// bindRecheck judges, once instant at is over, the Run's executor when
// it is bound to a lost connection and the Run's Turn is over for the
// daemon: its settlement answered settled, no native write outstanding
// within its budget and no native decision call unanswered (the daemon
// holds the Turn for each). The executor's close is called by then. A
// write still within its budget is judged again at its deadline.
func (l *Ledger) bindRecheck(at int64, device, run string) {
	d := l.execs.devices[device]
	if d == nil || d.runs[run] == "" || !l.execs.settled[pairKey(device, run)] {
		return
	}
	id := d.runs[run]
	x, ok := d.execs[id]
	if !ok || !x.bind.lost || x.idle.closing {
		return
	}
	for _, c := range l.ix.calls[run] {
		if !c.answered {
			return // judged again when it is answered
		}
	}
	for _, w := range l.timing.writes.all {
		if w.device != device || w.run != run || w.returned >= 0 && w.returned <= at {
			continue
		}
		if i := l.harness.appliedIndex(run, w.input); i >= 0 && l.harness.applied[run][i].at <= w.deadline {
			return // consumed within its budget: the daemon waits for the write's return
		}
		if w.deadline > at {
			l.arm(w.deadline, func() { l.bindRecheck(w.deadline, device, run) })
			return
		}
	}
	l.arm(at, func() {
		if l.execDevice(device).execs[id] != x || x.idle.closing {
			return
		}
		l.violate(at, CheckExecutorConnection, "%s did not close executor %s of lost connection %d at %s, when its Run %s was over (settled, nothing outstanding): it was kept, not retired",
			device, id, x.bind.conn, vtime(at), run)
	})
}

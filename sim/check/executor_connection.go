package check

import (
	"cmp"

	"github.com/turnstile-sim/turnstile/wire"
)

// CheckExecutorConnection is rule executor_connection_bound (rules.go),
// from the executor index (executor_index.go) and the Harness's ground
// truth. An executor is bound to the connection of the first status that
// announced it new (reused=false). A status on another connection naming
// it ready (a reuse), starting or started breaks the rule, and so does a
// native turn the Harness creates on it for a Run whose honest
// execution_start reached the device on another connection. When its
// connection is lost, the wire must have shown it idle or ready and
// unstarted (a ready status or a done named it, no start reached it) for
// its close to be due in that instant (bindConnLost); one busy is judged
// when its Run is over for the daemon (bindRecheck); the native session
// one idle then held (its creating prepare's agent_session_id or a done's
// metadata) is followed from keepOnLoss. A restart forgets the device
// (executor_index.go).
//
// runtime-harness-protocol (Executor 和 Turn 生命周期, 绑定): Runtime
// 将其 Executor 记录绑定到 Session、Environment、连接和不可变执行配置
// ... 连接丢失会让其所有者和句柄退役. Runtime 会在发布 Done 前提交原生连续性状态.
const CheckExecutorConnection = "executor_connection_bound"

// bindFacts are an executor's connection binding (executor_connection_bound).
type bindFacts struct {
	conn  uint64 // the connection it was announced new on (0: unknown)
	ready bool   // the daemon said it was prepared (a ready status or a done named it)
	lost  bool   // conn is gone
	run   string // the Run of the latest native turn the Harness created on it
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
	id, x := l.runExecutor(device, run)
	if x == nil {
		return
	}
	x.bind.run = run // the latest native turn created on it
	if c := l.execs.devices[device].runConn[run]; x.bind.conn != 0 && c != 0 && c != x.bind.conn {
		l.violate(at, CheckExecutorConnection, "%s started run %s natively on executor %s, prepared on connection %d, for a start that came on connection %d",
			device, run, id, x.bind.conn, c)
	}
}

// bindConnLost: executor id of device lost its connection at at. One the
// daemon had idle or ready and unstarted is closed in that instant.
func (l *Ledger) bindConnLost(at int64, device, id string, x *executor) {
	b := &x.bind
	b.lost = true
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
	if e.phase == evictIdle {
		l.keepOnLoss(at, device, id, x)
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
// (ground truth).
func (l *Ledger) bindSettled(at int64, device, run string) {
	made(&l.execs.settled)[pairKey(device, run)] = true
	l.bindRecheck(at, device, run)
}

// bindRecheck judges, once instant at is over, the Run's executor when
// it is bound to a lost connection and the Run's Turn is over for the
// daemon: its settlement answered settled, no native write outstanding
// within its budget and no native decision call unanswered (the daemon
// holds the Turn for each). A write still within its budget is judged
// again at its deadline. Only the Run of the latest native turn created
// on the executor is judged (a replayed start's republished status may
// name an older Run again).
func (l *Ledger) bindRecheck(at int64, device, run string) {
	id, x := l.runExecutor(device, run)
	if x == nil || !l.execs.settled[pairKey(device, run)] || !x.bind.lost || x.idle.closing {
		return
	}
	if x.bind.run != "" && x.bind.run != run {
		return // a later Run holds the executor: judged when that one settles
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

// keptNative is a Session's native identity the daemon keeps from an
// executor retired idle with its lost connection.
type keptNative struct {
	native, executor string
	at               int64  // when it was kept: its close was called
	wait             string // conn\x00request of the prepare of the Session whose answer is awaited
	candidate        bool   // that prepare requires existing history and names none
}

// keepOnLoss: executor id of device, idle with a known native session,
// lost its connection at at. Once the instant is over, a close called
// then by the connection's retirement keeps the identity for its
// Session. A close another step of the instant may have made instead
// (its idle expiry, an eviction in a step that parked another executor
// or followed a prepare, a native answer or an expiry, a shutdown) keeps
// nothing certain: not recorded.
func (l *Ledger) keepOnLoss(at int64, device, id string, x *executor) {
	r := &x.reuse
	w := x.idle.window
	if r.native == "" || r.session == "" || w == nil || w.deadline <= at {
		return
	}
	l.arm(at, func() {
		d := l.execDevice(device)
		s := &l.timing.idle
		_, down := l.hostile.shutdownAt[device]
		switch {
		case d.execs[id] != x || !x.idle.closing || x.idle.closingAt != at || down:
		case d.evictAt == at || s.lastIdleAt[device] == at && s.lastIdle[device] != id || l.writeBudgetEnds(device, at):
		case d.kept[r.session] != nil && d.kept[r.session].wait != "":
			l.keptForget(d, r.session) // a prepare's answer is awaited: unsure
		default:
			made(&d.kept)[r.session] = &keptNative{native: r.native, executor: id, at: at}
		}
	})
}

// keptPrepared: a prepare reached device's daemon. Its answer may move
// the identity kept for its Session to a new executor: awaited. With
// another answer of the Session awaited already, what the daemon keeps
// is unsure: forgotten.
func (l *Ledger) keptPrepared(ev WireEvent, d *execDevice, p wire.ExecutionPrepare) {
	key := connFrameKey(ev.Conn, ev.Frame.ID)
	if s, ok := d.keptWait[key]; ok {
		l.keptForget(d, s)
	}
	switch k := d.kept[p.SessionID]; {
	case k == nil:
	case k.wait != "":
		l.keptForget(d, p.SessionID)
	default:
		c := p.Configuration
		k.wait, k.candidate = key, c.RequireExistingNativeSession && c.AgentSessionID == ""
		made(&d.keptWait)[key] = p.SessionID
	}
}

func (l *Ledger) keptForget(d *execDevice, session string) {
	if k := d.kept[session]; k != nil && k.wait != "" {
		delete(d.keptWait, k.wait)
	}
	delete(d.kept, session)
}

// keptAnswered: device's daemon answered a request. A prepare awaited by
// a kept identity that is refused leaves it kept, one answered otherwise
// may have moved it to a new executor (forgotten). A prepare requiring
// existing history without naming it, refused history_unavailable while
// the identity is kept, breaks the rule: unless ExecutorsMax other
// Sessions may have been kept since (the oldest is forgotten first).
func (l *Ledger) keptAnswered(ev WireEvent, st wire.PreparationStatus) {
	d := cmp.Or(l.execs.devices[ev.From], &execDevice{})
	key := connFrameKey(ev.Conn, ev.Frame.ID)
	session, ok := d.keptWait[key]
	if !ok {
		return
	}
	k := d.kept[session]
	delete(d.keptWait, key)
	k.wait = ""
	if st.State != wire.StateRejected {
		delete(d.kept, session)
		return
	}
	lim := l.limits[ev.From] // none configured: ExecutorsMax 0, not judged
	if !k.candidate || st.ErrorCode != wire.PrepHistoryUnavailable ||
		lim.ExecutorsMax <= 0 || d.keptSince(k.at, session) >= lim.ExecutorsMax {
		return
	}
	l.violate(ev.At, CheckExecutorConnection, "%s refused prepare %s of Session %s (require_existing_native_session, no agent_session_id) history_unavailable, but it keeps native session %q of executor %s, retired idle with its lost connection at %s (fewer than executors_max %d other Sessions kept since): want a new executor resuming it",
		ev.From, ev.Frame.ID, session, k.native, k.executor, vtime(k.at), lim.ExecutorsMax)
}

// keptSince counts the Sessions other than session whose identity the
// daemon may have kept at or after at: every executor whose close was
// called since, or bound to a lost connection and not yet closed. One
// whose Session is unknown counts alone.
func (d *execDevice) keptSince(at int64, session string) int {
	others := map[string]bool{}
	for _, id := range sortedKeys(d.execs) {
		x := d.execs[id]
		s := cmp.Or(x.reuse.session, x.evict.session, "\x00"+id)
		if s != session && (x.idle.closing && x.idle.closingAt >= at || x.bind.lost && !x.idle.closing) {
			others[s] = true
		}
	}
	return len(others)
}

package check

import (
	"cmp"

	"github.com/turnstile-sim/turnstile/wire"
)

// The executor index holds what the ledger knows of each executor of a
// device, for the rules that follow one executor's life: executor_reuse
// (executor_reuse.go), executor_connection_bound
// (executor_connection.go), idle_eviction (idle_eviction.go) and
// timing_idle_executor_expiry (timing_idle.go), whose files keep only
// their judgments. observeExecutors learns it from the statuses, dones
// and run errors an honest daemon sent (a forged one changes nothing at
// the daemon) and from the frames that reached a daemon, forged ones too
// (the daemon acts on them) except a Run's start; the Harness's records
// tell the rest. A daemon crash forgets the device: its executors died
// with its Harness, and the restarted daemon numbers its executors
// afresh. A zero executor is one the ledger knows nothing of.

type execIndex struct {
	devices map[string]*execDevice
	judged  map[string]bool // conn\x00request: its first status was judged (executor_reuse)
	settled map[string]bool // device\x00run: a settlement answered settled (executor_connection_bound)
}

// execDevice is what the ledger knows of one daemon process's executors.
type execDevice struct {
	execs map[string]*executor // by executor ID
	runs  map[string]string    // Run → the executor its latest honest start named
	// runConn is the connection each Run's latest honest start came on.
	runConn map[string]uint64
	// prepareAt is when the last frame delivered to the device was an
	// execution_prepare, lastPrepare (-1: another frame was).
	prepareAt   int64
	lastPrepare wire.ExecutionPrepare
	// kept is, by Session, the native identity the daemon keeps from an
	// executor retired idle with its lost connection, as far as the wire
	// and the Harness make it certain; keptWait names the Session of each
	// prepare (conn\x00request) whose answer may consume it
	// (executor_connection.go).
	kept     map[string]*keptNative
	keptWait map[string]string
	// evictAt is the last instant a step of the daemon other than a
	// connection's loss may have closed an idle executor (an
	// execution_prepare reached it, a native answer, an admission
	// expired).
	evictAt int64
}

// executor is one executor's facts, kept per rule: the rules see its use
// at different grains, each file saying how. idle_eviction takes a Run to
// hold it from its started status, and an admission that failed or whose
// connection retired to park it; the idle timer starts only at a done or
// at a released or expired admission, the instants it is armed at that
// the wire shows, and follows handles to tell a republished end apart;
// executor_reuse takes a Run to hold it from its starting status, and
// needs no idle instant.
type executor struct {
	reuse reuseFacts
	evict evictFacts
	idle  idleFacts
	bind  bindFacts
}

// reuseFacts are what a reuse is compared with (executor_reuse): set by
// the first status of the request that created the executor.
type reuseFacts struct {
	set     bool
	session string
	config  string // the creating prepare's configuration, history fields cleared
	native  string // the native session it holds ("" none)
	known   bool   // native is known: a Run started on a new root leaves it unknown until a done names it
	run     string // the Run last started on it, until its done or run_error
}

// evictPhase is an executor's place in the daemon's idle order.
type evictPhase uint8

const (
	evictReserved evictPhase = iota + 1
	evictBusy
	evictIdle
	evictClosing
	evictUnknown // idle from an instant the wire does not show
)

// evictFacts place an executor in the daemon's idle order
// (idle_eviction): zero (not followed) until a status names it or the
// Harness creates it, and again once the Harness closed it.
type evictFacts struct {
	created   bool
	phase     evictPhase
	idleSince int64
	conn      uint64 // connection of the admission that reserved it
	live      bool   // that admission is live (preparing, ready, starting)
	run       string // the Run it is busy with
	starting  bool   // that admission reached starting (a native start may run)
	session   string // the Session of the prepare that reserved it
	native    bool   // it holds a native identity (prepared to resume, or a done named one)
}

// idleFacts follow an executor's idle timer (timing_idle.go).
type idleFacts struct {
	handle    string       // of its latest admission
	prepared  bool         // a ready status named it, or it was created after its admission ended
	pending   bool         // its admission ended while it was preparing: idle once created
	closing   bool         // a close was called: never idle again
	closingAt int64        // when the first close was called
	window    *timerWindow // its latest idle stretch, settled once busy again or a close is called
}

func (l *Ledger) execDevice(id string) *execDevice { return entry(made(&l.execs.devices), id) }

func (d *execDevice) executor(id string) *executor { return entry(made(&d.execs), id) }

// runExecutor is the executor the latest honest start of run on device
// named, if the ledger knows it.
func (l *Ledger) runExecutor(device, run string) (string, *executor) {
	if d := l.execs.devices[device]; d != nil && d.runs[run] != "" {
		return d.runs[run], d.execs[d.runs[run]]
	}
	return "", nil
}

// observeExecutors learns the executor index from one wire event.
func (l *Ledger) observeExecutors(ev WireEvent) {
	switch {
	case ev.Hostile() && (ev.Kind != WireDelivered || ev.To == CoreNode || ev.To == RogueNode):
	case ev.Kind == WireOpened && ev.To != CoreNode:
		l.retireConns(ev.At, ev.To, func(c uint64) bool { return c != ev.Conn }) // a newer connection replaces the others
	case ev.Kind == WireClosed && ev.To != CoreNode:
		l.retireConns(ev.At, ev.To, func(c uint64) bool { return c == ev.Conn })
	case ev.Kind == WireDelivered && ev.To != CoreNode:
		d := l.execDevice(ev.To)
		d.prepareAt = -1
		switch p := ev.Frame.Payload.(type) {
		case wire.ExecutionPrepare:
			d.prepareAt, d.lastPrepare = ev.At, p
			l.keptPrepared(ev, d, p)
		case wire.ExecutionStart:
			if !ev.Hostile() { // a refused forged start must not rebind an honest Run ID
				made(&d.runs)[p.RunID] = p.ExecutorID
				made(&d.runConn)[p.RunID] = ev.Conn
			}
		}
	case ev.Kind == WireSent && ev.From != CoreNode:
		switch p := ev.Frame.Payload.(type) {
		case wire.PreparationStatus:
			l.keptAnswered(ev, p)
			if p.ExecutorID != "" {
				l.executorStatus(ev, p)
			}
		case wire.Done:
			native := cmp.Or(p.Metadata, &wire.DoneMetadata{}).AgentSessionID
			l.executorRunEnded(ev.At, ev.From, ev.Frame.ID, true, native)
		case wire.RunError:
			l.executorRunEnded(ev.At, ev.From, ev.Frame.ID, false, "")
		}
	}
}

// executorStatus follows a status naming an executor: the first status
// of a request (none starting or started) is a reuse's to judge.
func (l *Ledger) executorStatus(ev WireEvent, st wire.PreparationStatus) {
	x := l.execDevice(ev.From).executor(st.ExecutorID)
	// the first prepare of the request delivered to the device names its Session
	pr, prepared := l.conn(ev.Conn).prepared[ev.Frame.ID]
	busy := st.State == wire.StateStarting || st.State == wire.StateStarted
	if r := &x.reuse; busy && r.set {
		r.run = st.RunID
		if r.native == "" {
			r.known = false // a new root may start: only its done can name it
		}
	} else if !busy && prepared {
		l.judgeReuse(ev, st, x, pr)
	}
	l.bindStatus(ev, st, x)
	if e := &x.evict; st.State != wire.StateRejected {
		e.status(ev.At, ev.Conn, st, pr, prepared)
	}
	switch i := &x.idle; st.State {
	case wire.StatePreparing, wire.StateReady, wire.StateStarting, wire.StateStarted:
		i.handle = cmp.Or(st.Handle, i.handle)
		i.prepared = i.prepared || st.State == wire.StateReady
		i.pending = false
		if i.window != nil {
			i.window.settled = true
		}
	case wire.StateReleased, wire.StateExpired:
		switch {
		case i.handle != "" && st.Handle != "" && st.Handle != i.handle:
			// a republished end of an earlier admission: the executor is held by a later one
		case i.prepared:
			l.idleStart(ev.At, ev.From, st.ExecutorID, x)
		default:
			i.pending = true
		}
	}
}

func (e *evictFacts) status(at int64, conn uint64, st wire.PreparationStatus, pr wire.ExecutionPrepare, prepared bool) {
	if e.phase == 0 {
		*e = evictFacts{phase: evictReserved}
	}
	if e.phase == evictClosing {
		return
	}
	if prepared && e.session == "" {
		e.session = pr.SessionID
		e.native = e.native || !st.Reused && pr.Configuration.AgentSessionID != "" // prepared to resume the named native session
	}
	switch st.State {
	case wire.StatePreparing, wire.StateReady, wire.StateStarting:
		if e.phase != evictUnknown {
			e.phase, e.conn, e.live = evictReserved, conn, true
			e.starting = st.State == wire.StateStarting
		}
	case wire.StateStarted:
		e.live, e.starting = false, false
		if e.phase != evictUnknown {
			e.phase, e.run = evictBusy, st.RunID
		}
	default: // released, expired, failed: the admission ended unstarted
		e.live, e.starting = false, false
		if e.phase == evictReserved && e.created {
			e.phase, e.idleSince = evictIdle, at
		}
	}
}

// executorRunEnded follows a done (native: the native session its
// metadata names) or a run_error of run on device.
func (l *Ledger) executorRunEnded(at int64, device, run string, done bool, native string) {
	d := l.execDevice(device)
	for _, id := range sortedKeys(d.execs) {
		x := d.execs[id]
		if r := &x.reuse; r.set && r.run == run {
			r.run = ""
			if native != "" {
				r.native, r.known = native, true
			}
		}
		if e := &x.evict; done && e.phase == evictBusy && e.run == run {
			e.phase, e.idleSince = evictIdle, at
			e.native = e.native || native != ""
		}
		if done && d.runs[run] == id {
			x.bind.ready = true
		}
	}
	if id := d.runs[run]; done && id != "" {
		l.idleStart(at, device, id, d.executor(id))
	}
}

// retireConns retires the connections of device that retired says. An
// executor is bound to the connection it was prepared on
// (executor_connection.go): one bound to a retired connection is never
// idle again, closed now or once its Turn settles or its preparation
// ends.
func (l *Ledger) retireConns(at int64, device string, retired func(conn uint64) bool) {
	d := l.execDevice(device)
	for _, id := range sortedKeys(d.execs) {
		x := d.execs[id]
		e := &x.evict
		bound := x.bind.conn != 0 && retired(x.bind.conn) || e.conn != 0 && retired(e.conn)
		if !bound || x.bind.lost {
			continue
		}
		l.bindConnLost(at, device, id, x)
		if e.phase != 0 {
			e.phase = evictClosing
		}
		e.conn, e.live, e.starting = 0, false, false
	}
}

// executorCreated: the Harness finished preparing an executor. It is idle
// at once when its admission already ended.
func (l *Ledger) executorCreated(at int64, device, id string) {
	x := l.execDevice(device).executor(id)
	if i := &x.idle; i.pending && x.bind.lost {
		i.pending = false // its connection is gone: closed, never idle
	} else if i.pending {
		i.pending, i.prepared = false, true
		l.idleStart(at, device, id, x)
	}
	switch e := &x.evict; {
	case e.phase == 0 || e.created:
		// unknown to the wire so far, or an ID reused while still known:
		// its state cannot be told
		*e = evictFacts{created: true, phase: evictUnknown}
	case !e.live && e.phase == evictReserved:
		e.created, e.phase, e.idleSince = true, evictIdle, at
	default:
		e.created = true
	}
}

// executorClosed: the Harness confirmed the close; its idle stretch ends
// without reading the instant.
func (l *Ledger) executorClosed(device, id string) {
	x := l.execDevice(device).executor(id)
	if r := x.idle.window; r != nil {
		r.excuse(-1, "executor closed")
	}
	x.evict = evictFacts{}
}

// executorRetired: the settlement retired the executor; only its close
// may follow.
func (l *Ledger) executorRetired(device, id string) {
	if e := &l.execDevice(device).executor(id).evict; e.phase != 0 {
		e.phase = evictClosing
	}
}

// executorsNodeDown: the daemon crashed and its Harness with it.
func (l *Ledger) executorsNodeDown(device string) { delete(l.execs.devices, device) }

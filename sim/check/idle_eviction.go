package check

import (
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: idle_eviction (rules.go), the order the Runtime documents (the
// seeds leave it to its resource policy). Every executor of a device is
// followed from the wire and the Harness's ground truth: reserved by an
// admission, busy with the Run its started status names, idle from the
// instant the daemon published the end of its use (released, expired or
// failed; done; the retirement of the admission's connection), closing
// from the first close request. A close in the step that delivered an
// execution_prepare to the device is that eviction, judged only when every
// executor of the device has a known state (a Turn that ended with its
// connection, or a start under way then, parks its executor at an instant
// the wire does not show). Closing a Session's idle executor that holds
// no native identity for a prepare naming agent_session_id is no eviction:
// a Turn on it would start a new native root where the history must be
// resumed (runtime-harness-protocol: 当需要现有历史时，恢复绝不能启动新的根).
const CheckIdleEviction = "idle_eviction"

type evictPhase uint8

const (
	evictReserved evictPhase = iota + 1
	evictBusy
	evictIdle
	evictClosing
	evictUnknown
)

type evictExec struct {
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

// evictDevice is one daemon's executors and the last prepare delivered to
// it.
type evictDevice struct {
	execs       map[string]*evictExec // by executor ID
	prepareAt   int64                 // its last delivered frame was an execution_prepare then (-1: another frame)
	lastPrepare wire.ExecutionPrepare // the one delivered at prepareAt
}

type evictionState struct {
	devices map[string]*evictDevice
}

func (e *evictionState) device(id string) *evictDevice { return entry(made(&e.devices), id) }

// observeEvictionInputs sees honest traffic and every frame delivered to
// a daemon, forged ones included: a rogue's prepare is as real an input
// as Core's, and the Sessions and native identities it names count.
func (l *Ledger) observeEvictionInputs(ev WireEvent) {
	switch {
	case ev.Hostile() && (ev.Kind != WireDelivered || ev.To == CoreNode || ev.To == RogueNode):
	case ev.Kind == WireOpened && ev.To != CoreNode:
		l.retireConns(ev.At, ev.To, func(c uint64) bool { return c != ev.Conn }) // a newer connection replaces the others
	case ev.Kind == WireClosed && ev.To != CoreNode:
		l.retireConns(ev.At, ev.To, func(c uint64) bool { return c == ev.Conn })
	case ev.Kind == WireDelivered && ev.To != CoreNode:
		d := l.eviction.device(ev.To)
		d.prepareAt = -1
		if p, ok := ev.Frame.Payload.(wire.ExecutionPrepare); ok && ev.HasFrame() {
			d.prepareAt = ev.At
			d.lastPrepare = p
		}
	case ev.Kind == WireSent && ev.From != CoreNode && ev.HasFrame():
		switch p := ev.Frame.Payload.(type) {
		case wire.PreparationStatus:
			l.evictionStatus(ev.At, ev.From, ev.Conn, ev.Frame.ID, p)
		case wire.Done:
			d := l.eviction.device(ev.From)
			for _, id := range sortedKeys(d.execs) {
				if x := d.execs[id]; x.phase == evictBusy && x.run == ev.Frame.ID {
					x.phase, x.idleSince = evictIdle, ev.At
					x.native = x.native || p.Metadata != nil && p.Metadata.AgentSessionID != ""
				}
			}
		}
	}
}

func (l *Ledger) evictionStatus(at int64, device string, conn uint64, id string, p wire.PreparationStatus) {
	if p.ExecutorID == "" || p.State == wire.StateRejected {
		return
	}
	d := l.eviction.device(device)
	keepFirst(made(&d.execs), p.ExecutorID, &evictExec{phase: evictReserved})
	x := d.execs[p.ExecutorID]
	if x.phase == evictClosing {
		return
	}
	// the first prepare of the request delivered to the device names its Session
	if pr, ok := l.conn(conn).prepared[id]; ok && x.session == "" {
		x.session = pr.SessionID
		x.native = x.native || !p.Reused && pr.Configuration.AgentSessionID != "" // prepared to resume the named native session
	}
	switch p.State {
	case wire.StatePreparing, wire.StateReady, wire.StateStarting:
		if x.phase != evictUnknown {
			x.phase, x.conn, x.live = evictReserved, conn, true
			x.starting = p.State == wire.StateStarting
		}
	case wire.StateStarted:
		x.live, x.starting = false, false
		if x.phase != evictUnknown {
			x.phase, x.run = evictBusy, p.RunID
		}
	default: // released, expired, failed: the admission ended unstarted
		x.live, x.starting = false, false
		if x.phase == evictReserved && x.created {
			x.phase, x.idleSince = evictIdle, at
		}
	}
}

// retireConns retires the connections of device that retired says: a
// reserved, prepared executor is parked idle at once; a busy one, or one
// whose start was under way, when its Turn settles, at an instant the
// wire does not show.
func (l *Ledger) retireConns(at int64, device string, retired func(conn uint64) bool) {
	d := l.eviction.device(device)
	for _, id := range sortedKeys(d.execs) {
		x := d.execs[id]
		if !retired(x.conn) {
			continue
		}
		switch {
		case x.phase == evictReserved && x.starting:
			x.phase = evictUnknown
		case x.phase == evictReserved && x.created:
			x.phase, x.idleSince = evictIdle, at
		case x.phase == evictBusy:
			x.phase = evictUnknown
		}
		x.conn, x.live, x.starting = 0, false, false
	}
}

// evictionCreated: the Harness finished preparing an executor; it is idle
// at once when its admission already ended.
func (l *Ledger) evictionCreated(at int64, device, id string) {
	d := l.eviction.device(device)
	x := d.execs[id]
	if x == nil || x.created {
		// unknown to the wire so far, or an ID reused while still known:
		// its state cannot be told
		made(&d.execs)[id] = &evictExec{created: true, phase: evictUnknown}
		return
	}
	x.created = true
	if !x.live && x.phase == evictReserved {
		x.phase, x.idleSince = evictIdle, at
	}
}

// evictionRetired: the settlement retired the executor; only its close
// may follow.
func (l *Ledger) evictionRetired(device, id string) {
	if x := l.eviction.device(device).execs[id]; x != nil {
		x.phase = evictClosing
	}
}

// CloseRequested records the Harness receiving a close request for an
// executor (before its outcome is known). In the step that delivered an
// execution_prepare to the device, it is the eviction the prepare caused.
func (l *Ledger) CloseRequested(at int64, device, executor string) {
	d := l.eviction.device(device)
	x := d.execs[executor]
	if x == nil {
		return
	}
	if d.prepareAt == at && x.phase == evictIdle {
		if p := d.lastPrepare; p.Configuration.AgentSessionID != "" && x.session == p.SessionID && !x.native {
			l.reach(MarkResumeReplacedExecutor) // not an eviction: the executor cannot resume
		} else {
			l.judgeEviction(at, device, d, executor, x)
		}
	}
	x.phase = evictClosing
}

func (l *Ledger) judgeEviction(at int64, device string, d *evictDevice, id string, x *evictExec) {
	var older *evictExec
	var olderID string
	for _, yid := range sortedKeys(d.execs) {
		y := d.execs[yid]
		switch {
		case y.phase == evictUnknown:
			return // not judged: an idle instant the wire does not show
		case yid == id || y.phase != evictIdle:
		case y.idleSince < x.idleSince || y.idleSince == x.idleSince && executorSeq(yid) < executorSeq(id):
			if older == nil || y.idleSince < older.idleSince {
				older, olderID = y, yid
			}
		}
	}
	l.reach(MarkIdleEvictionJudged)
	if older != nil {
		l.violate(at, CheckIdleEviction, "%s evicted executor %s (idle since %s) while executor %s was idle longer (since %s)",
			device, id, vtime(x.idleSince), olderID, vtime(older.idleSince))
	}
}

// evictionNodeDown: the daemon crashed and its Harness with it; every
// executor it held is gone, and the restarted daemon numbers its executors
// afresh.
func (l *Ledger) evictionNodeDown(device string) { delete(l.eviction.devices, device) }

// executorSeq is the creation number in an executor ID ("ex-12" → 12);
// IDs without one sort first.
func executorSeq(id string) int {
	i := strings.LastIndexByte(id, '-')
	n, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return -1
	}
	return n
}

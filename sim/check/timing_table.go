package check

import (
	"cmp"
	"slices"
	"sort"
	"time"
)

// Timers of the documents, each judged by a timing oracle. The names are
// the keys of Ledger.TimersDecided and of a campaign's "timers decided"
// section.
const (
	TimerWritten        = "written_wait"         // Core: `written` within 30 s of delivery start, else unknown
	TimerCancelConfirm  = "cancel_confirmation"  // Core: a cancel receipt within 15 s of the first send, else cancel_unconfirmed
	TimerConnIdle       = "connection_idle"      // Core: 60 s without an inbound frame closes the connection
	TimerHeartbeat      = "heartbeat_cadence"    // Runtime: a heartbeat at open, then every interval
	TimerNativeWrite    = "native_write_budget"  // Runtime: 10 s per native durable write, else outcome_unknown
	TimerReceiptSend    = "receipt_send_budget"  // Runtime: 5 s for each receipt or status send
	TimerAdmission      = "admission_expiry"     // Runtime: 5 min from the grant, never extended
	TimerSettlementWait = "settlement_wait"      // Runtime: a cancel waiter waits 10 s for settlement, else cancel_failed
	TimerIdleExecutor   = "idle_executor_expiry" // Runtime: an idle executor is closed at its idle bound
)

// Timing check names, one per timer.
const (
	CheckTimingWritten        = "timing_" + TimerWritten
	CheckTimingCancelConfirm  = "timing_" + TimerCancelConfirm
	CheckTimingConnIdle       = "timing_" + TimerConnIdle
	CheckTimingHeartbeat      = "timing_" + TimerHeartbeat
	CheckTimingNativeWrite    = "timing_" + TimerNativeWrite
	CheckTimingReceiptSend    = "timing_" + TimerReceiptSend
	CheckTimingAdmission      = "timing_" + TimerAdmission
	CheckTimingSettlementWait = "timing_" + TimerSettlementWait
	CheckTimingIdleExecutor   = "timing_" + TimerIdleExecutor
)

// documentedTimers is the table of the documents' numbers (DESIGN.md §5,
// wire-reference §6.2, the seeds), written out here again so that no
// oracle reads a machine's configuration. The idle executor bound is the
// Runtime's own policy (the documents give no number); 10 minutes is its
// documented default. So is the read-only profile's close-retry backoff:
// 1 s after the first failure, doubling, at most 30 s.
var documentedTimers = []struct {
	name string
	d    time.Duration
}{
	{TimerAdmission, 5 * time.Minute},
	{TimerCancelConfirm, 15 * time.Second},
	{TimerCancelRetry, time.Second}, // Core's policy (timing_retry.go)
	{TimerConnIdle, 60 * time.Second},
	{TimerDecisionAck, 15 * time.Second},
	{TimerSuspensionReply, 30 * time.Second}, // Core: the reply to a quiesce or resume (timing_suspension.go)
	{TimerCloseRetry, time.Second},           // the Runtime's policy (timing_close_retry.go)
	{TimerHeartbeat, 15 * time.Second},
	{TimerIdleExecutor, 10 * time.Minute},
	{TimerNativeWrite, 10 * time.Second},
	{TimerPrepareRetry, time.Second}, // Core's policy (timing_retry.go)
	{TimerReaderCloseRetry, time.Second},
	{TimerReceiptSend, 5 * time.Second},
	{TimerSettleRetry, time.Second}, // the Runtime's policy (timing_close_retry.go)
	{TimerSettlementWait, 10 * time.Second},
	{TimerSteerRetry, time.Second}, // Core's policy (timing_retry.go)
	{TimerWorkspaceExport, 180 * time.Second},
	{TimerWorkspaceRead, 17 * time.Second},
	{TimerTransferExpiry, 195 * time.Second},
	{TimerWorkspaceWrite, 195 * time.Second},
	{TimerWritten, 30 * time.Second},
}

// Timers lists every timer name, sorted.
func Timers() []string {
	out := make([]string, len(documentedTimers))
	for i, t := range documentedTimers {
		out[i] = t.name
	}
	return out
}

// DocumentedTimer is the documents' duration of a timer (0 for an unknown
// name).
func DocumentedTimer(name string) time.Duration {
	for _, t := range documentedTimers {
		if t.name == name {
			return t.d
		}
	}
	return 0
}

type timingDeadline struct {
	at   int64
	seq  uint64
	fire func()
}

// timingState is the timing oracles' shared clock, configuration and
// tally; each oracle keeps its own records beside it.
type timingState struct {
	configured map[string]time.Duration // node\x00timer → what the world configured
	late       map[string]time.Duration // node\x00timer → the most its process delivers it late
	pending    []timingDeadline         // sorted by (at, seq)
	windows    []*timerWindow           // live windows, in start order (timing_window.go)
	seq        uint64
	decided    map[string]int

	written     writtenState
	cancels     cancelState
	conns       connState
	writes      writeState
	admissions  admissionState
	settles     settleState
	idle        idleState
	wsDaemon    wsDaemonState     // timing_workspace_daemon.go
	retry       retryState        // timing_retry.go
	cleanup     cleanupRetryState // timing_close_retry.go
	decisions   decisionAckState  // timing_decision_ack.go
	suspensions suspensionTiming  // timing_suspension.go
}

func (t *timingState) init() {
	t.configured = map[string]time.Duration{}
	t.late = map[string]time.Duration{}
	t.decided = map[string]int{}
	t.written.init()
	t.cancels.init()
	t.conns.init()
	t.writes.init()
	t.admissions.init()
	t.settles.init()
	t.idle.init()
	t.wsDaemon.init()
	t.retry.ensure()
	t.cleanup.init()
	t.decisions.init()
	t.suspensions.init()
}

// TimerConfigured records that the world configured node's timer with d
// instead of the documents' value (a swarm draws shorter admission
// expiries, idle bounds and heartbeat cadences in some seeds). The world
// passes its own drawn number, never the machine's resolved one.
func (l *Ledger) TimerConfigured(node, timer string, d time.Duration) {
	l.timing.configured[pairKey(node, timer)] = d
}

// TimerLate records that node's process delivers its timer up to d after
// its instant (a loaded host). The machine's own clock still decides: what
// the timer ends must not happen after the bound, while the timer's own
// publication may come up to d late.
func (l *Ledger) TimerLate(node, timer string, d time.Duration) {
	l.timing.late[pairKey(node, timer)] = d
}

func (l *Ledger) timerLate(node, name string) int64 {
	return int64(l.timing.late[pairKey(node, name)])
}

// timer is the duration node's timer must have: what the world
// configured, else the documents' number.
func (l *Ledger) timer(node, name string) int64 {
	if d, ok := l.timing.configured[pairKey(node, name)]; ok {
		return int64(d)
	}
	return int64(DocumentedTimer(name))
}

// arm schedules fire to run once time has passed at: at the first record
// or network event later than at, or at Final. Ties run in arming order.
func (l *Ledger) arm(at int64, fire func()) {
	t := &l.timing
	t.seq++
	d := timingDeadline{at: at, seq: t.seq, fire: fire}
	i, _ := slices.BinarySearchFunc(t.pending, d, func(a, b timingDeadline) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	t.pending = slices.Insert(t.pending, i, d)
}

// advance runs every deadline strictly before now: whatever happened at
// the deadline instant itself has been recorded by then.
func (l *Ledger) advance(now int64) {
	t := &l.timing
	for len(t.pending) > 0 && t.pending[0].at < now {
		d := t.pending[0]
		t.pending = t.pending[1:]
		d.fire()
	}
	l.advanceConns(now)
}

// decide counts one decision of timer.
func (l *Ledger) decide(timer string) { l.timing.decided[timer]++ }

// TimerCount is a timer with how often it decided in a run.
type TimerCount struct {
	Timer string
	Count int
}

// TimersDecided lists, sorted by name, the timers that decided an outcome
// in this run (an input unknown exactly 30 s after its delivery, a cancel
// unconfirmed exactly 15 s after its first send, an admission expired at
// its deadline, ...) with how many times.
func (l *Ledger) TimersDecided() []TimerCount {
	out := make([]TimerCount, 0, len(l.timing.decided))
	for _, k := range sortedKeys(l.timing.decided) {
		out = append(out, TimerCount{Timer: k, Count: l.timing.decided[k]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Timer < out[j].Timer })
	return out
}

// timingWire feeds every network event to the timing oracles.
func (l *Ledger) timingWire(ev WireEvent) {
	l.advance(ev.At)
	l.idleExpirySeen(ev)
	if ev.Hostile() {
		l.hostileSeen(ev)
	} else {
		l.receiptSendWire(ev)
	}
	switch ev.Kind {
	case WireOpened:
		l.connOpened(ev)
	case WireClosed, WireLost:
		l.connEnded(ev)
	}
	if ev.Kind == WireDelivered && ev.To == CoreNode {
		l.coreInbound(ev)
	}
	if !ev.HasFrame() {
		return
	}
	switch ev.Kind {
	case WireSent:
		if ev.Hostile() {
			// a forged frame or a rogue's: no machine sent it
		} else if ev.From == CoreNode {
			l.writtenCoreSent(ev)
			l.cancelCoreSent(ev)
			l.retryCoreSent(ev)
			l.decisionAckCoreSent(ev)
		} else {
			l.heartbeatSent(ev)
			l.transferDaemonSent(ev)
			l.writeDaemonSent(ev)
			l.admissionDaemonSent(ev)
			l.settleDaemonSent(ev)
			l.idleDaemonSent(ev)
			l.cleanupDaemonSent(ev)
		}
	case WireDelivered:
		if ev.From == RogueNode || ev.To == RogueNode {
			// the rogue's exchanges are judged by the hostile checks
		} else if ev.To == CoreNode {
			l.writtenCoreReceived(ev)
			l.cancelCoreReceived(ev)
			l.retryCoreReceived(ev)
			l.decisionAckCoreReceived(ev)
		} else {
			l.transferDaemonReceived(ev)
			l.writeDaemonReceived(ev)
			l.admissionDaemonReceived(ev)
			l.settleDaemonReceived(ev)
			l.idleDaemonReceived(ev)
		}
	}
}

// connEnded ends every expectation bound to a connection that closed or
// broke (a lost frame means it broke): neither end can send on it, and
// connection-local state (admissions, routes, waiters) dies with it.
func (l *Ledger) connEnded(ev WireEvent) {
	coreLearned := ev.Kind == WireClosed && ev.To == CoreNode // Core learned it, or closed it itself
	if ev.Kind == WireClosed && ev.To != CoreNode {
		l.timing.idle.lastConnEnd[ev.To] = ev.At
	}
	if coreLearned {
		l.retryConnEnded(ev.Conn)
	}
	l.retryLost(ev)
	l.connWatchEnded(ev)
	l.transfersConnEnded(ev.Conn)
	l.excuseWindows(ev.At, "connection "+ev.Kind, func(w *timerWindow) bool {
		return w.conn == ev.Conn && (coreLearned || w.node != CoreNode)
	})
}

// NodeCrashed records that a process died (Core, or a daemon with its
// Harness): it sends nothing more, and its timers died with it.
func (l *Ledger) NodeCrashed(at int64, node string) {
	l.advance(at)
	l.excuseWindows(at, "process crashed", func(w *timerWindow) bool { return w.node == node })
	if node == CoreNode {
		l.cancelsCoreCrashed(at)
		l.restartCoreCrashed()
		l.retryCoreCrashed()
		l.prepsCoreCrashed() // preparations_per_conn.go
		l.connsCoreCrashed()
		l.fencingCoreDown()
		l.transferTimingCoreDown(at)
		l.wsWaitsCoreDown()
		return
	}
	l.fencingNodeDown(node)
	l.wsDaemonNodeDown(node)
	l.installsNodeDown(node)
	l.creatingNodeDown(node)
	l.heartbeatsNodeDown(node)
	l.admissionsNodeDown(node)
	l.cleanupNodeDown(node)
	l.idleNodeDown(node)
	l.evictionNodeDown(node)
	l.reuseNodeDown(node)
}

// TurnFinished records Core durably finishing a turn of run with a
// terminal state and error code ("" when none).
func (l *Ledger) TurnFinished(at int64, turn, run, state, code string) {
	l.advance(at)
	l.writtenTurnFinished(at, run, code)
	l.runEventsFinished(at, turn, code)
	l.cancelTurnFinished(at, run, code)
	l.restartTurnFinished(at, turn, run, state, code)
	l.retryTurnFinished(at, turn, run, code)
	l.decisionAcksTurnFinished(at, turn)
	l.usageTurnEnded(at, run, code)
	l.reconnectTurnFinished(at, turn, state, code) // reconnect_window.go
}

package check

import (
	"slices"
	"sort"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// The documents' timers (DESIGN.md §5, wire-reference §6.2, the seeds),
// each judged by a timing oracle under "timing_" + its name; the names
// key TimersDecided and a campaign's "timers decided" section.
const (
	TimerAdmission        = "admission_expiry"
	TimerCancelConfirm    = "cancel_confirmation"
	TimerCancelRetry      = "cancel_retry"
	TimerConnIdle         = "connection_idle"
	TimerDecisionAck      = "decision_ack_wait"
	TimerSuspensionReply  = "suspension_reply_wait"
	TimerCloseRetry       = "executor_close_retry"
	TimerHeartbeat        = "heartbeat_cadence"
	TimerIdleExecutor     = "idle_executor_expiry"
	TimerNativeWrite      = "native_write_budget"
	TimerPrepareRetry     = "prepare_retry"
	TimerReaderCloseRetry = "reader_close_retry"
	TimerReceiptSend      = "receipt_send_budget"
	TimerSettleRetry      = "settlement_retry"
	TimerSettlementWait   = "settlement_wait"
	TimerSteerRetry       = "steer_retry"
	TimerWorkspaceExport  = "workspace_export_wait"
	TimerWorkspaceRead    = "workspace_read_wait"
	TimerTransferExpiry   = "workspace_transfer_expiry"
	TimerPrepareExpiry    = "prepare_transfer_expiry"
	TimerWorkspaceWrite   = "workspace_write_wait"
	TimerWritten          = "written_wait"
	// Core's runtime_prepare exchange (transferExchange); not in the
	// campaign's table (a run rarely lasts that long past a begin).
	timerTransferExchange = "transfer_exchange"
)

// The timing checks.
const (
	CheckTimingAdmission          = "timing_" + TimerAdmission
	CheckTimingCancelConfirm      = "timing_" + TimerCancelConfirm
	CheckTimingCancelRetry        = "timing_" + TimerCancelRetry
	CheckTimingConnIdle           = "timing_" + TimerConnIdle
	CheckTimingDecisionAck        = "timing_" + TimerDecisionAck
	CheckTimingSuspensionReply    = "timing_" + TimerSuspensionReply
	CheckTimingExecutorCloseRetry = "timing_" + TimerCloseRetry
	CheckTimingHeartbeat          = "timing_" + TimerHeartbeat
	CheckTimingIdleExecutor       = "timing_" + TimerIdleExecutor
	CheckTimingNativeWrite        = "timing_" + TimerNativeWrite
	CheckTimingPrepareRetry       = "timing_" + TimerPrepareRetry
	CheckTimingCloseRetry         = "timing_" + TimerReaderCloseRetry
	CheckTimingReceiptSend        = "timing_" + TimerReceiptSend
	CheckTimingSettleRetry        = "timing_" + TimerSettleRetry
	CheckTimingSettlementWait     = "timing_" + TimerSettlementWait
	CheckTimingSteerRetry         = "timing_" + TimerSteerRetry
	CheckTimingWorkspaceExport    = "timing_" + TimerWorkspaceExport
	CheckTimingWorkspaceRead      = "timing_" + TimerWorkspaceRead
	CheckTimingTransferExpiry     = "timing_" + TimerTransferExpiry
	CheckTimingPrepareExpiry      = "timing_" + TimerPrepareExpiry
	CheckTimingWorkspaceWrite     = "timing_" + TimerWorkspaceWrite
	CheckTimingWritten            = "timing_" + TimerWritten
	CheckTimingTransfer           = "timing_" + timerTransferExchange
)

// documentedTimers are the documents' numbers, written out again so that
// no oracle reads a machine's configuration. The retry delays, the idle
// executor bound and the close-retry backoff (doubling per failure, at most
// retryBackoffMax) are the machines' own documented policies (core/doc.go,
// daemon/doc.go).
var documentedTimers = []struct {
	name string
	d    time.Duration
}{
	{TimerAdmission, 5 * time.Minute},
	{TimerCancelConfirm, 15 * time.Second},
	{TimerCancelRetry, time.Second},
	{TimerConnIdle, 60 * time.Second},
	{TimerDecisionAck, 15 * time.Second},
	{TimerSuspensionReply, 30 * time.Second},
	{TimerCloseRetry, time.Second},
	{TimerHeartbeat, 15 * time.Second},
	{TimerIdleExecutor, 10 * time.Minute},
	{TimerNativeWrite, 10 * time.Second},
	{TimerPrepareRetry, time.Second},
	{TimerReaderCloseRetry, time.Second},
	{TimerReceiptSend, 5 * time.Second},
	{TimerSettleRetry, time.Second},
	{TimerSettlementWait, 10 * time.Second},
	{TimerSteerRetry, time.Second},
	{TimerWorkspaceExport, 180 * time.Second},
	{TimerWorkspaceRead, 17 * time.Second},
	{TimerTransferExpiry, 195 * time.Second},
	{TimerPrepareExpiry, 195 * time.Second},
	{TimerWorkspaceWrite, 195 * time.Second},
	{TimerWritten, 30 * time.Second},
}

// Timers lists every timer name, in the table's order.
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
	fire func()
}

// timingState is the timing oracles' shared clock, configuration and
// tally; each oracle keeps its own records beside it.
type timingState struct {
	configured map[string]time.Duration // node\x00timer → what the world configured
	late       map[string]time.Duration // node\x00timer → the most its process delivers it late
	pending    []timingDeadline         // by instant, then in arming order
	windows    []*timerWindow           // live windows, in start order (timing_window.go)
	decided    map[string]int

	written     keyed[writtenWait]       // run\x00input (timing_written.go)
	cancels     keyed[cancelWait]        // run (timing_cancel.go)
	conns       connState                // timing_conn.go
	writes      writeState               // timing_write.go
	admissions  keyed[timedAdmission]    // device\x00handle, reset when its process dies (timing_admission.go)
	settles     map[string]*settleWindow // device\x00run → the wait in progress (timing_settlement.go)
	idle        idleState                // timing_idle.go
	wsDaemon    daemonExpiries           // write transfers (timing_workspace_daemon.go)
	prepDaemon  daemonExpiries           // runtime_prepare transfers (timing_prepare_expiry.go)
	retry       retryState               // timing_retry.go
	cleanup     cleanupRetryState        // timing_close_retry.go
	decisions   decisionAckState         // timing_decision_ack.go
	suspensions suspensionTiming         // timing_suspension.go
	calls       map[string]*timerWindow  // workspace call → Core's wait for it (timing_workspace.go)
}

func (t *timingState) init() {
	t.conns.rogueOpenAt = -1
	r := &t.retry
	r.steers, r.cancels, r.preps, r.requests = map[string]*steerRetryRec{}, map[string]*cancelRetryRec{}, map[string]*retryOwed{}, map[string]*prepRequest{}
	r.cancelCalls, r.kinds, r.gates = map[string]int64{}, map[uint64]string{}, map[uint64]*capGate{}
}

// TimerConfigured records that the world configured node's timer with d
// instead of the documents' value (a swarm draws shorter admission
// expiries, idle bounds and heartbeat cadences in some seeds). The world
// passes its own drawn number, never the machine's resolved one.
func (l *Ledger) TimerConfigured(node, timer string, d time.Duration) {
	made(&l.timing.configured)[pairKey(node, timer)] = d
}

// TimerLate records that node's process delivers its timer up to d after
// its instant (a loaded host): what the timer ends must still not happen
// after the bound, while its own publication may come up to d late.
func (l *Ledger) TimerLate(node, timer string, d time.Duration) {
	made(&l.timing.late)[pairKey(node, timer)] = d
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
	i := sort.Search(len(t.pending), func(i int) bool { return t.pending[i].at > at })
	t.pending = slices.Insert(t.pending, i, timingDeadline{at: at, fire: fire})
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

func (l *Ledger) decide(timer string) { made(&l.timing.decided)[timer]++ }

// TimerCount is a timer with how often it decided in a run.
type TimerCount struct {
	Timer string
	Count int
}

// TimersDecided lists, sorted by name, the timers that decided an outcome
// in this run (an outcome exactly at the timer's bound) with how often.
func (l *Ledger) TimersDecided() []TimerCount {
	out := make([]TimerCount, 0, len(l.timing.decided))
	for _, k := range sortedKeys(l.timing.decided) {
		out = append(out, TimerCount{Timer: k, Count: l.timing.decided[k]})
	}
	return out
}

// timingWire feeds every network event to the timing oracles. Frames a
// machine sent go to the oracles of their type; forged and rogue frames
// reaching Core or a daemon are its inputs too, except the rogue's
// exchanges (the hostile checks judge those).
func (l *Ledger) timingWire(ev WireEvent) {
	l.advance(ev.At)
	l.idleExpirySeen(ev)
	if c := &l.timing.conns; ev.Hostile() {
		made(&c.hostileAt)[ev.Conn] = ev.At
		if ev.Kind == WireOpened {
			c.rogueOpenAt = ev.At
		}
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
	switch {
	case !ev.HasFrame():
	case ev.Kind == WireSent && !ev.Hostile() && ev.From == CoreNode:
		l.timingCoreSent(ev)
	case ev.Kind == WireSent && !ev.Hostile():
		l.timingDaemonSent(ev)
	case ev.Kind != WireDelivered || ev.From == RogueNode || ev.To == RogueNode:
	case ev.To == CoreNode:
		l.timingCoreReceived(ev)
	default:
		l.timingDaemonReceived(ev)
	}
}

func (l *Ledger) timingCoreSent(ev WireEvent) {
	switch p := ev.Frame.Payload.(type) {
	case wire.PromptSteer:
		l.writtenSteerSent(ev, p)
	case wire.PromptCancel:
		l.cancelSent(ev, p)
	}
	if d, _, ok := decisionOf(ev.Frame); ok {
		l.decisionSent(ev, d)
	}
	l.retryCoreSent(ev)
}

func (l *Ledger) timingCoreReceived(ev WireEvent) {
	switch p := ev.Frame.Payload.(type) {
	case wire.Done, wire.RunError:
		l.writtenRunEnded(ev)
	case wire.PromptSteerAck:
		l.writtenAckReceived(ev, p)
	case wire.InteractionDecisionAck:
		l.writtenRunEnded(ev) // a cancel receipt may end the turn
		l.cancelAckReceived(ev, p)
		l.decisionAckReceived(ev, p)
	}
	l.retryCoreReceived(ev)
}

func (l *Ledger) timingDaemonSent(ev WireEvent) {
	switch p := ev.Frame.Payload.(type) {
	case wire.Heartbeat:
		l.heartbeatSent(ev, p)
	case wire.WorkspaceWriteResult:
		l.transferResultSent(ev, p)
	case wire.RuntimePrepareResult:
		l.prepareResultSent(ev, p)
	case wire.PromptSteerAck:
		l.writeAckSent(ev, p)
	case wire.PreparationStatus:
		l.admissionStatusSent(ev, p)
	case wire.InteractionDecisionAck:
		l.settleAckSent(ev, p)
		if p.Applied {
			l.cleanupSent(ev, "an applied cancel receipt")
		}
	case wire.Done:
		l.cleanupSent(ev, "done")
	}
}

func (l *Ledger) timingDaemonReceived(ev WireEvent) {
	switch p := ev.Frame.Payload.(type) {
	case wire.WorkspaceWrite:
		l.transferWriteReceived(ev, p)
	case wire.RuntimePrepare:
		l.prepareStepReceived(ev, p)
	case wire.PromptSteer:
		made(&l.timing.writes.steerConn)[writeKey(ev.To, ev.Frame.ID, p.InputID)] = ev.Conn
	case wire.ExecutionStart:
		l.admissionStartReceived(ev, p)
	case wire.ExecutionRelease:
		l.admissionReleaseReceived(ev, p)
	case wire.PromptCancel:
		l.settleCancelReceived(ev, p)
	case wire.ExecutionPrepare:
		l.evictMayCome(ev.At, ev.To)
	}
}

// connEnded ends every expectation bound to a connection that closed or
// broke (a lost frame means it broke): neither end can send on it, and
// connection-local state (admissions, routes, waiters) dies with it.
func (l *Ledger) connEnded(ev WireEvent) {
	coreLearned := ev.Kind == WireClosed && ev.To == CoreNode // Core learned it, or closed it itself
	if ev.Kind == WireClosed && ev.To != CoreNode {
		l.idleParkMayCome(ev.At, ev.To)
	}
	if coreLearned {
		l.retryConnEnded(ev.Conn)
	}
	if ev.Kind == WireLost && ev.Reason == lostOnSend && ev.From == CoreNode && ev.HasFrame() && !ev.Hostile() {
		l.retryCoreSent(ev) // frames lost in flight were judged when sent
	}
	l.connWatchEnded(ev)
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
		for _, c := range l.timing.conns.core {
			c.closed = true // its connections died with it
		}
		l.fencingCoreDown()
		l.transferTimingCoreDown(at)
		l.exportsClosed(0) // workspace_export.go: every export died with Core
		l.writesCoreDown() // workspace_wire.go
		return
	}
	l.fencingNodeDown(node)
	l.dxDaemonCrashed(node) // decision_answers.go
	l.wsRuntimeNodeDown(node)
	l.installsNodeDown(node)
	l.creatingNodeDown(node)
	for _, w := range l.timing.conns.hb {
		w.ended = w.ended || w.device == node
	}
	l.admissionsNodeDown(node)
	l.cleanupNodeDown(node)
	l.executorsNodeDown(node)
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
	l.reconnectTurnFinished(at, turn, state, code)         // reconnect_window.go
	l.capabilityRefusalTurnFinished(at, turn, state, code) // capability_refusal.go
}

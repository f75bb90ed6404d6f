package check

import (
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim/linearize"
)

// Check names of rules judged across the record files (Rules).
const (
	CheckRunStartedTwice      = "run_started_twice"
	CheckInputDeliveredTwice  = "input_delivered_twice"
	CheckAcceptedWithoutTruth = "accepted_without_ground_truth"
	CheckFabricatedTerminal   = "fabricated_terminal"
	CheckCancelOverridden     = "cancel_receipt_overridden"
	CheckHandleReuse          = "handle_reuse"
	CheckStaleRevision        = "stale_revision_applied"
	CheckCapability           = "capability"
	CheckCapacity             = "capacity_exceeded"
	CheckOrphan               = "orphaned_resource"
	CheckDurableFacts         = "durable_facts"
	CheckUsageAdded           = "usage_added"
	CheckLiveness             = "liveness"
	CheckLinearizability      = "linearizability"
)

// Public turn states as observed through Core, in their order. The three
// terminal states share the top rank. They are the states the turn model
// of linearize ranks.
const (
	TurnQueued    = linearize.TurnQueued
	TurnPreparing = linearize.TurnPreparing
	TurnRunning   = linearize.TurnRunning
	TurnCompleted = linearize.TurnCompleted
	TurnFailed    = linearize.TurnFailed
	TurnCancelled = linearize.TurnCancelled
)

// Native settlements recorded by the simulated Harness (ground truth).
const (
	NativeCompleted = linearize.NativeCompleted
	NativeFailed    = linearize.NativeFailed
	NativeCancelled = linearize.NativeCancelled
)

// Input outcomes, both as Core records them and as a steer call returns them.
const (
	InputAccepted = linearize.InputAccepted
	InputUnknown  = linearize.InputUnknown
	InputRejected = linearize.InputRejected
)

// Receipt stages a daemon sends in prompt_steer_ack.
const (
	StageWritten  = "written"
	StageAccepted = "accepted"
)

// Observation says where Core saw a done or error frame.
type Observation string

const (
	ObservedOnWire    Observation = "wire"      // decoded by Core from a daemon connection
	ObservedPersisted Observation = "persisted" // written to Core's durable store
)

// IsTerminal reports whether a public turn state is terminal.
func IsTerminal(state string) bool { return linearize.TurnRank(state) == 3 }

// Violation is one broken property. At is the virtual time the caller gave
// with the record that exposed it; Step is the world's step counter stamped
// by AfterStep (0 for violations found by Final).
type Violation struct {
	Check   string
	At      int64
	Step    uint64
	Message string
}

func (v Violation) String() string {
	return fmt.Sprintf("step=%d t=%s %s: %s", v.Step, vtime(v.At), v.Check, v.Message)
}

// vtime renders virtual nanoseconds as a duration since the epoch.
func vtime(at int64) string { return time.Duration(at).String() }

// Ledger receives records from the world and checks them. All times are
// virtual nanoseconds on one monotonic scale chosen by the caller (for
// example the virtual clock's UnixNano). A Ledger is not safe for
// concurrent use; the world drives it from its single loop.
type Ledger struct {
	engine   engineState // the engine catalog Core runs (engine_admission.go)
	found    []Violation // not yet returned by AfterStep
	reported []Violation
	marks    map[Mark]int

	index            connIndex // conn_index.go: what the wire showed on each connection
	core             coreState
	execs            execIndex              // executor_index.go: what the ledger knows of each executor
	usage            usageState             // usage_latest.go
	acceptedReceipts map[string]bool        // run\x00input: an accepting receipt reached Core (accepted_receipt.go)
	failover         failoverState          // failover.go
	steerCalls       map[string]*turnSteers // steer calls by turn (steer_admission.go)
	daemon           daemonState
	harness          harnessState
	api              apiState
	frames           frameState
	timing           timingState
	restart          restartState          // restart_outcome.go
	decisionConflict decisionConflictState // decision_conflict.go
	dx               decisionAnswerState   // decision_answers.go

	teardown     teardownState
	heartbeat    heartbeatState
	budget       budgetState
	limitMarks   limitMarks
	reconnect    reconnectState               // reconnect_window.go
	fencedSel    map[string]*fencedSuspension // suspend ID → unresolved suspension (fencing_selection.go)
	fencedSteps  fencedSteps                  // runtime_prepare steps that continue a preparation (fencing_selection.go)
	transferHeld map[uint64]string            // connection → the transfer Core began there, no terminal result back yet (transfer_wire.go)
	fenceLast    map[string]*fencingLast      // suspend ID → its last request (fencing_rollback.go)
	runEvents    runEventState
	limits       map[string]DeviceLimits // device → declared limits
	hostile      hostileState
	ws           workspaceState
	fencing      fencingState          // fencing_wire.go
	transfers    transferState         // transfer_wire.go
	transferTime transferTiming        // the 195 s exchange oracle (timing_transfer.go)
	prepOutcome  prepOutcomeState      // transfer_outcome.go
	wsRuntime    wsRuntimeState        // workspace_runtime.go
	execCapacity executorCapacityState // executor_capacity.go
	wsPayload    wsPayloadState        // workspace_payloads.go
	ix           interactionState
	subscribers  subscriberState // subscribers.go
	native       nativeCalls     // done_usage.go
	projection   projectionState // projection.go
	subagents    subagentState   // subagents.go

	wireObservers []func(WireEvent)

	// OnReach, when set, is told of every mark the ledger's own observers
	// find (marks the world records through Mark are not repeated).
	OnReach func(Mark)
}

// honest wraps a wire observer that judges honest machines: it skips
// forged frames and a rogue node's traffic (see WireEvent.Hostile).
func honest(observe func(WireEvent)) func(WireEvent) {
	return func(ev WireEvent) {
		if !ev.Hostile() {
			observe(ev)
		}
	}
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	l := &Ledger{marks: map[Mark]int{}}
	l.frames.init()
	l.timing.init()
	l.hostile.init()
	l.transferTime.init()
	l.limits = map[string]DeviceLimits{}
	// Wire observers, in the order they judge each network event. Those
	// judging what honest machines send see only honest traffic; the
	// timing and hostile checks see everything (a forged frame resets
	// Core's idle clock and may be the reason it closes a connection).
	l.wireObservers = []func(WireEvent){
		l.learnConns,                  // first: every other reads the connection index
		honest(l.observeInteractions), // next: others ask it which acks are decisions
		honest(l.observeCoreFrames),
		honest(l.observeCapabilitySituations), // after observeCoreFrames: reads its declarations
		l.observeForgedHeartbeats,             // a replayed heartbeat is Core's snapshot too
		honest(l.observeDeviceFrames),
		l.timingWire,
		l.observeSuspensionReplies,
		honest(l.observeTeardown),
		honest(l.observeHeartbeats),
		honest(l.observeSendBudget),
		honest(l.observeLimits),
		l.observeExecutors, // forged frames reaching a daemon too
		l.observeAcceptedReceipts,
		l.observeUsage,
		l.observeDoneUsage,
		honest(l.observeWorkspace),
		l.observeWorkspaceAtCore, // forged answers too: Core reads them (workspace_one_per_conn)
		l.observeHostile,
		l.observeFencing, // honest traffic, and forged requests reaching a daemon
		l.observeForgedTransferResults,
		l.observeTransferResultsAtCore, // forged results too: Core may take them
		honest(l.observeTransfers),
		l.observeTransferHold,      // forged results reaching Core too
		l.observeWorkspaceRuntime,  // honest traffic, and forged requests reaching a daemon
		l.observeExecutorCapacity,  // forged prepares reaching a daemon too
		l.observeWorkspacePayloads, // honest traffic, and forged requests reaching a daemon
		l.observeEngineErrors,      // forged error frames too: Core classifies what reaches it
		l.observePreparationsPerConn,
		l.observeDecisionConflicts,
		l.observeDecisionAnswers,
		l.observeRestartWire,
		honest(l.observePrepareCleanup),
		l.observeReconnect, // a rogue's connection and forged heartbeats are Core's too
		honest(l.observeFencedSelection),
		honest(l.observeFencingRollback),
		honest(l.observeUnaskedSubagents),
	}
	return l
}

func (l *Ledger) violate(at int64, check, format string, args ...any) {
	if !Registered(check) {
		panic("check: violation of unregistered rule " + strconv.Quote(check) + " (add it to Rules)")
	}
	l.found = append(l.found, Violation{Check: check, At: at, Message: fmt.Sprintf(format, args...)})
}

// AfterStep returns the safety violations recorded since the previous call,
// stamped with step. The world calls it after every step it executes.
func (l *Ledger) AfterStep(step uint64) []Violation {
	if len(l.found) == 0 {
		return nil
	}
	out := l.found
	for i := range out {
		out[i].Step = step
	}
	l.reported = append(l.reported, out...)
	l.found = nil
	return out
}

// Violations returns every violation reported so far, including those not
// yet drained by AfterStep, in the order they were found.
func (l *Ledger) Violations() []Violation {
	out := make([]Violation, 0, len(l.reported)+len(l.found))
	out = append(out, l.reported...)
	return append(out, l.found...)
}

// Mark records that the run reached a rare state. Unknown marks are
// counted too so a typo shows in the summary instead of vanishing.
func (l *Ledger) Mark(m Mark) { l.marks[m]++ }

// Marks returns hit counts sorted by mark name.
func (l *Ledger) Marks() []MarkCount {
	return sortedMarkCounts(l.marks)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m { //tidy:sorted sorted below
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// entry returns m[k], storing a new zero value there first if m holds none.
func entry[K comparable, V any](m map[K]*V, k K) *V {
	v := m[k]
	if v == nil {
		v = new(V)
		m[k] = v
	}
	return v
}

// made returns the map *m, made first if it is nil.
func made[K comparable, V any](m *map[K]V) map[K]V {
	if *m == nil {
		*m = map[K]V{}
	}
	return *m
}

// inner returns the map m[k], made first if it is nil.
func inner[K, K2 comparable, V any](m map[K]map[K2]V, k K) map[K2]V {
	if m[k] == nil {
		m[k] = map[K2]V{}
	}
	return m[k]
}

// deleteUnder deletes the keys of m that extend prefix.
func deleteUnder[V any](m map[string]V, prefix string) {
	maps.DeleteFunc(m, func(k string, _ V) bool { return len(k) > len(prefix) && strings.HasPrefix(k, prefix) })
}

// keepFirst stores v at k unless m holds k already.
func keepFirst[K comparable, V any](m map[K]V, k K, v V) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// countIf counts the values of m that pass keep.
func countIf[K comparable, V any](m map[K]V, keep func(V) bool) int {
	n := 0
	for _, v := range m { //tidy:sorted counting only
		if keep(v) {
			n++
		}
	}
	return n
}

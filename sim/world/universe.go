package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/sim/linearize"
	"github.com/turnstile-sim/turnstile/wire"
)

// universe is everything one run shares between its nodes, fault
// handlers and checks: the ledger, Core's durable store, per-device
// settings and the fault timeline. It lives outside the nodes so crashes
// lose only what a real process would lose.
type universe struct {
	w        *sim.Kernel
	cfg      Config
	led      *check.Ledger
	store    *observedStore
	failover *failover // failover.go
	coreCfg  core.Config
	native   *harness.NativeHistory // native sessions, shared by the devices
	core     *coreNode              // current incarnation; nil while down
	devices  []*harness.Device
	wl       *workload
	shape    shape
	subPlan  *subscriberPlan // subscribers.go
	pendingV []check.Violation
	// heldPanic: the first end-of-step invariant failure (machine_panic.go)
	heldPanic string
	proj      projectionWorld // capability_profiles.go, workload_prep_flood.go, hostile_receipt_replay.go
	// workspaces are the Environments' file trees, shared by the devices.
	workspaces *harness.Workspaces

	records map[string]int
	// skipped counts applied faults that found no victim, by kind.
	skipped map[sim.FaultKind]int
	// tokenLeak is the first MCP token seen outside Core's
	// execution_prepare (mcp_tokens.go).
	tokenLeak string
	// decisionDups are armed decision_duplicate faults (conflicting or not).
	decisionDups []bool
	envFaults    environmentFaults // faults_environment.go
	envProbe     envProbes         // hostile_environment.go

	shutdownSent bool
	// healedAt is when the network healed; livenessFloor is the least
	// liveness deadline after it (what setup asked the kernel for).
	healedAt      time.Time
	livenessFloor time.Duration
	recordsTotal  int
	lastConverge  convergeMemo
	// lastVerdict is convergence's latest verdict; lastReason builds its
	// reason (bound once, so that a verdict allocates nothing).
	lastVerdict verdict
	lastReason  func() string
	// capacityRefused holds turns whose preparation was refused with
	// preparation_capacity and that have not started since.
	capacityRefused map[string]bool
	// deliveredAt is when Core first sent each run/input.
	deliveredAt map[string]time.Time
	// statusRev is the last revision a daemon sent per connection and
	// handle ("c3/h-2"): a republished status records nothing new.
	statusRev map[string]uint64
	// ignoreAtCore holds forged frames Core must ignore: a durable write
	// while Core steps one is a hostile_effect violation.
	ignoreAtCore map[string]bool
	// hostile is what the hostile peers know (hostile.go).
	hostile hostileState
	// breachesSeen counts the contract breaches already reported per
	// Harness (one per daemon process); looked up, never ranged.
	breachesSeen map[*harness.Truth]int
	// tapped holds the decoding of each frame in flight, by its first byte
	// (tapWire); looked up, never ranged.
	tapped map[*byte]tappedFrame
	// delivering is the decoding of the frame the tap just saw delivered,
	// handed to its receiver (frame_path.go).
	delivering tappedFrame
	// shared lists every decoding handed to a receiver, when
	// Config.auditSharedFrames asks for it (tests only).
	shared []tappedFrame
	// pads are the buffers of this run's padded frames (pads.go).
	pads []*padBuf
	// cancelStall holds cancel receipts around Core's window (cancel_stall.go).
	cancelStall cancelStall
	// suspensionStall holds suspension replies around Core's wait
	// (suspension_stall.go).
	suspensionStall suspensionStall
	// exportCancelStall stalls links as Core cancels exports
	exportCancelStall exportCancelStall
	// cancelForgery forges cancel_failed behind a done
	// (hostile_cancel_failed.go); nil when not drawn
	cancelForgery *cancelFailedForgery
	// cancelStarting cancels Turns read starting (cancel_starting.go).
	cancelStarting cancelStarting
	// cancelCrash crashes Core with a cancel unconfirmed (cancel_crash.go).
	cancelCrash cancelCrash
	// decisionChanged changes applied decisions (hostile_decision_applied.go).
	decisionChanged decisionChanged
	subagentStale   subagentStale            // hostile_subagent.go
	decisionRepeats decisionRepeats          // hostile_decision_repeat.go
	ixDecl          *interactionDeclarations // interaction_declarations.go
	// wsFaults is what the workspace faults read (faults_workspace.go).
	wsFaults wsFaultState
}

// Harness kinds: sessions use agentKind; some devices also declare
// otherKind, which Core must never substitute.
const (
	agentKind = "synthetic"
	otherKind = "other"
)

// setup populates the world. With linAtEnd the linearizability check runs
// as the last AtEnd check (for Shrink).
func setup(w *sim.Kernel, cfg Config, linAtEnd bool) *universe {
	u := &universe{w: w, cfg: cfg, led: check.NewLedger(), records: map[string]int{},
		capacityRefused: map[string]bool{}, statusRev: map[string]uint64{},
		ignoreAtCore: map[string]bool{},
		deliveredAt:  map[string]time.Time{}}
	r := w.Rand("params")
	u.coreCfg = core.DefaultConfig()
	// The simulated Harness kinds get the simulator's open profile:
	// every operation qualified, no control declared, so the drawn
	// device declarations decide what is served.
	u.coreCfg.Policy = simulatedPolicy(agentKind, otherKind)
	u.drawEnginePolicies() // some seeds run drawn or built-in profiles instead
	u.store = &observedStore{Memory: store.NewMemory(), u: u}
	hcfg := harness.DrawConfig(r)
	shapeR := w.Rand("shape")
	u.shape = drawShape(shapeR)
	// the shape may run many more turns than the workload knob says
	u.livenessFloor = LivenessTimeout(u.shape.turns(w.Workload())) + u.shape.livenessExtra(u.shape.turns(w.Workload()))
	w.AtLeastLiveness(u.livenessFloor)
	u.shape.adjustHarness(&hcfg)
	// drawn apart from every other draw: one seed in three retires an
	// executor whose Turn was cancelled
	hcfg.CancelRetires = w.Rand("cancel-retires").IntN(3) == 0
	hcfg.PollPeriod = drawPollPeriod(w.Rand("harness:poll"), u.shape)
	// a glacial preparation in about a third of the seeds with faults
	// (one in four here, with the Harness's own draw), so that the
	// documented 5-minute admission expiry decides often enough: it is the
	// only honest way an admission lives that long
	if w.Rand("glacial").IntN(4) == 0 && !u.faultFree() {
		hcfg.GlacialPrepare = true
	}
	n := cfg.Devices
	if n <= 0 || n > 4 {
		n = u.shape.devices(1 + r.IntN(4))
	}
	u.drawCapabilityProfile()
	u.drawInteractionDeclarations()
	u.drawCapabilitySwarm()
	tableR := w.Rand("daemon:executor-table")
	for i := range n {
		dcfg, drawn := drawDaemonConfig(r, u.swarmCaps(i, u.interactionCaps(i, u.profileCaps(i, drawCaps(r, i)))), i > 0)
		u.shape.adjustLimits(shapeR, &dcfg.Limits)
		drawExecutorTable(tableR, &dcfg.Limits)
		drawn.admission = dcfg.Limits.AdmissionExpiry // a shape may set the documents' value back
		drawn.idle = dcfg.Limits.IdleExpiry
		u.configuredTimers(string(deviceID(i)), drawn)
		hc := hcfg
		hc.GlacialPrepare = hcfg.GlacialPrepare && i == 0 // one device prepares glacially
		u.devices = append(u.devices, u.newDevice(i, dcfg, hc))
		u.declareLimits(deviceID(i), dcfg)
	}
	u.drawExpiryLag()
	u.drawPreparationFlood()
	u.drawReceiptReplay()
	u.drawCancelFailedForgery()
	w.AddNode(coreID, func() sim.Node { return u.newCore() })
	for _, d := range u.devices {
		w.AddNode(d.ID, d.Factory)
	}
	if u.shape == shapeFlapping {
		u.scheduleFlaps(shapeR)
	}
	u.wl = newWorkload(u, w.Rand("workload"))
	w.AddNode(workloadID, func() sim.Node { return u.wl })
	u.hostile.init()
	u.initCancelStall()
	u.initSuspensionStall()
	u.initExportCancelStall()
	u.initCancelStarting()
	u.initCancelCrash()
	u.initDecisionChanged()
	u.initSubagentStale()
	u.initDecisionRepeats()
	u.drawEventLimit()
	u.hostile.rogue = &rogueState{u: u, sessions: map[string]*rogueSession{}}
	w.AddNode(rogueID, func() sim.Node { return &rogueNode{st: u.hostile.rogue} })
	u.addChecks()
	w.Tap(u.tapWire)
	w.SetDump(u.dumpState)
	w.Tap(u.tapLimits)
	w.Tap(u.tapCapabilityFlaps)
	w.Tap(u.tapReceiptReplay)
	w.Tap(u.tapCancelFailedForgery)
	w.Tap(u.tapFailover)
	u.led.OnReach = func(m check.Mark) { u.w.Reachable(string(m)) }
	if linAtEnd {
		u.w.AddCheck(sim.Check{Name: check.CheckLinearizability, AtEnd: u.linearizeAtEnd})
		u.w.AddCheck(sim.Check{Name: checkDecisionLinearizability, AtEnd: u.linearizeDecisionsAtEnd})
	}
	u.registerFaults()
	w.OnHeal(u.onHeal)
	u.lastReason = func() string { return u.lastVerdict.reason(u.wl) }
	w.SetConvergenceLazy(u.convergence)
	return u
}

func (u *universe) linearizeAtEnd(v *sim.View) error {
	u.wl.flush(u.lt(v.Now()))
	res := linearize.Check(u.led.History(), linearize.Options{Timeout: linearize.TimeoutDefault})
	if viol, ok := check.LinearizeViolation(res, u.lt(v.Now())); ok {
		return errorString(viol.Message)
	}
	return nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// count tallies one ledger record of a family.
func (u *universe) count(family string) {
	u.records[family]++
	switch family {
	case "TurnSubmitted", "TurnState", "CoreRestarted", "ExecutorCreated", "ExecutorClosed",
		"TurnCreated", "TurnSettled":
		u.recordsTotal++ // the records the liveness predicate reads
	}
}

// mark records a rare state in the ledger and the kernel's mark counts.
func (u *universe) mark(m check.Mark) {
	u.led.Mark(m)
	u.w.Reachable(string(m))
	u.count("marks")
}

// drawCaps declares the synthetic kind's capabilities of device i. Every
// device may lack a few optional ones (the first device only in a quarter
// of the seeds), so the capability rules matter: Core must refuse a turn
// whose admissible devices all lack a capability.
func drawCaps(r *rand.Rand, i int) wire.AgentKindCapabilities {
	c := wire.AllCapabilities(wire.CapabilityFromBool(true))
	optional := []*wire.CapabilitySupport{&c.StructuredOutput, &c.MessageItems, &c.SubagentObservations,
		&c.SubagentControl, &c.FunctionTools, &c.MessageImages, &c.LocalEnvironment, &c.ToolSearch,
		&c.WorkspaceReadPreparation, &c.WorkspaceOutputExport, &c.FunctionResultImages, &c.MCPHTTPRequired,
		&c.MCPHTTPBearerAuth}
	lacking := i > 0 || r.IntN(4) == 0
	for _, p := range optional {
		drop := r.IntN(6) == 0 // always drawn: stable streams
		if lacking && drop {
			*p = wire.CapabilityFromBool(false)
		}
	}
	return c
}

// drawExecutorTable: for half the devices with tight limits, an executor
// table below the active and idle bounds together (ExecutorsMax from
// ActiveMax up to ActiveMax+IdleExecutorsMax-1), so it can fill with idle
// executors and a new Session's prepare meets the executor limit itself
// (executor_capacity). Its own stream: other draws are unchanged.
func drawExecutorTable(r *rand.Rand, l *daemon.Limits) {
	if l.ActiveMax == 0 || l.IdleExecutorsMax == 0 || r.IntN(2) != 0 {
		return
	}
	l.ExecutorsMax = l.ActiveMax + r.IntN(l.IdleExecutorsMax)
}

// drawPollPeriod: in one seed in three, and in every capacity_pressure seed,
// the Harness polls its native engine every 3–8 s (PollPeriod in
// harness.Config), so Turns whose native work ends within one period
// settle at one instant and their executors are idle since it: which one
// a full table evicts is then decided by age (idle_eviction). Its own
// stream: other draws are unchanged.
func drawPollPeriod(r *rand.Rand, s shape) time.Duration {
	if r.IntN(3) != 0 && s != shapeCapacity {
		return 0
	}
	return time.Duration(3000+r.IntN(5000)) * time.Millisecond
}

// drawDaemonConfig sets a daemon's limits: sometimes tight capacity (so
// preparation_capacity happens) and sometimes a short admission expiry
// (so an admission can expire before its start).
func drawDaemonConfig(r *rand.Rand, caps wire.AgentKindCapabilities, other bool) (daemon.Config, drawnTimers) {
	// Zero limits take the daemon's own defaults; the checkers hold them
	// to the documents' numbers (documentedLimits), never to those defaults.
	var l daemon.Limits
	var drawn drawnTimers
	if r.IntN(3) == 0 {
		l.ActiveMax = 1 + r.IntN(2)
		l.IdleExecutorsMax = 1 + r.IntN(3)
		l.ExecutorsMax = l.ActiveMax + l.IdleExecutorsMax
	}
	if r.IntN(3) == 0 {
		l.AdmissionExpiry = time.Duration(2+r.IntN(6)) * time.Second
		drawn.admission = l.AdmissionExpiry
	}
	l.IdleExpiry = time.Duration(5+r.IntN(60)) * time.Second
	drawn.idle = l.IdleExpiry
	kinds := []daemon.KindConfig{{Kind: agentKind, Version: "1.0.0", Available: true, Capabilities: caps}}
	if r.IntN(4) == 0 {
		// Another Harness kind, fully capable: Core must never pick it for
		// a session of the synthetic kind. On a device other than the
		// first, the synthetic kind is then sometimes declared unavailable.
		kinds = append(kinds, daemon.KindConfig{Kind: otherKind, Version: "2.0.0", Available: true,
			Capabilities: wire.AllCapabilities(wire.CapabilityFromBool(true))})
		kinds[0].Available = !other || r.IntN(2) == 0
	}
	cfg := daemon.Config{
		Kinds:         kinds,
		DaemonVersion: "0.10.0",
		Limits:        l,
		Workspace:     daemon.WorkspaceConfig{Writes: true},
	}
	if r.IntN(8) == 0 {
		// A daemon whose heartbeat cadence is slower than Core's idle
		// timeout allows in some seeds (40–80 s): Core's idle timer then
		// decides on a quiet connection.
		cfg.HeartbeatInterval = time.Duration(40+r.IntN(41)) * time.Second
		drawn.heartbeat = cfg.HeartbeatInterval
	}
	if r.IntN(6) == 0 {
		// A write transfer expiry of 10–250 ms, around the few round trips
		// from begin to commit, so the daemon's expiry decides in some
		// seeds (the documented 195 s outlasts every honest transfer).
		cfg.Workspace.TransferExpiry = time.Duration(10+r.IntN(240)) * time.Millisecond
		drawn.transfer = cfg.Workspace.TransferExpiry
	}
	return cfg, drawn
}

// onHeal restarts crashed nodes (harness.Register's hook has already
// dropped armed Harness faults but one write overrun, ended version
// windows and released hung Harness calls).
func (u *universe) onHeal() {
	u.healedAt = u.w.Now()
	if !u.w.Up(coreID) {
		u.w.Restart(coreID)
	}
	for _, d := range u.devices {
		if !u.w.Up(d.ID) {
			u.w.Restart(d.ID)
		}
	}
	u.w.After(time.Second, "", u.maybeShutdown)
}

// maybeShutdown asks every daemon to shut down once the workload is done
// and every turn is terminal, so idle executors are closed and the
// orphaned-resource check has a defined end, and once the middle has sent
// the decision repeats the deployment stays up for
// (repeatsHoldShutdown). It polls until then.
func (u *universe) maybeShutdown() {
	if u.shutdownSent {
		return
	}
	if !u.wl.finished() || u.core == nil || len(u.core.m.ActiveTurns()) > 0 || u.repeatsHoldShutdown() {
		u.w.After(500*time.Millisecond, "", u.maybeShutdown)
		return
	}
	u.shutdownSent = true
	u.w.Note("shutdown requested")
	for _, d := range u.devices {
		u.led.ShutdownRequested(u.lt(u.w.Now()), string(d.ID))
		d.Command(harness.CmdShutdown)
	}
}

// converged is the liveness predicate: shutdown requested, every turn
// terminal and every native resource released.
func (u *universe) converged() (bool, string) {
	v := u.verdict()
	return v.ok, v.reason(u.wl)
}

// convergence is converged for SetConvergenceLazy: an unfinished
// workload's reason is built only if the kernel asks for it, from the
// snapshot of the workload's counters taken with the verdict.
func (u *universe) convergence() (bool, func() string) {
	u.lastVerdict = u.verdict()
	return u.lastVerdict.ok, u.lastReason
}

// verdict is the liveness predicate's verdict, memoised: it is evaluated
// after every step, but only recomputed when its key moved.
func (u *universe) verdict() verdict {
	key := convergeKey{records: u.recordsTotal, calls: len(u.wl.calls), issued: u.wl.issued,
		terminal: u.wl.terminalCount, shutdown: u.shutdownSent, suspensions: u.led.SuspensionsAwaited(),
		preparations: u.wl.preparationsFollowed()}
	if u.lastConverge.valid && u.lastConverge.key == key {
		return u.lastConverge.v
	}
	v := u.verdictNow()
	u.lastConverge = convergeMemo{valid: true, key: key, v: v}
	return v
}

// convergeKey is everything the liveness predicate depends on.
type convergeKey struct {
	records, calls, issued, terminal, suspensions, preparations int
	shutdown                                                    bool
}

type convergeMemo struct {
	valid bool
	key   convergeKey
	v     verdict
}

// verdict is the predicate's answer: ok, and why not, either as text or
// (an unfinished workload) as the snapshot its text is built from.
type verdict struct {
	ok      bool
	why     string
	pending bool // why is the text of snap
	snap    pendingSnapshot
}

func (v verdict) reason(wl *workload) string {
	if v.pending {
		return wl.pendingText(v.snap)
	}
	return v.why
}

// convergedNow is the predicate computed afresh.
func (u *universe) convergedNow() (bool, string) {
	v := u.verdictNow()
	return v.ok, v.reason(u.wl)
}

func (u *universe) verdictNow() verdict {
	if !u.shutdownSent {
		if !u.wl.finished() {
			return verdict{pending: true, snap: u.wl.snapshot()}
		}
		ok, why := u.led.Pending()
		if !ok {
			return verdict{why: why}
		}
		return verdict{why: "shutdown not requested yet"}
	}
	ok, why := u.led.Pending()
	return verdict{ok: ok, why: why}
}

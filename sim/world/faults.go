package world

import (
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
)

// kind is a process or connection fault kind the world registers with the
// kernel (the Harness kinds are registered by harness.Register).
type kind struct {
	kind     sim.FaultKind
	min, max time.Duration // fault window (For); zero for point faults
	devices  bool          // targets a device (else Core)
}

// World fault kinds acting on processes and connections.
var (
	kCoreCrash        = kind{kind: "core_crash", min: 300 * time.Millisecond, max: 4 * time.Second}
	kDaemonCrash      = kind{kind: "daemon_crash", min: 300 * time.Millisecond, max: 4 * time.Second, devices: true}
	kDeviceReplace    = kind{kind: "device_replace", devices: true}
	kInvalidHeartbeat = kind{kind: "invalid_heartbeat", devices: true}
	kVersionMismatch  = kind{kind: "version_mismatch", min: 500 * time.Millisecond, max: 5 * time.Second, devices: true}
	kStatusRepublish  = kind{kind: "status_republish", devices: true}
)

func processKinds() []kind {
	return []kind{kCoreCrash, kCoreZombie, kDaemonCrash, kDeviceReplace, kInvalidHeartbeat, kVersionMismatch, kStatusRepublish}
}

// worldKinds lists every fault kind the world registers: its process and
// connection kinds, then the Harness kinds.
func worldKinds() []sim.FaultKind {
	var out []sim.FaultKind
	for _, k := range processKinds() {
		out = append(out, k.kind)
	}
	for _, k := range hostileKinds() {
		out = append(out, k.kind)
	}
	out = append(out, interactionWorldKinds()...)
	out = append(out, workspaceWorldKinds()...)
	out = append(out, environmentWorldKinds()...)
	return append(out, harness.Kinds()...)
}

func (u *universe) registerFaults() {
	var devs []sim.NodeID
	for _, d := range u.devices {
		devs = append(devs, d.ID)
	}
	for _, k := range processKinds() {
		spec := sim.FaultSpec{Kind: k.kind, ForMin: k.min, ForMax: k.max}
		if k.devices {
			spec.Targets = devs
		} else {
			spec.Targets = []sim.NodeID{coreID}
		}
		u.w.RegisterFault(spec, u.handler(k))
	}
	for _, k := range hostileKinds() {
		u.w.RegisterFault(sim.FaultSpec{Kind: k.kind, ForMin: k.min, ForMax: k.max}, u.handler(k))
	}
	u.registerInteractionFaults()
	u.registerWorkspaceFaults()
	u.registerEnvironmentFaults()
	harness.Register(u.w, u.devices)
}

func (u *universe) handler(k kind) sim.FaultHandler {
	return func(w *sim.Kernel, f sim.Fault) {
		if u.heldPanicSpares(k) {
			u.noVictim(f, "ignored: a panic is held")
			return
		}
		d := u.deviceByID(f.Node)
		switch k {
		case kCoreZombie:
			u.startZombie(f)
		case kCoreCrash:
			u.cancelCrash.scheduled = true
			u.crashCore(f)
		case kDaemonCrash:
			if !d.Crash(f.For) {
				u.noVictim(f, "ignored: down")
			}
		case kVersionMismatch:
			d.SetVersionWindow(w.Now().Add(f.For))
			d.Command(harness.CmdReplace)
		case kDeviceReplace:
			d.Command(harness.CmdReplace)
		case kInvalidHeartbeat:
			d.Command(harness.CmdInvalidHeartbeat)
		case kStatusRepublish:
			d.Command(harness.CmdRepublish)
		case kHostileProxy:
			u.startProxy(f)
		case kHostileFrames:
			u.startInjector(f)
		case kRogueDaemon:
			u.startRogue(f)
		case kRogueCore:
			u.startRogueCore(f)
		}
	}
}

// noVictim records a fault the kernel applied that found nothing to act
// on (a crash of a process already down): the kernel counts it as
// injected, the world as skipped (Outcome.Skipped).
func (u *universe) noVictim(f sim.Fault, why string) {
	if u.skipped == nil {
		u.skipped = map[sim.FaultKind]int{}
	}
	u.skipped[f.Kind]++
	u.detail(why)
}

// detail adds what a fault did to its timeline line.
func (u *universe) detail(text string) { u.w.Note("fault detail " + text) }

// crashCore crashes Core (its store survives) and restarts it f.For later.
func (u *universe) crashCore(f sim.Fault) {
	if !u.w.Up(coreID) {
		u.noVictim(f, "ignored: down")
		return
	}
	// from the durable records Core's store holds (what survives the
	// crash), never Core's live view
	for _, t := range u.store.Memory.Turns() {
		if t.State == core.TurnStarting || t.State == core.TurnRunning {
			u.mark(check.MarkCoreRestartMidTurn)
			break
		}
	}
	u.core = nil
	u.failoverCrashed()
	u.led.NodeCrashed(u.lt(u.w.Now()), string(coreID))
	u.count("NodeCrashed")
	u.w.Crash(coreID)
	u.w.After(f.For, "", func() { u.w.Restart(coreID) })
}

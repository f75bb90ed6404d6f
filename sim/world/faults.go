package world

import (
	"fmt"
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// kind is a fault kind the world registers with the kernel.
type kind struct {
	kind     sim.FaultKind
	min, max time.Duration // fault window (For); zero for point faults
	devices  bool          // targets a device (else Core)
	token    bool          // arms the device's Harness for one call
}

// World fault kinds. Harness kinds arm one call of the target device's
// Harness; the others act on processes and connections.
var (
	kCoreCrash        = kind{kind: "core_crash", min: 300 * time.Millisecond, max: 4 * time.Second}
	kDaemonCrash      = kind{kind: "daemon_crash", min: 300 * time.Millisecond, max: 4 * time.Second, devices: true}
	kDeviceReplace    = kind{kind: "device_replace", devices: true}
	kInvalidHeartbeat = kind{kind: "invalid_heartbeat", devices: true}
	kVersionMismatch  = kind{kind: "version_mismatch", min: 500 * time.Millisecond, max: 5 * time.Second, devices: true}
	kStatusRepublish  = kind{kind: "status_republish", devices: true}

	kPrepareFailure   = kind{kind: "harness_prepare_failure", devices: true, token: true}
	kStartFailureNil  = kind{kind: "harness_start_failure_nil", devices: true, token: true}
	kStartFailureTurn = kind{kind: "harness_start_failure_turn", devices: true, token: true}
	kWriteFailure     = kind{kind: "harness_write_failure", devices: true, token: true}
	kWriteUncertain   = kind{kind: "harness_write_uncertain", devices: true, token: true}
	kWriteOverBudget  = kind{kind: "harness_write_over_budget", devices: true, token: true}
	kLateAccepted     = kind{kind: "harness_late_accepted", devices: true, token: true}
	kCancelLate       = kind{kind: "harness_cancel_late", devices: true, token: true}
	kCancelNever      = kind{kind: "harness_cancel_never", devices: true, token: true}
	kLateEvents       = kind{kind: "harness_late_events", devices: true, token: true}
	kNotReusable      = kind{kind: "harness_not_reusable", devices: true, token: true}
	kCloseFailure     = kind{kind: "harness_close_failure", devices: true, token: true}
	kHang             = kind{kind: "harness_hang", devices: true, token: true}
)

func worldKinds() []kind {
	return []kind{kCoreCrash, kDaemonCrash, kDeviceReplace, kInvalidHeartbeat, kVersionMismatch, kStatusRepublish,
		kPrepareFailure, kStartFailureNil, kStartFailureTurn, kWriteFailure, kWriteUncertain, kWriteOverBudget,
		kLateAccepted, kCancelLate, kCancelNever, kLateEvents, kNotReusable, kCloseFailure, kHang}
}

// tokensMax bounds the armed faults of one kind on one device.
const tokensMax = 3

func (u *universe) registerFaults() {
	var devs []sim.NodeID
	for _, d := range u.devices {
		devs = append(devs, d.id)
	}
	for _, k := range worldKinds() {
		spec := sim.FaultSpec{Kind: k.kind, ForMin: k.min, ForMax: k.max}
		if k.devices {
			spec.Targets = devs
		} else {
			spec.Targets = []sim.NodeID{coreID}
		}
		u.w.RegisterFault(spec, u.handler(k))
	}
}

func (u *universe) handler(k kind) sim.FaultHandler {
	return func(w *sim.World, f sim.Fault) {
		d := u.deviceByID(f.Node)
		switch {
		case k.token:
			if d.tokens[k.kind] < tokensMax {
				d.tokens[k.kind]++
			}
			u.detail(fmt.Sprintf("armed=%d", d.tokens[k.kind]))
		case k == kCoreCrash:
			u.crashCore(f)
		case k == kDaemonCrash:
			u.crashDaemon(d, f)
		case k == kVersionMismatch:
			d.versionUntil = w.Now().Add(f.For)
			u.command(d, cmdReplace)
		case k == kDeviceReplace:
			u.command(d, cmdReplace)
		case k == kInvalidHeartbeat:
			u.command(d, cmdInvalidHeartbeat)
		case k == kStatusRepublish:
			u.command(d, cmdRepublish)
		}
	}
}

// detail adds what a fault did to its timeline line.
func (u *universe) detail(text string) { u.w.Note("fault detail " + text) }

// command wakes a device's daemon node with a fault command.
func (u *universe) command(d *device, cmd sim.TimerID) {
	if u.w.Up(d.id) {
		u.w.Inject(d.id, sim.TimerFired{Timer: cmd})
	}
}

// crashCore crashes Core (its store survives) and restarts it f.For later.
func (u *universe) crashCore(f sim.Fault) {
	if !u.w.Up(coreID) {
		u.detail("ignored: down")
		return
	}
	for _, t := range u.core.m.ActiveTurns() {
		if t.State == "starting" || t.State == "running" {
			u.mark(check.MarkCoreRestartMidTurn)
			break
		}
	}
	u.core = nil
	u.w.Crash(coreID)
	u.w.After(f.For, "", func() { u.w.Restart(coreID) })
}

// crashDaemon crashes a device's daemon with its in-process Harness: every
// native resource of the process ends with it.
func (u *universe) crashDaemon(d *device, f sim.Fault) {
	if !u.w.Up(d.id) {
		u.detail("ignored: down")
		return
	}
	d.node.h.processDied(u.w.Now())
	d.node = nil
	u.w.Crash(d.id)
	u.w.After(f.For, "", func() { u.w.Restart(d.id) })
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m { //tidy:sorted sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedTurnIDs[V any](m map[daemon.TurnID]V) []daemon.TurnID {
	keys := make([]daemon.TurnID, 0, len(m))
	for k := range m { //tidy:sorted sorted below
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

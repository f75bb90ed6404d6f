package harness

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// Device is one Runtime device: what outlives its daemon process (the
// configuration, armed Harness faults, a version-mismatch window, the long
// turns already played) and the current process, a Daemon node with the
// simulated Harness inside it. Register the node with
// Kernel.AddNode(d.ID, d.Factory).
type Device struct {
	ID       sim.NodeID
	Core     sim.NodeID     // the node the daemon dials
	Daemon   daemon.Config  // the machine's configuration
	Harness  Config         // the Harness's behaviour
	Backoff  Backoff        // reconnect backoff; zero takes DefaultBackoff()
	Observer Observer       // sees machine events and effects; may be nil
	Recorder Recorder       // receives ground truth as it happens; may be nil
	Native   *NativeHistory // native sessions shared by the world's devices; may be nil
	// Workspaces are the Environments' file trees shared by the world's
	// devices; nil: the device keeps its own.
	Workspaces *Workspaces
	// Decode decodes every frame the daemon receives; nil: wire.Decode.
	Decode func([]byte) (wire.Frame, error)
	// Encode encodes every frame the daemon sends; nil: wire.Encode. An
	// error drops the frame and is reported to the Observer.
	Encode func(wire.Frame) ([]byte, error)
	// ExpiryLag is the most the process delivers an admission expiry timer
	// after its instant, as a loaded host delivers timers late; each timer
	// draws its own lag. The machine must then refuse a start that arrives
	// past the deadline by its own clock. Zero: timers are on time.
	ExpiryLag time.Duration

	w            *sim.Kernel
	tokens       map[sim.FaultKind]int
	versionUntil time.Time
	wallOffset   time.Duration // the host's wall clock minus virtual time
	slowStaged   bool          // the device's one slow runtime_prepare transfer was drawn (workspace_latency.go)
	longTurns    int
	engineErrors int  // engine errors emitted, which pick the next code (engine_errors.go)
	glacialDone  bool // the glacial preparation happened
	// glacialHealed: the glacial preparation after heal happened, or the
	// window for it passed (latency.go)
	glacialHealed bool
	healedAt      time.Time // zero until the heal
	// askBeforeStart counts armed asks before a start returns; askedEarly
	// holds what they asked, by Run (ask_before_start.go)
	askBeforeStart int
	askedEarly     map[string][]string
	// longRun holds Runs whose native turn is armed to run long
	// (long_turn.go)
	longRun map[string]bool
	node    *Daemon
}

// NewDevice builds device id of world w, dialing core.
func NewDevice(w *sim.Kernel, id, core sim.NodeID, cfg daemon.Config, hcfg Config) *Device {
	d := &Device{ID: id, Core: core, Daemon: cfg, Harness: hcfg, w: w, tokens: map[sim.FaultKind]int{}}
	if hcfg.GlacialPrepare {
		w.OnHeal(func() { d.healedAt = w.Now() })
	}
	return d
}

// Factory starts a new daemon process (with a new Harness inside it).
func (d *Device) Factory() sim.Node {
	d.node = newDaemon(d)
	return d.node
}

// Node returns the current daemon process, or nil while it is down.
func (d *Device) Node() *Daemon { return d.node }

// Arm arms one Harness fault of kind k (at most TokensMax) and returns
// the count now armed.
func (d *Device) Arm(k sim.FaultKind) int {
	if d.tokens[k] < TokensMax {
		d.tokens[k]++
	}
	return d.tokens[k]
}

// Armed returns the faults of kind k armed on the device.
func (d *Device) Armed(k sim.FaultKind) int { return d.tokens[k] }

// take consumes one armed fault of kind k.
func (d *Device) take(k sim.FaultKind) bool {
	if d.tokens[k] == 0 {
		return false
	}
	d.tokens[k]--
	return true
}

// SetVersionWindow makes the device's daemon an older build until the
// given instant: its upgrades declare OlderVersion, which Core refuses,
// and after a refusal it redials only once the window has ended.
func (d *Device) SetVersionWindow(until time.Time) { d.versionUntil = until }

// JumpClock moves the device's wall clock by off and returns the total
// offset. The wall clock belongs to the host, not the process: it outlives
// crashes, and heal does not undo it. The running daemon process is told
// at once (daemon.WallClockStep), a restarted one when it starts.
func (d *Device) JumpClock(off time.Duration) time.Duration {
	d.wallOffset += off
	d.Command(CmdWallClock)
	return d.wallOffset
}

// WallOffset returns how far the device's wall clock is from virtual time.
func (d *Device) WallOffset() time.Duration { return d.wallOffset }

// Heal drops armed faults (all but one write overrun), ends the version
// window and releases the Harness's hung calls. A jumped wall clock stays
// jumped.
func (d *Device) Heal() {
	// An overrunning native write is no partition: it completes on its own
	// (within its bounded overrun), so one armed overrun survives heal. It
	// is how a steer waits out Core's written window after heal, when the
	// connection is quiet for that long.
	over := min(1, d.tokens[WriteOverBudget])
	clear(d.tokens)
	if over > 0 {
		d.tokens[WriteOverBudget] = over
	}
	d.versionUntil = time.Time{}
	d.Command(CmdHeal)
}

// Command wakes the running daemon process with a command (no effect
// while it is down).
func (d *Device) Command(cmd sim.TimerID) {
	if d.w.Up(d.ID) {
		d.w.Inject(d.ID, sim.TimerFired{Timer: cmd})
	}
}

// Crash kills the daemon process and the Harness inside it: every native
// resource it held ends with it (recorded closed by the crash), and the
// kernel restarts the node after down.
func (d *Device) Crash(down time.Duration) bool {
	if !d.w.Up(d.ID) {
		return false
	}
	if d.node != nil {
		d.node.h.processDied(d.w.Now())
	}
	d.node = nil
	d.w.Crash(d.ID)
	d.w.After(down, "", func() { d.w.Restart(d.ID) })
	return true
}

// Commands a fault handler (or the world) injects into a daemon process.
const (
	CmdHeal             sim.TimerID = "cmd/heal"              // release the Harness's hung calls
	CmdShutdown         sim.TimerID = "cmd/shutdown"          // ask the machine to shut down
	CmdInvalidHeartbeat sim.TimerID = "cmd/invalid_heartbeat" // send one malformed heartbeat
	CmdReplace          sim.TimerID = "cmd/replace"           // dial a second connection that replaces the first
	CmdRepublish        sim.TimerID = "cmd/republish"         // resend the newest live admission's status (current connection)
	CmdWallClock        sim.TimerID = "cmd/wall_clock"        // tell the machine the device's wall clock moved
)

// Backoff is the daemon's reconnect policy: Base doubling per failed dial
// up to Max, plus up to Jitter (seeded).
type Backoff struct {
	Base, Max, Jitter time.Duration
}

// DefaultBackoff is 200 ms doubling to 5 s, plus up to 100 ms of jitter.
func DefaultBackoff() Backoff {
	return Backoff{Base: 200 * time.Millisecond, Max: 5 * time.Second, Jitter: 100 * time.Millisecond}
}

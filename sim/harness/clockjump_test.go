package harness

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestClockJumpOffsetBounds(t *testing.T) {
	var fwd, back int
	r := sim.NewStream(7, "picks")
	for _, pick := range append([]uint64{0, 1, ^uint64(0), ^uint64(1)}, r.Uint64(), r.Uint64(), r.Uint64()) {
		off := ClockJumpOffset(pick)
		mag := max(off, -off)
		if mag < ClockJumpMin || mag > ClockJumpMax || mag%time.Millisecond != 0 {
			t.Fatalf("pick %d: offset %s out of ±[%s, %s]", pick, off, ClockJumpMin, ClockJumpMax)
		}
		if off > 0 {
			fwd++
		} else {
			back++
		}
	}
	if fwd == 0 || back == 0 {
		t.Fatalf("jumps in one direction only: %d forward, %d backward", fwd, back)
	}
	if ClockJumpOffset(0) != ClockJumpMin || ClockJumpOffset(1) != -ClockJumpMin {
		t.Fatalf("pick 0 and 1: %s %s", ClockJumpOffset(0), ClockJumpOffset(1))
	}
}

// wallObserver checks every heartbeat the daemon emits against the wall
// clock of its device, and counts the wall steps the machine was fed.
type wallObserver struct {
	t     *testing.T
	d     *Device
	steps int
	beats int
	bad   string
	// lastStep and lastBeat are when the machine last took a wall step
	// and last sent a heartbeat.
	lastStep, lastBeat time.Time
}

func (o *wallObserver) DaemonEvent(now time.Time, ev daemon.Event) {
	if _, ok := ev.(daemon.WallClockStep); ok {
		o.steps++
		o.lastStep = now
	}
}

func (o *wallObserver) DaemonEffect(now time.Time, e daemon.Effect) {
	s, ok := e.(daemon.Send)
	if !ok {
		return
	}
	if hb, ok := s.Frame.Payload.(wire.Heartbeat); ok {
		o.beats++
		o.lastBeat = now
		if want := now.Add(o.d.WallOffset()).Unix(); hb.TS != want && o.bad == "" {
			o.bad = daemon.DescribeFrame(s.Frame) + " at " + sim.FormatTime(now)
		}
	}
}

func (o *wallObserver) DaemonStepped(time.Time, *daemon.Machine) {}
func (o *wallObserver) ShellError(_ time.Time, msg string)       { o.t.Errorf("shell: %s", msg) }

type quietCore struct{}

func (quietCore) Step(time.Time, sim.Event) []sim.Effect { return nil }

// clockWorld runs one device dialing a silent Core under the swarm's
// daemon_clock_jump faults only; setup may add more.
func clockWorld(t *testing.T, seed uint64, setup func(w *sim.Kernel, d *Device)) (sim.Result, *Device, *wallObserver) {
	t.Helper()
	var dev *Device
	obs := &wallObserver{t: t}
	res := sim.Run(seed, sim.Options{
		Swarm: sim.SwarmConfig{Kinds: []sim.FaultKind{ClockJump}, All: true, HealMin: 90 * time.Second, HealMax: 90 * time.Second},
		Setup: func(w *sim.Kernel) {
			dev = NewDevice(w, "dev", "core", daemon.Config{}, Config{})
			obs.d = dev
			dev.Observer = obs
			w.AddNode("core", func() sim.Node { return quietCore{} })
			w.AddNode("dev", dev.Factory)
			Register(w, []*Device{dev})
			if setup != nil {
				setup(w, dev)
			}
		},
	})
	if res.Failed() {
		t.Fatalf("seed %d failed: %v", seed, res.Violations)
	}
	if obs.bad != "" {
		t.Fatalf("seed %d: heartbeat off the device's wall clock: %s", seed, obs.bad)
	}
	return res, dev, obs
}

// TestClockJumpFaultShiftsHeartbeats: the swarm schedules the kind; each
// fault jumps the device's wall clock (never undone by heal) and the
// daemon's heartbeats follow it, in both directions.
func TestClockJumpFaultShiftsHeartbeats(t *testing.T) {
	var faults, fwd, back int
	for seed := uint64(1); seed <= 8; seed++ {
		res, dev, obs := clockWorld(t, seed, nil)
		var sum time.Duration
		for _, f := range res.Schedule.Faults {
			if f.Kind == ClockJump {
				faults++
				sum += ClockJumpOffset(f.Pick)
				if ClockJumpOffset(f.Pick) > 0 {
					fwd++
				} else {
					back++
				}
			}
		}
		if dev.WallOffset() != sum {
			t.Fatalf("seed %d: device offset %s, scheduled jumps sum to %s", seed, dev.WallOffset(), sum)
		}
		// every heartbeat follows the device's offset; one after the last
		// wall step shows the machine kept the jumps past heal
		if obs.steps > 0 && !obs.lastBeat.After(obs.lastStep) {
			t.Fatalf("seed %d: no heartbeat after the last wall step at %s", seed, sim.FormatTime(obs.lastStep))
		}
		if obs.beats == 0 || (sum != 0 && obs.steps == 0) {
			t.Fatalf("seed %d: %d heartbeats, %d wall steps", seed, obs.beats, obs.steps)
		}
	}
	if faults == 0 || fwd == 0 || back == 0 {
		t.Fatalf("daemon_clock_jump injected %d times (%d forward, %d backward)", faults, fwd, back)
	}
}

// TestClockJumpOutlivesCrash: the wall clock is the host's, so a daemon
// restarted after a crash starts with the jumped clock, including a jump
// made while it was down.
func TestClockJumpOutlivesCrash(t *testing.T) {
	// every heartbeat follows the device's offset, so one sent after the
	// restart shows the restarted machine started with the jumped clock
	_, _, obs := clockWorld(t, 3, func(w *sim.Kernel, d *Device) {
		w.After(10*time.Second, "crash", func() { d.Crash(5 * time.Second) })
		w.After(12*time.Second, "jump", func() { d.JumpClock(-7 * time.Minute) })
	})
	if restarted := sim.Epoch.Add(15 * time.Second); !obs.lastBeat.After(restarted) {
		t.Fatalf("no heartbeat after the restart at %s", sim.FormatTime(restarted))
	}
}

func (o *wallObserver) MachinePanicked(_ time.Time, p daemon.StepPanic) { panic(p.Value) }

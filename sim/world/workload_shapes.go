package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim/harness"
)

// shape is the workload's form in one seed, drawn by swarm from the
// seed's "shape" stream (so the default shape keeps the other streams as
// they are). Each shape drives the machines towards limits the default
// workload of about ten Turns never reaches.
type shape string

const (
	// shapeDefault: sessions and Turns as drawn, steers and cancels at
	// random.
	shapeDefault shape = "default"
	// shapeBursty: twice the Turns, submitted in three bursts of 300 ms.
	shapeBursty shape = "bursty_sessions"
	// shapeShortTurns: eight times the Turns on one device (one
	// connection, unless it is lost), few steers, a native done that
	// carries no usage: more than 64 admissions on one connection, and
	// usage coming from the last snapshot.
	shapeShortTurns shape = "many_short_turns"
	// shapeManySteers: a few Turns, one flooded with more steers than a
	// Run may take (256), the others steered steadily for 30 s and
	// more: the input limit, and steers after an earlier input became
	// unknown.
	shapeManySteers shape = "many_steers"
	// shapeCapacity: one device with an executor table barely above its
	// active limit, more sessions than executors, slow closes, half the
	// settlements retiring their executor, in half the seeds idle
	// executors kept for the documented bound: capacity refusals while
	// closing executors still count, and evictions.
	shapeCapacity shape = "capacity_pressure"
	// shapeFlapping: each device's kind goes unavailable for a few
	// seconds, once or twice, and comes back: the capability snapshot
	// changes across heartbeats.
	shapeFlapping shape = "kinds_flapping"
	// shapeInteractions: every native Turn asks and waits for its
	// answers; a share of native decisions confirm past Core's 15 s
	// receipt wait (Core answers again after the unknown outcome) and a
	// share of permission decisions race the native withdrawal of their
	// request.
	shapeInteractions shape = "interaction_heavy"
)

// drawShape draws the seed's shape: the default in three eighths of the
// seeds, interaction_heavy in one in eight (a second draw, made only for
// the seeds that drew the default before it existed), bursty_sessions in
// one in six and each other shape in one in twelve.
func drawShape(r *rand.Rand) shape {
	switch n := r.IntN(12); {
	case n < 6:
		if r.IntN(4) == 0 {
			return shapeInteractions
		}
		return shapeDefault
	case n < 8:
		return shapeBursty
	case n == 8:
		return shapeShortTurns
	case n == 9:
		return shapeManySteers
	case n == 10:
		return shapeCapacity
	default:
		return shapeFlapping
	}
}

// devices is the number of devices of the shape (n as drawn).
func (s shape) devices(n int) int {
	if s == shapeShortTurns || s == shapeCapacity {
		return 1
	}
	return n
}

// adjustHarness sets the shape's Harness behaviour.
func (s shape) adjustHarness(c *harness.Config) {
	switch s {
	case shapeShortTurns:
		c.DoneWithoutUsage, c.ShortTurns = true, true
	case shapeCapacity:
		c.SlowClose, c.RetireShare = 4, 2
	case shapeInteractions:
		c.Asks = harness.AskConfig{Always: true, Await: true, SlowDecisions: 3, WithdrawRaces: 3}
	}
}

// adjustLimits sets the shape's daemon limits: the documented capacity
// for many short Turns (so they drain in time), a tight executor table
// under capacity pressure.
func (s shape) adjustLimits(r *rand.Rand, l *daemon.Limits) {
	switch s {
	case shapeShortTurns:
		// zero: the daemon's own defaults, which the checks hold to the
		// documents' numbers (never read back from the daemon)
		l.ActiveMax, l.IdleExecutorsMax, l.ExecutorsMax = 0, 0, 0
		l.AdmissionExpiry = 0
	case shapeCapacity:
		l.ActiveMax = 1 + r.IntN(2)
		l.IdleExecutorsMax = 2
		l.ExecutorsMax = l.ActiveMax + 2
		if r.IntN(2) == 0 {
			// the documented idle bound: idle executors stay until
			// eviction makes room, so which one goes is decided often
			l.IdleExpiry = 0
		}
	}
}

// turns is the number of Turns of the shape for a workload knob of w.
func (s shape) turns(w int) int {
	switch s {
	case shapeBursty:
		return 2 * w
	case shapeShortTurns:
		return 8 * w
	case shapeManySteers:
		return max(1, w/4)
	case shapeCapacity:
		return w + w/4
	}
	return w
}

// askingTurnWait bounds what asking adds to one Turn of interaction_heavy:
// two native decisions each confirming up to 25 s late, and a 20 s wait
// for an answer that never comes.
const askingTurnWait = 2*25*time.Second + harness.AnswerWaitMax

// livenessExtra is what the shape adds to the liveness deadline of a
// workload of turns: a Session's Turns run one after another, and under
// interaction_heavy each may wait askingTurnWait more.
func (s shape) livenessExtra(turns int) time.Duration {
	if s == shapeInteractions {
		return askingTurnWait * time.Duration(turns)
	}
	return 0
}

// sessions is the number of sessions of the shape (n as drawn).
func (s shape) sessions(n, turns int) int {
	if s == shapeCapacity {
		return min(6, turns)
	}
	return n
}

// arrival moves the drawn arrival of Turn i into the shape's pattern.
func (s shape) arrival(at time.Duration, i int) time.Duration {
	if s == shapeBursty {
		bursts := [...]time.Duration{time.Second, 8 * time.Second, 15 * time.Second}
		return bursts[i%len(bursts)] + at%(300*time.Millisecond)
	}
	return at
}

// scheduleFlaps makes each device's kind unavailable once or twice for
// 1–10 s, between 2 s and 25 s, always coming back.
func (u *universe) scheduleFlaps(r *rand.Rand) {
	for _, d := range u.devices {
		if len(d.Daemon.Kinds) == 0 || !d.Daemon.Kinds[0].Available {
			continue
		}
		at := time.Duration(0)
		for range 1 + r.IntN(2) {
			at += time.Duration(2000+r.IntN(12000)) * time.Millisecond
			down := time.Duration(1000+r.IntN(9000)) * time.Millisecond
			u.w.After(at, string(d.ID)+" kind unavailable", func() { d.SetKindAvailable(false) })
			u.w.After(at+down, string(d.ID)+" kind available", func() { d.SetKindAvailable(true) })
			at += down
		}
	}
}

// floodSteers is the steer plan of a flooded Turn: more steers than a Run
// may take, within its first three seconds.
const floodSteers = 270

// steerPlan returns the offsets of the steers of a Turn of the shape; ok
// is false when the shape keeps the default plan. first is true for the
// seed's first submitted Turn.
func (s shape) steerPlan(r *rand.Rand, first bool) (offsets []time.Duration, ok bool) {
	switch s {
	case shapeManySteers:
		if first {
			for range floodSteers {
				offsets = append(offsets, time.Duration(r.IntN(3000))*time.Millisecond)
			}
			return offsets, true
		}
		for range 20 + r.IntN(20) {
			offsets = append(offsets, time.Duration(r.IntN(45000))*time.Millisecond)
		}
		return offsets, true
	case shapeShortTurns:
		if r.IntN(4) == 0 {
			offsets = append(offsets, time.Duration(r.IntN(3000))*time.Millisecond)
		}
		return offsets, true
	}
	return nil, false
}

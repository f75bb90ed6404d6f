package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/wire"
)

// The rogue Core's cleanup script, on a second Session of its own: its
// prepare granted, it releases the handle (the executor idles as a new
// root) and at once prepares the Session again naming the Session's own
// native session. An idle executor with no native identity cannot resume
// it, so the daemon closes it (answering preparation_capacity); a close
// failure is armed on the device, as the harness_close_failure fault arms
// one, so that close may fail. It then prepares the Session a few times
// while the close is being retried: executor_cleanup_unconfirmed, judged
// only while the Harness's truth shows the failed close unconfirmed
// (check.CondCloseFailed). Any admission a prepare is granted is released
// at once.
type rogueCleanup struct {
	u       *universe
	r       *rand.Rand
	conn    sim.ConnID
	dev     sim.NodeID
	sess    string
	req     string
	exec    string
	granted map[string]bool // its later requests, released once granted
	done    bool
}

// cleanupRetries are the instants, after the prepare that closes the
// executor, of the prepares that meet its unconfirmed cleanup (the
// daemon's close retry backs off from 1 s).
var cleanupRetries = []time.Duration{300 * time.Millisecond, 700 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}

func (rc *rogueCore) startCleanup() {
	h := &rc.u.hostile
	cl := &rogueCleanup{u: rc.u, r: rc.r, conn: rc.conn, dev: rc.dev, sess: h.mint("s"), req: h.mint("p"),
		granted: map[string]bool{}}
	rc.cleanup = cl
	cl.send(cl.req, wire.ExecutionPrepare{SessionID: cl.sess, Configuration: hostileConfig(cl.sess, "m1")}, nil)
}

func (cl *rogueCleanup) send(id string, p wire.Payload, probe *check.HostileProbe) {
	if probe != nil {
		probe.Target = string(cl.dev)
	}
	cl.u.forge(cl.conn, coreID, encodeFrame(id, p), probe)
}

// observe reads one frame the daemon sent on the connection.
func (cl *rogueCleanup) observe(f wire.Frame) {
	st, ok := f.Payload.(wire.PreparationStatus)
	if !ok || cl.done {
		return
	}
	switch {
	case f.ID == cl.req && st.State == wire.StateReady && cl.exec == "":
		cl.exec = st.ExecutorID
		cl.u.w.After(time.Millisecond, "", func() { cl.releaseAndClose(st.Handle) })
	case f.ID == cl.req && (st.State == wire.StateRejected || st.State == wire.StateFailed || st.State == wire.StateExpired):
		cl.done = true
	case cl.granted[f.ID] && st.Handle != "" && (st.State == wire.StatePreparing || st.State == wire.StateReady):
		cl.granted[f.ID] = false
		id, handle := f.ID, st.Handle
		cl.u.w.After(time.Millisecond, "", func() { cl.send(id, wire.ExecutionRelease{Handle: handle}, nil) })
	}
}

// resumeConfig is its Session's configuration naming the Session's own
// native session (the one the native engine keeps for it).
func (cl *rogueCleanup) resumeConfig() wire.ExecutionConfiguration {
	c := hostileConfig(cl.sess, "m1")
	c.AgentSessionID = "native-" + cl.sess
	return c
}

func (cl *rogueCleanup) releaseAndClose(handle string) {
	cl.send(cl.req, wire.ExecutionRelease{Handle: handle}, nil)
	if d := cl.u.deviceByID(cl.dev); d != nil {
		d.Arm(harness.CloseFailure)
	}
	req := cl.u.hostile.mint("p")
	cl.granted[req] = true
	cl.send(req, wire.ExecutionPrepare{SessionID: cl.sess, Configuration: cl.resumeConfig()}, nil)
	for _, d := range cleanupRetries {
		cl.u.w.After(d, "", cl.unconfirmed)
	}
}

// unconfirmed: a prepare of the Session while its executor's close may
// have failed.
func (cl *rogueCleanup) unconfirmed() {
	req := cl.u.hostile.mint("p")
	cl.granted[req] = true
	// a kind gone unavailable or a daemon shutting down answers first
	cl.send(req, wire.ExecutionPrepare{SessionID: cl.sess, Configuration: cl.resumeConfig()},
		&check.HostileProbe{Action: check.HostilePrepareCleanupUnconfirmed, ReplyID: req, Executor: cl.exec})
}

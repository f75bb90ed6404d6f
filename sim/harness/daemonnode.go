package harness

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// Observer sees the daemon machine at work, with the virtual instant:
// every event it is stepped with, every effect it returns (before the
// shell carries it out), the machine after each step, and shell-level
// failures (a frame the machine emitted that does not encode; a correct
// machine never produces one). Checkers use it; it must not change anything.
type Observer interface {
	DaemonEvent(now time.Time, ev daemon.Event)
	DaemonEffect(now time.Time, e daemon.Effect)
	DaemonStepped(now time.Time, m *daemon.Machine)
	ShellError(now time.Time, msg string)
	// MachinePanicked: an assertion of the machine failed in a step. The
	// step's effects were applied. When the step had run to its end and
	// only its closing invariant check failed (daemon.StepPanic.Completed)
	// the node goes on stepping the machine; otherwise the process does
	// nothing more.
	MachinePanicked(now time.Time, p daemon.StepPanic)
}

// ReasonVersion is the close reason of a connection refused for an
// incompatible version: the daemon waits out the device's version window
// before redialling.
const ReasonVersion = "incompatible_version"

// Node-local timer names of the shell.
const (
	daemonPrefix = "d/"
	timerRedial  = "redial"
	// expiryTimerPrefix begins the machine's admission expiry timers,
	// the ones ExpiryLag delivers late.
	expiryTimerPrefix = "expiry/"
)

// Daemon is one daemon process of a Device: the daemon.Machine, a shell
// that dials Core and reconnects with backoff, decodes and encodes frames
// with wire, maps timers, and the simulated Harness in the same process
// (it dies with it). The machine never knows it runs in a simulation.
type Daemon struct {
	d       *Device
	m       *daemon.Machine
	h       *Harness
	r       *rand.Rand
	lag     *rand.Rand // draws expiry timer lags; nil without ExpiryLag
	backoff Backoff
	cur     sim.ConnID // current connection (0: none)
	dialing bool
	attempt int // failed dials since the last open connection
	// status keeps the last preparation_status frame of each live
	// admission, by connection and request ID (statusKey), for the
	// republish command; statusIDs are its keys, oldest first.
	status    map[statusKey][]byte
	statusIDs []statusKey
	queue     []daemon.Event
	out       []sim.Effect
	report    *daemon.Report
	wall      time.Duration // wall offset the machine has been told of
	// budgets are budgeted writes that could not complete at once, by
	// their timer (send_budget.go).
	budgets   map[sim.TimerID]budgetWatch
	budgetSeq uint64
	broken    bool // the machine panicked: the process is a corpse
}

func newDaemon(d *Device) *Daemon {
	n := &Daemon{d: d, m: daemon.New(d.Daemon), r: d.w.Rand("node:" + string(d.ID)), status: map[statusKey][]byte{},
		backoff: d.Backoff}
	if n.backoff == (Backoff{}) {
		n.backoff = DefaultBackoff()
	}
	if d.ExpiryLag > 0 {
		n.lag = d.w.Rand("timer-lag:" + string(d.ID))
	}
	n.h = New(d.w, d, n)
	return n
}

// Machine returns the daemon machine of this process.
func (n *Daemon) Machine() *daemon.Machine { return n.m }

// Harness returns the simulated Harness of this process.
func (n *Daemon) Harness() *Harness { return n.h }

// Report returns the machine's last shutdown report, or nil.
func (n *Daemon) Report() *daemon.Report { return n.report }

// Schedule arms a node timer for the Harness.
func (n *Daemon) Schedule(id sim.TimerID, at time.Time) {
	n.out = append(n.out, sim.SetTimer{Timer: id, At: at})
}

// Step translates one sim event into machine events and the machine's
// effects into sim effects.
func (n *Daemon) Step(now time.Time, ev sim.Event) []sim.Effect {
	n.out = nil
	if n.broken {
		return nil
	}
	switch e := ev.(type) {
	case sim.Start:
		n.syncWall(now)
		n.dial(now)
	case sim.ConnOpened:
		if !e.Dialer {
			return []sim.Effect{sim.Close{Conn: e.Conn, Reason: "daemon accepts no connections"}}
		}
		n.dialing, n.attempt = false, 0
		n.cur = e.Conn
		n.Feed(now, daemon.ConnOpened{Conn: daemon.ConnID(e.Conn)})
	case sim.ConnClosed:
		n.Feed(now, daemon.ConnClosed{Conn: daemon.ConnID(e.Conn)})
		if e.Conn == n.cur {
			n.cur = 0
			n.redial(now, e.Reason == ReasonVersion)
		}
	case sim.DialFailed:
		n.dialing = false
		n.attempt++
		n.redial(now, false)
	case sim.Delivered:
		n.delivered(now, e)
	case sim.TimerFired:
		n.timer(now, e.Timer)
	}
	return n.out
}

func (n *Daemon) delivered(now time.Time, e sim.Delivered) {
	gen := uint64(e.Conn)
	decode := wire.Decode
	if n.d.Decode != nil {
		decode = n.d.Decode
	}
	f, err := decode(e.Frame)
	if err != nil {
		var de *wire.DecodeError
		rej := daemon.FrameRejected{Conn: daemon.ConnID(gen), Err: err}
		if errors.As(err, &de) {
			rej.Type, rej.ID = de.Type, de.ID
		}
		n.Feed(now, rej)
		return
	}
	if n.prepareChunkLost(f) {
		n.breakOnReceive(now, gen)
		return
	}
	n.Feed(now, daemon.FrameReceived{Conn: daemon.ConnID(gen), Frame: n.corruptChunk(f)})
}

func (n *Daemon) timer(now time.Time, id sim.TimerID) {
	s := string(id)
	switch {
	case strings.HasPrefix(s, daemonPrefix):
		n.Feed(now, daemon.TimerFired{Timer: daemon.TimerID(s[len(daemonPrefix):])})
	case strings.HasPrefix(s, budgetPrefix):
		n.budgetDue(now, id)
	case n.h.Fire(now, id):
	case s == timerRedial:
		n.dial(now)
	case id == CmdHeal:
		n.h.Heal(now)
	case id == CmdShutdown:
		n.Feed(now, daemon.ShutdownRequested{Reason: "simulation finished"})
	case id == CmdInvalidHeartbeat:
		if n.cur != 0 {
			bad := []byte(`{"type":"heartbeat","payload":{"ts":"not a number","active_requests":0}}`)
			n.out = append(n.out, sim.Send{Conn: n.cur, Frame: bad})
		}
	case id == CmdReplace:
		if n.cur != 0 && !n.dialing {
			n.dialing = true
			n.out = append(n.out, n.dialAt(now, "replace"))
		}
	case id == CmdRepublish:
		n.republish(now)
	case id == CmdWallClock:
		n.syncWall(now)
	case id == CmdKindUnavailable, id == CmdKindAvailable:
		n.kindAvailability(now, id == CmdKindAvailable)
	}
}

// syncWall tells the machine how far the device's wall clock moved since
// it was last told, as a shell that reads wall time apart from its
// monotonic clock would: time itself (now) never jumps.
func (n *Daemon) syncWall(now time.Time) {
	if off := n.d.wallOffset - n.wall; off != 0 {
		n.wall = n.d.wallOffset
		n.Feed(now, daemon.WallClockStep{Offset: off})
	}
}

// statusKey names an admission's status stream: admissions and their
// handles are connection-local, so one request ID on two connections is
// two admissions.
type statusKey struct {
	conn sim.ConnID
	req  string
}

// republish resends the current status of the newest live admission of
// the current connection, as a daemon does when a status is asked for
// again: Core must ignore it. An admission of an earlier connection is no
// longer live (the machine retired it with its connection, sending
// nothing) and nothing is replayed to a successor, so its status is
// dropped here, never sent on the current connection.
func (n *Daemon) republish(now time.Time) {
	kept := n.statusIDs[:0]
	for _, k := range n.statusIDs {
		if _, ok := n.status[k]; ok && k.conn == n.cur {
			kept = append(kept, k)
		} else {
			delete(n.status, k)
		}
	}
	clear(n.statusIDs[len(kept):])
	n.statusIDs = kept
	if len(kept) == 0 || n.cur == 0 {
		return
	}
	b := n.status[kept[len(kept)-1]]
	n.out = append(n.out, sim.Send{Conn: n.cur, Frame: b})
	// a status send, with the budget of every status send
	n.watchBudget(now, n.cur, b, documentedOr(n.d.Daemon.Limits.ReceiptSendBudget, check.TimerReceiptSend))
}

func (n *Daemon) dial(now time.Time) {
	if n.dialing || n.cur != 0 {
		return
	}
	n.dialing = true
	n.out = append(n.out, n.dialAt(now, ""))
}

// OlderVersion is the protocol version the daemon's upgrade declares
// inside the device's version window: the daemon of an older build, which
// Core refuses by the gateway's rule (wire.Compatible).
const OlderVersion = "0.9.0"

// dialAt is the daemon's dial at now, tagged tag. Inside the version
// window the upgrade declares OlderVersion; otherwise it declares nothing
// and Core reads wire.Version, the daemon's own.
func (n *Daemon) dialAt(now time.Time, tag string) sim.Dial {
	d := sim.Dial{Peer: n.d.Core, Tag: tag}
	if now.Before(n.d.versionUntil) {
		d.Query = "version=" + OlderVersion
	}
	return d
}

// redial schedules the next dial with capped exponential backoff and
// jitter; after a failed version check it waits for the version window.
func (n *Daemon) redial(now time.Time, version bool) {
	if n.dialing {
		return
	}
	b := n.backoff
	backoff := min(b.Base<<min(n.attempt, 5), b.Max)
	if ms := int(b.Jitter / time.Millisecond); ms > 0 {
		backoff += time.Duration(n.r.IntN(ms)) * time.Millisecond
	}
	at := now.Add(backoff)
	if version && n.d.versionUntil.After(at) {
		at = n.d.versionUntil
	}
	n.out = append(n.out, sim.SetTimer{Timer: timerRedial, At: at})
}

// Feed steps the machine with ev and every event its effects cause at
// once (a closed transport is reported as ConnClosed).
func (n *Daemon) Feed(now time.Time, ev daemon.Event) {
	n.queue = append(n.queue, ev)
	obs := n.d.Observer
	for len(n.queue) > 0 {
		next := n.queue[0]
		n.queue = n.queue[1:]
		if obs != nil {
			obs.DaemonEvent(now, next)
		}
		effs, panicked := n.step(now, next)
		for _, ef := range effs {
			if obs != nil {
				obs.DaemonEffect(now, ef)
			}
			n.apply(now, ef)
		}
		if panicked != nil {
			obs.MachinePanicked(now, *panicked)
			if !panicked.Completed {
				n.broken, n.queue = true, nil
				return
			}
		}
		if obs != nil {
			obs.DaemonStepped(now, n.m)
		}
	}
}

// step runs the machine on ev. When one of its assertions fails and an
// Observer watches, the panic is returned with the effects the step had
// produced, which the shell still applies so that the checkers see what
// the machine was about to do; unobserved, the panic goes on.
func (n *Daemon) step(now time.Time, ev daemon.Event) (effs []daemon.Effect, panicked *daemon.StepPanic) {
	defer func() {
		if p := recover(); p != nil {
			sp, ok := p.(daemon.StepPanic)
			if !ok || n.d.Observer == nil {
				panic(p)
			}
			effs, panicked = sp.Effects, &sp
		}
	}()
	return n.m.Step(now, ev), nil
}

func (n *Daemon) apply(now time.Time, ef daemon.Effect) {
	switch e := ef.(type) {
	case daemon.Send:
		encode := wire.Encode
		if n.d.Encode != nil {
			encode = n.d.Encode
		}
		b, err := encode(e.Frame)
		if err != nil {
			if obs := n.d.Observer; obs != nil {
				obs.ShellError(now, fmt.Sprintf("daemon %s frame %s does not encode: %v", n.d.ID, daemon.DescribeFrame(e.Frame), err))
			}
			return
		}
		if st, ok := e.Frame.Payload.(wire.PreparationStatus); ok {
			n.keepStatus(statusKey{conn: sim.ConnID(e.Conn), req: e.Frame.ID}, st, b)
		}
		if _, ok := e.Frame.Payload.(wire.InteractionDecisionAck); ok && n.d.TakeAckLost() {
			n.loseInFlight(now, uint64(e.Conn))
			return
		}
		if n.exportChunkLost(e.Frame) || n.transferReceiptLost(e.Frame) || n.prepareReplyLost(e.Frame) {
			n.loseInFlight(now, uint64(e.Conn))
			return
		}
		n.out = append(n.out, sim.Send{Conn: sim.ConnID(e.Conn), Frame: b})
		n.watchBudget(now, sim.ConnID(e.Conn), b, e.Budget)
	case daemon.CloseConn:
		n.out = append(n.out, sim.Close{Conn: sim.ConnID(e.Conn), Reason: e.Reason})
		n.queue = append(n.queue, daemon.ConnClosed{Conn: e.Conn})
		if sim.ConnID(e.Conn) == n.cur {
			n.cur = 0
			n.redial(now, false)
		}
	case daemon.SetTimer:
		at := e.At
		if n.lag != nil && strings.HasPrefix(string(e.Timer), expiryTimerPrefix) {
			at = at.Add(time.Duration(n.lag.Int64N(int64(n.d.ExpiryLag) + 1)))
		}
		n.out = append(n.out, sim.SetTimer{Timer: sim.TimerID(daemonPrefix + string(e.Timer)), At: at})
	case daemon.CancelTimer:
		n.out = append(n.out, sim.CancelTimer{Timer: sim.TimerID(daemonPrefix + string(e.Timer))})
	case daemon.NativeCall:
		n.h.Call(now, e)
	case daemon.Report:
		r := e
		n.report = &r
	}
}

func (n *Daemon) keepStatus(k statusKey, st wire.PreparationStatus, b []byte) {
	switch st.State {
	case wire.StatePreparing, wire.StateReady, wire.StateStarting:
		if _, ok := n.status[k]; !ok {
			n.statusIDs = append(n.statusIDs, k)
		}
		n.status[k] = b
	case wire.StateRejected:
	default:
		delete(n.status, k)
	}
}

// DescribeFrame renders an encoded frame for the trace, as the full-stack
// world's traces do (wire.DescribeDecoded).
func DescribeFrame(b []byte) string {
	f, err := wire.Decode(b)
	return wire.DescribeDecoded(b, f, err)
}

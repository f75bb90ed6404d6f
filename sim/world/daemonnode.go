package world

import (
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// daemonNode is one Runtime device process: the daemon machine, a shell
// that dials Core and reconnects with backoff, decodes and encodes
// frames, and the simulated Harness in the same process (it dies with it).
type daemonNode struct {
	u       *universe
	d       *device
	m       *daemon.Machine
	h       *harness
	r       *rand.Rand
	cur     sim.ConnID // current connection (0: none)
	dialing bool
	attempt int // failed dials since the last open connection
	// status keeps the last preparation_status frame of each live
	// admission, for the republish fault.
	status    map[string][]byte
	statusIDs []string
	queue     []daemon.Event
	out       []sim.Effect
}

// Node-local timer prefixes and commands injected by fault handlers.
const (
	daemonPrefix = "d/"
	harnessPref  = "h/"
	timerRedial  = "redial"

	cmdHeal             sim.TimerID = "cmd/heal"
	cmdShutdown         sim.TimerID = "cmd/shutdown"
	cmdInvalidHeartbeat sim.TimerID = "cmd/invalid_heartbeat"
	cmdReplace          sim.TimerID = "cmd/replace"
	cmdRepublish        sim.TimerID = "cmd/republish"
)

func (u *universe) newDaemon(d *device) sim.Node {
	n := &daemonNode{u: u, d: d, m: daemon.New(d.cfg), r: u.w.Rand("node:" + string(d.id)), status: map[string][]byte{}}
	n.h = newHarness(n)
	d.node = n
	return n
}

func (n *daemonNode) Step(now time.Time, ev sim.Event) []sim.Effect {
	n.out = nil
	switch e := ev.(type) {
	case sim.Start:
		n.dial()
	case sim.ConnOpened:
		n.dialing, n.attempt = false, 0
		n.cur = e.Conn
		n.feed(now, daemon.Connected{Gen: uint64(e.Conn)})
	case sim.ConnClosed:
		n.feed(now, daemon.Disconnected{Gen: uint64(e.Conn)})
		if e.Conn == n.cur {
			n.cur = 0
			n.redial(now, e.Reason == reasonVersion)
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

func (n *daemonNode) delivered(now time.Time, e sim.Delivered) {
	gen := uint64(e.Conn)
	f, err := wire.Decode(e.Frame)
	if err != nil {
		var de *wire.DecodeError
		rej := daemon.FrameRejected{Gen: gen, Err: err}
		if errors.As(err, &de) {
			rej.Type, rej.ID = de.Type, de.ID
		}
		n.feed(now, rej)
		return
	}
	n.feed(now, daemon.FrameReceived{Gen: gen, Frame: f})
}

func (n *daemonNode) timer(now time.Time, id sim.TimerID) {
	s := string(id)
	switch {
	case strings.HasPrefix(s, daemonPrefix):
		n.feed(now, daemon.TimerFired{Timer: daemon.TimerID(s[len(daemonPrefix):])})
	case strings.HasPrefix(s, harnessPref):
		n.h.fire(now, id)
	case s == timerRedial:
		n.dial()
	case id == cmdHeal:
		n.h.heal(now)
	case id == cmdShutdown:
		n.feed(now, daemon.ShutdownRequested{Reason: "simulation finished"})
	case id == cmdInvalidHeartbeat:
		if n.cur != 0 {
			bad := []byte(`{"type":"heartbeat","payload":{"ts":"not a number","active_requests":0}}`)
			n.out = append(n.out, sim.Send{Conn: n.cur, Frame: bad})
		}
	case id == cmdReplace:
		if n.cur != 0 && !n.dialing {
			n.dialing = true
			n.out = append(n.out, sim.Dial{Peer: coreID, Tag: "replace"})
		}
	case id == cmdRepublish:
		n.republish()
	}
}

// republish resends the current status of the newest live admission, as
// a daemon does when a status is asked for again: Core must ignore it.
func (n *daemonNode) republish() {
	for i := len(n.statusIDs) - 1; i >= 0; i-- {
		if b, ok := n.status[n.statusIDs[i]]; ok && n.cur != 0 {
			n.out = append(n.out, sim.Send{Conn: n.cur, Frame: b})
			return
		}
	}
}

func (n *daemonNode) dial() {
	if n.dialing || n.cur != 0 {
		return
	}
	n.dialing = true
	n.out = append(n.out, sim.Dial{Peer: coreID})
}

// redial schedules the next dial with capped exponential backoff and
// jitter; after a failed version check it waits for the fault window.
func (n *daemonNode) redial(now time.Time, version bool) {
	if n.dialing {
		return
	}
	backoff := 200 * time.Millisecond << min(n.attempt, 5)
	backoff = min(backoff, 5*time.Second) + time.Duration(n.r.IntN(100))*time.Millisecond
	at := now.Add(backoff)
	if version && n.d.versionUntil.After(at) {
		at = n.d.versionUntil
	}
	n.out = append(n.out, sim.SetTimer{Timer: timerRedial, At: at})
}

// feed steps the machine with ev and every event its effects cause at
// once (a closed transport is reported as Disconnected).
func (n *daemonNode) feed(now time.Time, ev daemon.Event) {
	n.queue = append(n.queue, ev)
	for len(n.queue) > 0 {
		next := n.queue[0]
		n.queue = n.queue[1:]
		effs := n.m.Step(now, next)
		for _, ef := range effs {
			n.apply(now, ef)
		}
		n.sampleCapacity(now)
	}
}

func (n *daemonNode) apply(now time.Time, ef daemon.Effect) {
	switch e := ef.(type) {
	case daemon.Send:
		n.observeSend(e)
		b, err := wire.Encode(e.Frame)
		if err != nil {
			n.u.fail(checkWire, "daemon %s frame %s does not encode: %v", n.d.id, daemon.DescribeFrame(e.Frame), err)
			return
		}
		if st, ok := e.Frame.Payload.(wire.PreparationStatus); ok {
			n.keepStatus(e.Frame.ID, st, b)
		}
		n.out = append(n.out, sim.Send{Conn: sim.ConnID(e.Gen), Frame: b})
	case daemon.CloseTransport:
		n.out = append(n.out, sim.Close{Conn: sim.ConnID(e.Gen), Reason: e.Reason})
		n.queue = append(n.queue, daemon.Disconnected{Gen: e.Gen})
		if sim.ConnID(e.Gen) == n.cur {
			n.cur = 0
			n.redial(now, false)
		}
	case daemon.SetTimer:
		n.out = append(n.out, sim.SetTimer{Timer: sim.TimerID(daemonPrefix + string(e.Timer)), At: e.At})
	case daemon.CancelTimer:
		n.out = append(n.out, sim.CancelTimer{Timer: sim.TimerID(daemonPrefix + string(e.Timer))})
	case daemon.NativeCall:
		n.h.call(now, e)
	case daemon.Report:
	}
}

func (n *daemonNode) keepStatus(req string, st wire.PreparationStatus, b []byte) {
	switch st.State {
	case wire.StatePreparing, wire.StateReady, wire.StateStarting:
		if _, ok := n.status[req]; !ok {
			n.statusIDs = append(n.statusIDs, req)
		}
		n.status[req] = b
	case wire.StateRejected:
	default:
		delete(n.status, req)
	}
}

// schedule arms a node timer (used by the Harness).
func (n *daemonNode) schedule(id sim.TimerID, at time.Time) {
	n.out = append(n.out, sim.SetTimer{Timer: id, At: at})
}

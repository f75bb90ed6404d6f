package harness

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// Observer sees every daemon event and effect as the node processes them,
// with the virtual instant. Checkers use it; it must not change anything.
type Observer interface {
	DaemonEvent(now time.Time, ev daemon.Event)
	DaemonEffect(now time.Time, e daemon.Effect)
}

// Daemon runs a daemon.Machine as a sim node: it dials Core, encodes and
// decodes frames with wire, maps timers, and sends native calls to the
// Harness node, feeding results and native events back through Step. It
// is the simulator's shell for the machine; the machine itself never
// knows it runs in a simulation.
type Daemon struct {
	w       *sim.World
	core    sim.NodeID
	harness sim.NodeID
	cfg     daemon.Config
	obs     Observer
	rng     *rand.Rand

	m       *daemon.Machine
	conn    sim.ConnID
	open    bool
	dialing bool
	calls   map[sim.CallID]daemon.CallID
	nextID  sim.CallID
	report  *daemon.Report
	errs    []string
}

// NewDaemon builds the node for id. obs may be nil.
func NewDaemon(w *sim.World, id, core, harness sim.NodeID, cfg daemon.Config, obs Observer) *Daemon {
	return &Daemon{w: w, core: core, harness: harness, cfg: cfg, obs: obs, rng: w.Rand("node:" + string(id))}
}

// Machine returns the machine (nil before the node started).
func (d *Daemon) Machine() *daemon.Machine { return d.m }

// Report returns the last shutdown report, or nil.
func (d *Daemon) Report() *daemon.Report { return d.report }

// Errors lists shell-level failures (frames the machine emitted that did
// not encode). A correct machine never produces any.
func (d *Daemon) Errors() []string { return d.errs }

// Step translates one sim event into machine events and the machine's
// effects into sim effects.
func (d *Daemon) Step(now time.Time, ev sim.Event) []sim.Effect {
	switch e := ev.(type) {
	case sim.Start:
		// A new incarnation: volatile state starts over (what the old one
		// owned natively is orphaned, as a crashed process's would be).
		d.m = daemon.New(d.cfg)
		d.calls = map[sim.CallID]daemon.CallID{}
		d.conn, d.open, d.dialing, d.report = 0, false, false, nil
		d.nextID = sim.CallID(e.Incarnation) << 32
		return d.dial()
	case sim.ConnOpened:
		d.dialing = false
		if !e.Dialer {
			return []sim.Effect{sim.Close{Conn: e.Conn, Reason: "daemon accepts no connections"}}
		}
		d.conn, d.open = e.Conn, true
		return d.feed(now, daemon.Connected{Gen: uint64(e.Conn)})
	case sim.ConnClosed:
		if e.Conn != d.conn || !d.open {
			return nil
		}
		d.open = false
		return append(d.feed(now, daemon.Disconnected{Gen: uint64(e.Conn)}), d.redial(now))
	case sim.DialFailed:
		d.dialing = false
		return []sim.Effect{d.redial(now)}
	case sim.Delivered:
		return d.feed(now, d.decode(e))
	case sim.TimerFired:
		if e.Timer == "redial" {
			return d.dial()
		}
		return d.feed(now, daemon.TimerFired{Timer: daemon.TimerID(e.Timer)})
	case sim.CallReturned:
		return d.returned(now, e)
	}
	return nil
}

func (d *Daemon) decode(e sim.Delivered) daemon.Event {
	f, err := wire.Decode(e.Frame)
	if err != nil {
		// Read what identity the envelope still offers, leniently, so the
		// machine can answer an undecodable control operation.
		var env wire.Envelope
		_ = json.Unmarshal(e.Frame, &env)
		return daemon.FrameRejected{Gen: uint64(e.Conn), Type: env.Type, ID: env.ID, Err: err}
	}
	return daemon.FrameReceived{Gen: uint64(e.Conn), Frame: f}
}

func (d *Daemon) returned(now time.Time, e sim.CallReturned) []sim.Effect {
	c, ok := d.calls[e.Call]
	if !ok {
		return nil
	}
	switch r := e.Res.(type) {
	case ResultMsg:
		return d.feed(now, daemon.NativeResult{Call: c, Result: r.Result})
	case EventMsg:
		return d.feed(now, r.Event)
	}
	return nil
}

func (d *Daemon) dial() []sim.Effect {
	if d.dialing || d.open {
		return nil
	}
	d.dialing = true
	return []sim.Effect{sim.Dial{Peer: d.core}}
}

func (d *Daemon) redial(now time.Time) sim.Effect {
	backoff := time.Duration(100+d.rng.IntN(900)) * time.Millisecond
	return sim.SetTimer{Timer: "redial", At: now.Add(backoff)}
}

// feed steps the machine and translates its effects.
func (d *Daemon) feed(now time.Time, ev daemon.Event) []sim.Effect {
	if d.obs != nil {
		d.obs.DaemonEvent(now, ev)
	}
	var out []sim.Effect
	for _, e := range d.m.Step(now, ev) {
		if d.obs != nil {
			d.obs.DaemonEffect(now, e)
		}
		out = append(out, d.effect(now, e)...)
	}
	return out
}

func (d *Daemon) effect(now time.Time, e daemon.Effect) []sim.Effect {
	switch v := e.(type) {
	case daemon.Send:
		b, err := wire.Encode(v.Frame)
		if err != nil {
			d.errs = append(d.errs, fmt.Sprintf("%s: %v", v.Describe(), err))
			return nil
		}
		return []sim.Effect{sim.Send{Conn: sim.ConnID(v.Gen), Frame: b}}
	case daemon.CloseTransport:
		out := []sim.Effect{sim.Close{Conn: sim.ConnID(v.Gen), Reason: v.Reason}}
		if d.open && sim.ConnID(v.Gen) == d.conn {
			d.open = false
			out = append(out, d.feed(now, daemon.Disconnected{Gen: v.Gen})...)
			out = append(out, d.redial(now))
		}
		return out
	case daemon.SetTimer:
		return []sim.Effect{sim.SetTimer{Timer: sim.TimerID(v.Timer), At: v.At}}
	case daemon.CancelTimer:
		return []sim.Effect{sim.CancelTimer{Timer: sim.TimerID(v.Timer)}}
	case daemon.NativeCall:
		d.nextID++
		d.calls[d.nextID] = v.Call
		return []sim.Effect{sim.Call{To: d.harness, Call: d.nextID, Req: v.Op}}
	case daemon.Report:
		r := v
		d.report = &r
	}
	return nil
}

// DescribeFrame renders an encoded frame for the trace.
func DescribeFrame(b []byte) string {
	f, err := wire.Decode(b)
	if err != nil {
		return fmt.Sprintf("undecodable(%d bytes): %v", len(b), err)
	}
	return daemon.DescribeFrame(f)
}

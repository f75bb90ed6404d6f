// Package coremachine is the Driver of core.Machine: the scripted
// Runtime's frames are its events. It never imports the daemon.
package coremachine

import (
	"fmt"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
	"github.com/turnstile-sim/turnstile/wire"
)

// Device is the scripted Runtime's device identity (wire-reference §7).
const Device = "runtime"

type sent struct {
	conn  core.ConnID
	frame wire.Frame
}

// Runner drives one core.Machine for the scenario player.
type Runner struct {
	scenarios.Log
	*coreapi.Steps
	m        *core.Machine
	now      time.Time
	conn     core.ConnID // current connection, 0 when none
	lastConn core.ConnID
	closed   map[core.ConnID]string // connections Core closed, with the reason
	timers   map[core.TimerID]time.Time
	pending  []sent
	hb       []byte // the scripted Runtime's last valid heartbeat frame
	nextHB   time.Time
	wsCall   core.CallID     // the latest workspace call
	wsResult *core.APIResult // its answer, once Core gave it
	calls    int
}

// New returns a player of sc and the driver of a fresh machine of cfg
// over an in-memory store.
func New(sc *scenarios.Scenario, cfg core.Config) (*scenarios.Player, *Runner) {
	r := &Runner{
		Log:    scenarios.Log{Name: "core"},
		m:      core.New(cfg, store.NewMemory()),
		now:    scenarios.Epoch,
		closed: map[core.ConnID]string{},
		timers: map[core.TimerID]time.Time{},
	}
	r.Steps = coreapi.NewSteps(&r.Log, coreapi.Events(r, Device))
	return scenarios.NewPlayer(sc, r), r
}

func (r *Runner) VersionRefused(map[string]string) {
	r.Note("skipped: the protocol version is checked by the gateway at the WebSocket upgrade (HTTP 426 before any registration); core.Machine receives no event for it")
}

// step applies an event and its effects, printed unless quiet.
func (r *Runner) step(ev core.Event, quiet bool) []core.Effect {
	effects := r.m.Step(r.now, ev)
	if !quiet {
		r.Note("> " + ev.Describe())
	}
	for _, e := range effects {
		r.apply(e, quiet)
	}
	return effects
}

func (r *Runner) apply(e core.Effect, quiet bool) {
	switch v := e.(type) {
	case core.Send:
		r.pending = append(r.pending, sent{conn: v.Conn, frame: v.Frame})
	case core.CloseConn:
		r.closed[v.Conn] = v.Reason
	case core.SetTimer:
		r.timers[v.Timer] = v.At
	case core.CancelTimer:
		delete(r.timers, v.Timer)
	case core.APIResult:
		if r.wsCall != "" && v.Call == r.wsCall {
			r.wsResult = &v
		}
	}
	if !quiet {
		r.Note("  " + e.Describe())
	}
}

func (r *Runner) Unlisted() []string {
	var out []string
	for _, s := range r.pending {
		out = append(out, core.DescribeFrame(s.frame))
	}
	r.pending = nil
	return out
}

func (r *Runner) Sent(*scenarios.Frame) ([]byte, error) {
	if len(r.pending) == 0 {
		return nil, nil
	}
	s := r.pending[0]
	r.pending = r.pending[1:]
	b, err := wire.Encode(s.frame)
	if err != nil {
		return nil, fmt.Errorf("Core's frame does not encode: %v", err)
	}
	if s.conn != r.conn {
		return nil, fmt.Errorf("Core sent %s on %s, want the current connection %s", s.frame.Payload.MessageType(), s.conn, r.conn)
	}
	return b, nil
}

func (r *Runner) Deliver(f *scenarios.Frame, raw []byte) {
	frame, rejected, ok := r.Decode(f, raw)
	switch {
	case !ok:
		return
	case rejected != nil:
		r.step(core.FrameRejected{Conn: r.conn, Type: f.Type, Err: rejected}, false)
		return
	}
	if f.Type == wire.TypeHeartbeat {
		r.hb, r.nextHB = raw, r.now.Add(scenarios.KeepaliveInterval)
	}
	r.step(core.FrameReceived{Conn: r.conn, Frame: frame}, false)
}

func (r *Runner) Connect() {
	r.lastConn++
	r.conn, r.hb = r.lastConn, nil
	r.step(core.ConnOpened{Device: Device, Conn: r.conn}, false)
}

func (r *Runner) Disconnect(byCore bool) {
	c := r.conn
	if byCore {
		reason, ok := r.closed[c]
		if !ok {
			r.Failf("Core did not close connection %s", c)
		} else {
			r.Note(fmt.Sprintf("ok Core closed %s reason=%q", c, reason))
		}
	}
	r.conn, r.hb = 0, nil
	r.step(core.ConnClosed{Conn: c, Reason: "connection lost"}, false)
}

// Advance moves time by d, firing timers and keepalives in order.
func (r *Runner) Advance(d time.Duration) {
	target := r.now.Add(d)
	keepalives := 0
	for {
		id, at, ok := scenarios.Earliest(r.timers)
		hbDue := r.hb != nil && r.conn != 0 && !r.nextHB.After(target)
		if hbDue && (!ok || r.nextHB.Before(at)) {
			r.now = r.nextHB
			r.nextHB = r.now.Add(scenarios.KeepaliveInterval)
			frame, _ := wire.Decode(r.hb)
			r.step(core.FrameReceived{Conn: r.conn, Frame: frame}, true)
			keepalives++
			continue
		}
		if !ok || at.After(target) {
			break
		}
		r.now = at
		delete(r.timers, id)
		r.step(core.TimerFired{Timer: id}, false)
	}
	r.now = target
	if keepalives > 0 {
		r.Note(fmt.Sprintf("(%d keepalive heartbeats)", keepalives))
	}
}

func (r *Runner) call() core.CallID {
	r.calls++
	return core.CallID("call-" + strconv.Itoa(r.calls))
}

// Call steps an API event, prints it and returns its result.
func (r *Runner) Call(ev func(core.CallID) core.Event) (*core.APIResult, error) {
	e := ev(r.call())
	var res *core.APIResult
	for _, f := range r.step(e, false) {
		if v, ok := f.(core.APIResult); ok {
			res = &v
		}
	}
	if res == nil {
		return nil, fmt.Errorf("no API result for %s", e.Describe())
	}
	return res, nil
}

// Turn reads the machine's view of a Turn.
func (r *Runner) Turn(id string) (core.TurnView, bool, error) {
	v, found := r.m.Turn(id)
	return v, found, nil
}

// StartWorkspace steps a workspace call (apply keeps its answer).
func (r *Runner) StartWorkspace(ev func(core.CallID) core.Event) {
	r.wsCall, r.wsResult = r.call(), nil
	r.step(ev(r.wsCall), false)
}

func (r *Runner) WorkspaceAnswer() (*core.APIResult, bool, error) {
	return r.wsResult, r.wsCall != "", nil
}

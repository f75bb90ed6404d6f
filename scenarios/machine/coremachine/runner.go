// Package coremachine plays a scenario against core.Machine: the
// scripted Runtime's frames are fed straight into the machine as events,
// the frames Core sends are asserted in order with placeholder binding,
// and the Core-owned assertions (core-state) are checked. It never
// imports the daemon.
package coremachine

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// Epoch is the scenario's first instant.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// KeepaliveInterval is how often the scripted Runtime repeats its last
// heartbeat while time advances (the bootstrap heartbeat interval).
const KeepaliveInterval = 15 * time.Second

// Device is the scripted Runtime's device identity (wire-reference §7).
const Device = "runtime"

type sent struct {
	conn  core.ConnID
	frame wire.Frame
}

// Runner plays one scenario against one core.Machine.
type Runner struct {
	work     scenarios.Work // the zero-work rule
	m        *core.Machine
	b        *scenarios.Bindings
	now      time.Time
	conn     core.ConnID // current connection, 0 when none
	lastConn core.ConnID
	closed   map[core.ConnID]string // connections Core closed, with the reason
	timers   map[core.TimerID]time.Time
	pending  []sent
	hb       []byte // the scripted Runtime's last valid heartbeat frame
	nextHB   time.Time
	session  string
	suspend  string          // the latest suspension Core minted
	prep     string          // the latest Environment preparation
	wsCall   core.CallID     // the latest workspace call
	wsResult *core.APIResult // its answer, once Core gave it
	turns    []string
	calls    int
	skip     bool // the scenario is for the other side only
	out      []string
	errs     []error
	pos      string
}

// New returns a runner for sc over a fresh machine and in-memory store.
// cfg is the Core configuration (zero: defaults).
func New(sc *scenarios.Scenario, cfg core.Config) *Runner {
	return &Runner{
		m:      core.New(cfg, store.NewMemory()),
		b:      scenarios.NewBindings(sc, scenarios.Core),
		now:    Epoch,
		closed: map[core.ConnID]string{},
		timers: map[core.TimerID]time.Time{},
	}
}

// Machine is the machine under test (for tests of the runner itself).
func (r *Runner) Machine() *core.Machine { return r.m }

// Step runs one step; it returns the transcript lines and the assertion
// failures of the step.
func (r *Runner) Step(st scenarios.Step) ([]string, []error) {
	r.out, r.errs, r.pos = nil, nil, st.Pos
	if r.skip {
		return nil, nil
	}
	if st.Kind == scenarios.KindOnly {
		if st.Side != scenarios.Core {
			r.skip = true
			r.note("skipped: only the " + string(st.Side) + " side plays this scenario: " + st.Input)
		}
		return r.out, nil
	}
	// Every step that reaches this side first requires that every frame
	// the side sent so far was listed. Frames are exempt (the two
	// directions may cross: a peer frame can arrive while this side's
	// frames are in flight), and so are steps of the other side only.
	otherOnly := st.Kind == scenarios.KindHarness || st.Kind == scenarios.KindSettle || st.Kind == scenarios.KindRuntimeOwned
	if !otherOnly && st.Kind != scenarios.KindFrame {
		r.requireQuiet(fmt.Sprintf("before %s", st.Kind))
	}
	switch st.Kind {
	case scenarios.KindFrame:
		if st.Side == scenarios.Core {
			r.expectFrame(st.Frame)
		} else {
			r.deliver(st.Frame)
		}
	case scenarios.KindConnect, scenarios.KindReconnect:
		r.open()
	case scenarios.KindDisconnect:
		r.disconnect(st.Side == scenarios.Core)
	case scenarios.KindAdvance:
		r.advance(st.Duration)
	case scenarios.KindSilence:
		r.advance(st.Duration)
		if st.Side == scenarios.Core {
			r.requireQuiet("during the silence window")
		}
	case scenarios.KindAPI:
		r.api(st)
	case scenarios.KindCoreState:
		r.coreState(st.Args)
	case scenarios.KindCoreInteraction:
		r.coreInteraction(st.Args)
	case scenarios.KindCoreSuspension:
		r.coreSuspension(st.Args)
	case scenarios.KindCorePreparation:
		r.corePreparation(st.Args)
	case scenarios.KindCoreWorkspace:
		r.coreWorkspace(st.Args)
	case scenarios.KindVersionRefused:
		r.note("skipped: the protocol version is checked by the gateway at the WebSocket upgrade (HTTP 426 before any registration); core.Machine receives no event for it")
	case scenarios.KindSettle, scenarios.KindHarness, scenarios.KindRuntimeOwned:
		// Runtime-side steps: nothing reaches Core.
	default:
		r.failf("step kind %s not supported by this runner", st.Kind)
	}
	if len(r.errs) == 0 {
		r.work.Played(st)
	}
	return r.out, r.errs
}

// Finish reports frames Core sent that the scenario never listed.
func (r *Runner) Finish() []error {
	r.errs = nil
	r.requireQuiet("at the end of the scenario")
	if why := r.work.NoWork(); why != "" && len(r.errs) == 0 {
		r.failf("%s", why)
	}
	return r.errs
}

func (r *Runner) failf(format string, args ...any) {
	err := fmt.Errorf("%s: core: "+format, append([]any{r.pos}, args...)...)
	r.errs = append(r.errs, err)
	r.out = append(r.out, "ERROR "+err.Error())
}

func (r *Runner) note(line string) { r.out = append(r.out, line) }

// step applies one event and its effects, printing both.
func (r *Runner) step(ev core.Event, quiet bool) {
	effects := r.m.Step(r.now, ev)
	if !quiet {
		r.note("> " + ev.Describe())
	}
	for _, e := range effects {
		r.apply(e, quiet)
	}
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
		r.note("  " + e.Describe())
	}
}

func (r *Runner) requireQuiet(when string) {
	for _, s := range r.pending {
		r.failf("Core sent a frame the scenario does not list %s: %s", when, core.DescribeFrame(s.frame))
	}
	r.pending = nil
}

func (r *Runner) expectFrame(f *scenarios.Frame) {
	if f.Rogue {
		r.note("not asserted: a misbehaving Core sends this " + f.Type + "; this Core does not")
		return
	}
	if len(r.pending) == 0 {
		r.failf("Core sent nothing, want %s id=%s", f.Type, f.ID)
		return
	}
	s := r.pending[0]
	r.pending = r.pending[1:]
	b, err := wire.Encode(s.frame)
	if err != nil {
		r.failf("Core's frame does not encode: %v", err)
		return
	}
	if s.conn != r.conn {
		r.failf("Core sent %s on %s, want the current connection %s", s.frame.Payload.MessageType(), s.conn, r.conn)
		return
	}
	if err := r.b.Match(f, b); err != nil {
		r.failf("%s: %v\n  sent %s", f.Type, err, b)
		return
	}
	if f.Type == wire.TypeHeartbeat {
		r.note("ok heartbeat")
		return
	}
	r.note("ok " + string(b))
}

// deliver feeds a frame of the scripted Runtime to the machine.
func (r *Runner) deliver(f *scenarios.Frame) {
	if f.Lost {
		r.note("not delivered: the " + f.Type + " is lost in transit")
		return
	}
	if r.conn == 0 {
		r.failf("runtime frame %s with no connection open", f.Type)
		return
	}
	raw, err := r.b.Peer(f)
	if err != nil {
		r.failf("%s: %v", f.Type, err)
		return
	}
	frame, derr := wire.Decode(raw)
	switch {
	case derr != nil && !f.Invalid:
		r.failf("the scenario's %s frame does not decode: %v", f.Type, derr)
		return
	case derr == nil && f.Invalid:
		r.failf("the scenario's %s frame is marked invalid but decodes", f.Type)
		return
	case derr != nil:
		r.step(core.FrameRejected{Conn: r.conn, Type: f.Type, Err: derr}, false)
		return
	}
	if f.Type == wire.TypeHeartbeat {
		r.hb, r.nextHB = raw, r.now.Add(KeepaliveInterval)
	}
	r.step(core.FrameReceived{Conn: r.conn, Frame: frame}, false)
}

func (r *Runner) open() {
	r.lastConn++
	r.conn, r.hb = r.lastConn, nil
	r.step(core.ConnOpened{Device: Device, Conn: r.conn}, false)
}

func (r *Runner) disconnect(byCore bool) {
	if r.conn == 0 {
		r.failf("disconnect with no connection open")
		return
	}
	c := r.conn
	if byCore {
		reason, ok := r.closed[c]
		if !ok {
			r.failf("Core did not close connection %s", c)
		} else {
			r.note(fmt.Sprintf("ok Core closed %s reason=%q", c, reason))
		}
	}
	r.conn, r.hb = 0, nil
	r.step(core.ConnClosed{Conn: c, Reason: "connection lost"}, false)
}

// advance moves time by d, firing Core's timers and the scripted
// Runtime's keepalive heartbeats in instant order.
func (r *Runner) advance(d time.Duration) {
	target := r.now.Add(d)
	keepalives := 0
	for {
		id, at, ok := r.nextTimer()
		hbDue := r.hb != nil && r.conn != 0 && !r.nextHB.After(target)
		if hbDue && (!ok || r.nextHB.Before(at)) {
			r.now = r.nextHB
			r.nextHB = r.now.Add(KeepaliveInterval)
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
		r.note(fmt.Sprintf("(%d keepalive heartbeats)", keepalives))
	}
}

func (r *Runner) nextTimer() (core.TimerID, time.Time, bool) {
	ids := make([]core.TimerID, 0, len(r.timers))
	for id := range r.timers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var best core.TimerID
	var at time.Time
	for _, id := range ids {
		if best == "" || r.timers[id].Before(at) {
			best, at = id, r.timers[id]
		}
	}
	return best, at, best != ""
}

func (r *Runner) call() core.CallID {
	r.calls++
	return core.CallID("call-" + strconv.Itoa(r.calls))
}

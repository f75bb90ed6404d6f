// Package daemonmachine plays a scenario against daemon.Machine: the
// scripted Core's frames are fed straight into the machine as events, a
// controlled Harness answers its native calls as the harness and settle
// steps direct, the frames the Runtime sends are asserted in order with
// placeholder binding, and the Runtime-owned assertions (runtime-owned)
// are checked. It never imports Core.
package daemonmachine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// Epoch is the scenario's first instant.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Runner plays one scenario against one daemon.Machine.
type Runner struct {
	work    scenarios.Work // the zero-work rule
	m       *daemon.Machine
	b       *scenarios.Bindings
	h       *harness
	now     time.Time
	gen     uint64
	up      bool
	closed  map[uint64]string // transports the Runtime closed, with the reason
	timers  map[daemon.TimerID]time.Time
	pending []daemon.Send // non-heartbeat frames not yet asserted
	beats   []daemon.Send // heartbeats not yet asserted
	queue   []daemon.Event
	// beatsFired counts heartbeat timer fires during an advance.
	beatsFired int
	skip       bool // the scenario is for the other side only
	out        []string
	errs       []error
	pos        string
}

// New returns a runner for sc. The machine declares what the scenario's
// first Runtime heartbeat declares (kinds, capabilities, daemon version);
// limits may be narrowed by cfg (zero: defaults).
func New(sc *scenarios.Scenario, limits daemon.Limits) (*Runner, error) {
	cfg, err := declaration(sc)
	if err != nil {
		return nil, err
	}
	cfg.Limits = limits
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Runner{
		m:      daemon.New(cfg),
		b:      scenarios.NewBindings(sc, scenarios.Runtime),
		h:      newHarness(),
		now:    Epoch,
		closed: map[uint64]string{},
		timers: map[daemon.TimerID]time.Time{},
	}, nil
}

// declaration configures the machine as the scenario's Runtime declares
// itself (no heartbeat: a Runtime that serves no kind).
func declaration(sc *scenarios.Scenario) (daemon.Config, error) {
	hb, _, err := sc.Declaration()
	if err != nil {
		return daemon.Config{}, err
	}
	// the controlled harness installs workspace writes (workspace.go)
	cfg := daemon.Config{DaemonVersion: hb.DaemonVersion, Workspace: daemon.WorkspaceConfig{Writes: true}}
	if cfg.DaemonVersion == "" {
		cfg.DaemonVersion = "scenario"
	}
	for _, k := range hb.SupportedAgentKinds {
		cfg.Kinds = append(cfg.Kinds, daemon.KindConfig{Kind: k.Kind, Version: k.Version, Available: k.Available, Capabilities: k.Capabilities})
	}
	return cfg, nil
}

// Machine is the machine under test.
func (r *Runner) Machine() *daemon.Machine { return r.m }

// Step runs one step; it returns the transcript lines and the assertion
// failures of the step.
func (r *Runner) Step(st scenarios.Step) ([]string, []error) {
	r.out, r.errs, r.pos = nil, nil, st.Pos
	if r.skip {
		return nil, nil
	}
	if st.Kind == scenarios.KindOnly {
		if st.Side != scenarios.Runtime {
			r.skip = true
			r.note("skipped: only the " + string(st.Side) + " side plays this scenario: " + st.Input)
		}
		return r.out, nil
	}
	// Every step that reaches this side first requires that every frame
	// the side sent so far was listed. Frames are exempt (the two
	// directions may cross: a peer frame can arrive while this side's
	// frames are in flight), and so are steps of the other side only.
	otherOnly := st.Kind.CoreOnly()
	if !otherOnly && st.Kind != scenarios.KindFrame {
		r.requireQuiet(fmt.Sprintf("before %s", st.Kind))
	}
	switch st.Kind {
	case scenarios.KindFrame:
		if st.Side == scenarios.Runtime {
			r.expectFrame(st.Frame)
		} else {
			r.deliver(st.Frame)
		}
	case scenarios.KindConnect, scenarios.KindReconnect:
		r.beats = nil // heartbeats of an earlier connection are never compared
		r.gen++
		r.up = true
		r.run(daemon.Connected{Gen: r.gen})
	case scenarios.KindDisconnect:
		r.disconnect()
	case scenarios.KindAdvance:
		r.advance(st.Duration)
	case scenarios.KindSilence:
		r.advance(st.Duration)
		if st.Side == scenarios.Runtime {
			r.requireQuiet("during the silence window")
		}
	case scenarios.KindHarness:
		r.harnessStep(st)
	case scenarios.KindSettle:
		r.settle(st.Args)
	case scenarios.KindRuntimeOwned:
		r.owned(st.Args)
	case scenarios.KindVersionRefused:
		r.note("skipped: the protocol version is refused by Core's gateway at the WebSocket upgrade (HTTP 426); the daemon's transport, not daemon.Machine, stops reconnecting")
	case scenarios.KindAPI, scenarios.KindCoreState, scenarios.KindCoreInteraction, scenarios.KindCoreSuspension, scenarios.KindCorePreparation,
		scenarios.KindCoreWorkspace:
		// Core-side steps: nothing reaches the Runtime.
	default:
		r.failf("step kind %s not supported by this runner", st.Kind)
	}
	if len(r.errs) == 0 {
		r.work.Played(st)
	}
	return r.out, r.errs
}

// Finish reports frames the Runtime sent that the scenario never listed.
func (r *Runner) Finish() []error {
	r.errs = nil
	r.requireQuiet("at the end of the scenario")
	if why := r.work.NoWork(); why != "" && len(r.errs) == 0 {
		r.failf("%s", why)
	}
	return r.errs
}

func (r *Runner) failf(format string, args ...any) {
	err := fmt.Errorf("%s: runtime: "+format, append([]any{r.pos}, args...)...)
	r.errs = append(r.errs, err)
	r.out = append(r.out, "ERROR "+err.Error())
}

func (r *Runner) note(line string) { r.out = append(r.out, line) }

// run steps ev and every event the controlled Harness answers with, in
// order.
func (r *Runner) run(evs ...daemon.Event) {
	r.queue = append(r.queue, evs...)
	for len(r.queue) > 0 {
		e := r.queue[0]
		r.queue = r.queue[1:]
		quiet := isHeartbeatTimer(e)
		if quiet {
			r.beatsFired++
		} else {
			r.note("> " + e.Describe())
		}
		for _, eff := range r.m.Step(r.now, e) {
			r.apply(eff, quiet)
		}
	}
}

// isHeartbeatTimer: periodic heartbeats are counted, not printed.
func isHeartbeatTimer(e daemon.Event) bool {
	t, ok := e.(daemon.TimerFired)
	return ok && strings.HasPrefix(string(t.Timer), "heartbeat/")
}

func envelopeID(raw []byte) string {
	var env struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.ID
}

func (r *Runner) apply(e daemon.Effect, quiet bool) {
	if !quiet {
		r.note("  " + e.Describe())
	}
	switch v := e.(type) {
	case daemon.Send:
		if v.Frame.Payload != nil && v.Frame.Payload.MessageType() == wire.TypeHeartbeat {
			r.beats = append(r.beats, v)
		} else {
			r.pending = append(r.pending, v)
		}
	case daemon.CloseTransport:
		r.closed[v.Gen] = v.Reason
	case daemon.SetTimer:
		r.timers[v.Timer] = v.At
	case daemon.CancelTimer:
		delete(r.timers, v.Timer)
	case daemon.NativeCall:
		r.queue = append(r.queue, r.h.call(v)...)
	}
}

func (r *Runner) requireQuiet(when string) {
	for _, s := range r.pending {
		r.failf("the Runtime sent a frame the scenario does not list %s: %s", when, daemon.DescribeFrame(s.Frame))
	}
	r.pending = nil
}

func (r *Runner) expectFrame(f *scenarios.Frame) {
	if f.Rogue {
		r.note("not asserted: a misbehaving Runtime sends this " + f.Type + "; this Runtime does not")
		return
	}
	var s daemon.Send
	if f.Type == wire.TypeHeartbeat {
		if len(r.beats) == 0 {
			r.failf("the Runtime sent no heartbeat")
			return
		}
		s, r.beats = r.beats[0], r.beats[1:]
		r.beats = nil // periodic heartbeats after the listed one are not compared
	} else {
		if len(r.pending) == 0 {
			r.failf("the Runtime sent nothing, want %s id=%s", f.Type, f.ID)
			return
		}
		s, r.pending = r.pending[0], r.pending[1:]
	}
	if s.Gen != r.gen {
		r.failf("sent on connection %d, want the current one %d", s.Gen, r.gen)
		return
	}
	b, err := wire.Encode(s.Frame)
	if err != nil {
		r.failf("the Runtime's frame does not encode: %v", err)
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

// deliver feeds a frame of the scripted Core to the machine.
func (r *Runner) deliver(f *scenarios.Frame) {
	if f.Lost {
		r.note("not delivered: the " + f.Type + " is lost in transit")
		return
	}
	if !r.up {
		r.failf("core frame %s with no connection open", f.Type)
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
	case derr == nil && f.Invalid:
		r.failf("the scenario's %s frame is marked invalid but decodes", f.Type)
	case derr != nil:
		r.run(daemon.FrameRejected{Gen: r.gen, Type: f.Type, ID: envelopeID(raw), Err: derr})
	default:
		r.run(daemon.FrameReceived{Gen: r.gen, Frame: frame})
	}
}

func (r *Runner) disconnect() {
	if !r.up {
		r.failf("disconnect with no connection open")
		return
	}
	r.up = false
	r.run(daemon.Disconnected{Gen: r.gen})
}

// advance moves time by d, firing the machine's timers in instant order.
func (r *Runner) advance(d time.Duration) {
	target := r.now.Add(d)
	r.beatsFired = 0
	defer func() {
		if r.beatsFired > 0 {
			r.note(fmt.Sprintf("(%d periodic heartbeats)", r.beatsFired))
		}
	}()
	for {
		id, at, ok := r.nextTimer()
		if !ok || at.After(target) {
			break
		}
		r.now = at
		delete(r.timers, id)
		r.run(daemon.TimerFired{Timer: id})
	}
	r.now = target
}

func (r *Runner) nextTimer() (daemon.TimerID, time.Time, bool) {
	ids := make([]daemon.TimerID, 0, len(r.timers))
	for id := range r.timers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var best daemon.TimerID
	var at time.Time
	for _, id := range ids {
		if best == "" || r.timers[id].Before(at) {
			best, at = id, r.timers[id]
		}
	}
	return best, at, best != ""
}

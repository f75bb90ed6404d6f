// Package daemonmachine is the Driver of daemon.Machine: the scripted
// Core's frames are fed straight into the machine as events and a
// controlled Harness answers its native calls as the harness and settle
// steps direct. It never imports Core.
package daemonmachine

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// Runner drives one daemon.Machine for the scenario player.
type Runner struct {
	scenarios.Log
	m       *daemon.Machine
	h       *harness
	now     time.Time
	gen     daemon.ConnID
	up      bool
	timers  map[daemon.TimerID]time.Time
	pending []daemon.Send // non-heartbeat frames not yet asserted
	beats   []daemon.Send // heartbeats not yet asserted
	queue   []daemon.Event
	// beatsFired counts heartbeat timer fires during an advance.
	beatsFired int
}

// New returns a player of sc and the driver of its machine. The machine
// declares what the scenario's first Runtime heartbeat declares (kinds,
// capabilities, daemon version); limits may be narrowed (zero:
// defaults). The Environments' workspaces lie under dir.
func New(sc *scenarios.Scenario, limits daemon.Limits, dir string) (*scenarios.Player, *Runner, error) {
	cfg, err := declaration(sc)
	if err != nil {
		return nil, nil, err
	}
	cfg.Limits = limits
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	r := &Runner{
		Log:    scenarios.Log{Name: "runtime"},
		m:      daemon.New(cfg),
		h:      newHarness(dir),
		now:    scenarios.Epoch,
		timers: map[daemon.TimerID]time.Time{},
	}
	return scenarios.NewPlayer(sc, r), r, nil
}

// declaration configures the machine as the scenario's Runtime declares
// itself (no heartbeat: a Runtime that serves no kind).
func declaration(sc *scenarios.Scenario) (daemon.Config, error) {
	hb, _, err := sc.Declaration()
	if err != nil {
		return daemon.Config{}, err
	}
	// the controlled harness installs workspace writes
	cfg := daemon.Config{DaemonVersion: hb.DaemonVersion, Workspace: daemon.WorkspaceConfig{Writes: true}}
	if cfg.DaemonVersion == "" {
		cfg.DaemonVersion = "scenario"
	}
	for _, k := range hb.SupportedAgentKinds {
		cfg.Kinds = append(cfg.Kinds, daemon.KindConfig{Kind: k.Kind, Version: k.Version, Available: k.Available, Capabilities: k.Capabilities})
	}
	return cfg, nil
}

// VersionRefused is not for daemon.Machine: Core's gateway refuses the
// upgrade and the daemon's transport stops reconnecting.
func (r *Runner) VersionRefused(map[string]string) {
	r.Note("skipped: the protocol version is refused by Core's gateway at the WebSocket upgrade (HTTP 426); the daemon's transport, not daemon.Machine, stops reconnecting")
}

func (r *Runner) Connect() {
	r.beats = nil // heartbeats of an earlier connection are never compared
	r.gen++
	r.up = true
	r.run(daemon.ConnOpened{Conn: r.gen})
}

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
			r.Note("> " + e.Describe())
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
		r.Note("  " + e.Describe())
	}
	switch v := e.(type) {
	case daemon.Send:
		if v.Frame.Payload != nil && v.Frame.Payload.MessageType() == wire.TypeHeartbeat {
			r.beats = append(r.beats, v)
		} else {
			r.pending = append(r.pending, v)
		}
	case daemon.SetTimer:
		r.timers[v.Timer] = v.At
	case daemon.CancelTimer:
		delete(r.timers, v.Timer)
	case daemon.NativeCall:
		r.queue = append(r.queue, r.h.call(v)...)
	}
}

func (r *Runner) Unlisted() []string {
	var out []string
	for _, s := range r.pending {
		out = append(out, daemon.DescribeFrame(s.Frame))
	}
	r.pending = nil
	return out
}

func (r *Runner) Sent(f *scenarios.Frame) ([]byte, error) {
	var s daemon.Send
	if f.Type == wire.TypeHeartbeat {
		if len(r.beats) == 0 {
			return nil, fmt.Errorf("the Runtime sent no heartbeat")
		}
		s = r.beats[0]
		r.beats = nil // periodic heartbeats after the listed one are not compared
	} else {
		if len(r.pending) == 0 {
			return nil, nil
		}
		s, r.pending = r.pending[0], r.pending[1:]
	}
	if s.Conn != r.gen {
		return nil, fmt.Errorf("sent on connection %d, want the current one %d", s.Conn, r.gen)
	}
	b, err := wire.Encode(s.Frame)
	if err != nil {
		return nil, fmt.Errorf("the Runtime's frame does not encode: %v", err)
	}
	return b, nil
}

func (r *Runner) Deliver(f *scenarios.Frame, raw []byte) {
	if !r.up {
		r.Failf("core frame %s with no connection open", f.Type)
		return
	}
	frame, rejected, ok := r.Decode(f, raw)
	switch {
	case rejected != nil:
		r.run(daemon.FrameRejected{Conn: r.gen, Type: f.Type, ID: envelopeID(raw), Err: rejected})
	case ok:
		r.run(daemon.FrameReceived{Conn: r.gen, Frame: frame})
	}
}

func (r *Runner) Disconnect(bool) {
	if !r.up {
		r.Failf("disconnect with no connection open")
		return
	}
	r.up = false
	r.run(daemon.ConnClosed{Conn: r.gen})
}

// Advance moves time by d, firing the machine's timers in instant order.
func (r *Runner) Advance(d time.Duration) {
	target := r.now.Add(d)
	r.beatsFired = 0
	defer func() {
		if r.beatsFired > 0 {
			r.Note(fmt.Sprintf("(%d periodic heartbeats)", r.beatsFired))
		}
	}()
	for {
		id, at, ok := scenarios.Earliest(r.timers)
		if !ok || at.After(target) {
			break
		}
		r.now = at
		delete(r.timers, id)
		r.run(daemon.TimerFired{Timer: id})
	}
	r.now = target
}

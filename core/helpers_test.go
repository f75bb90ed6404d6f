package core_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const kind = "contract"

// rig drives one Machine with explicit instants.
type rig struct {
	t    *testing.T
	m    *core.Machine
	st   *store.Memory
	now  time.Time
	last []core.Effect
	call int
}

func newRig(t *testing.T) *rig {
	return newRigCfg(t, core.Config{})
}

// newRigCfg: a Config without Policy gets the open test profile of
// kind (every operation qualified, no control declared), so the device's
// declaration alone decides.
func newRigCfg(t *testing.T, cfg core.Config) *rig {
	if cfg.Policy == nil {
		cfg.Policy = enginetest.OpenPolicy(kind)
	}
	st := store.NewMemory()
	return &rig{t: t, m: core.New(cfg, st), st: st, now: t0}
}

// testConfig is the zero Config with the open test profile of kind.
func testConfig() core.Config { return core.Config{Policy: enginetest.OpenPolicy(kind)} }

// profileHarness: kind's open profile declares p's controls.
func profileHarness(t *testing.T, p core.EngineProfile) *rig {
	pol := engine.For(engine.NewCatalog(enginetest.Open(kind, p.WebSearchControl, p.TextVerbosity)))
	return newRigCfg(t, core.Config{Policy: &pol})
}

func (h *rig) step(ev core.Event) []core.Effect {
	h.t.Helper()
	h.last = h.m.Step(h.now, ev)
	return h.last
}

func (h *rig) advance(d time.Duration) { h.now = h.now.Add(d) }

// fire advances to the timer's instant and fires it.
func (h *rig) fire(id core.TimerID) []core.Effect {
	h.t.Helper()
	for _, tv := range h.m.Timers() {
		if tv.Timer == id {
			if tv.At.After(h.now) {
				h.now = tv.At
			}
			return h.step(core.TimerFired{Timer: id})
		}
	}
	require.Fail(h.t, fmt.Sprintf("timer %s not armed; armed: %v", id, h.m.Timers()))
	return nil
}

func (h *rig) nextCall() core.CallID {
	h.call++
	return core.CallID("call-" + itoa(h.call))
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

// api steps an API event and returns its APIResult.
func (h *rig) api(ev core.Event) core.APIResult {
	h.t.Helper()
	for _, e := range h.step(ev) {
		if r, ok := e.(core.APIResult); ok {
			return r
		}
	}
	require.Fail(h.t, fmt.Sprintf("no APIResult for %s", ev.Describe()))
	return core.APIResult{}
}

// fullCaps declares every capability supported.
func fullCaps() wire.AgentKindCapabilities { return wire.AllCapabilities(wire.CapabilitySupported) }

// baseCaps declares exactly the always-required ones plus environment_none
// and subagent_control (what a default Agent needs).
func baseCaps() wire.AgentKindCapabilities {
	c := wire.AllCapabilities(wire.CapabilityUnsupported)
	for _, f := range c.Fields() {
		switch f.Name {
		case "streaming", "steering", "durable_turns", "durable_input_receipts", "preparation",
			"execution_controls", "tool_observations", "environment_none", "subagent_control":
			*f.Value = wire.CapabilitySupported
		}
	}
	return c
}

func with(c wire.AgentKindCapabilities, name string, v wire.CapabilitySupport) wire.AgentKindCapabilities {
	for _, f := range c.Fields() {
		if f.Name == name {
			*f.Value = v
			return c
		}
	}
	panic("no capability " + name)
}

func heartbeat(caps wire.AgentKindCapabilities) wire.Heartbeat {
	return wire.Heartbeat{TS: 1, SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: kind, Available: true, Capabilities: caps}}}
}

func (h *rig) frame(c core.ConnID, id string, p wire.Payload) []core.Effect {
	h.t.Helper()
	return h.step(core.FrameReceived{Conn: c, Frame: wire.Frame{ID: id, Payload: p}})
}

func (h *rig) connect(device string, c core.ConnID, caps wire.AgentKindCapabilities) []core.Effect {
	h.t.Helper()
	h.step(core.ConnOpened{Device: device, Conn: c})
	return h.frame(c, "", heartbeat(caps))
}

func defaultAgent() core.AgentConfig {
	return core.AgentConfig{Kind: kind, Model: "m", SystemPrompt: "be brief", Environment: core.EnvNone}
}

func (h *rig) session(a core.AgentConfig) string {
	h.t.Helper()
	r := h.api(core.CreateSession{Call: h.nextCall(), Agent: a})
	require.NoError(h.t, r.Err)
	return r.Value.(core.SessionCreated).Session
}

func (h *rig) submit(sid, text string) string {
	h.t.Helper()
	r := h.api(core.SubmitTurn{Call: h.nextCall(), Session: sid, Input: wire.TextInput(text)})
	require.NoError(h.t, r.Err)
	return r.Value.(core.TurnSubmitted).Turn
}

// sent is one Send effect of payload type P.
type sent[P wire.Payload] struct {
	Conn core.ConnID
	ID   string
	P    P
}

func sends[P wire.Payload](effs []core.Effect) []sent[P] {
	var out []sent[P]
	for _, e := range effs {
		if s, ok := e.(core.Send); ok {
			if p, ok := s.Frame.Payload.(P); ok {
				out = append(out, sent[P]{s.Conn, s.Frame.ID, p})
			}
		}
	}
	return out
}

func one[P wire.Payload](t *testing.T, effs []core.Effect) sent[P] {
	t.Helper()
	s := sends[P](effs)
	require.Len(t, s, 1, "effects: %v", describeAll(effs))
	return s[0]
}

func describeAll(effs []core.Effect) []string {
	out := make([]string, len(effs))
	for i, e := range effs {
		out[i] = e.Describe()
	}
	return out
}

func status(state string, rev uint64) wire.PreparationStatus {
	return wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: rev, State: state, ExpiresAt: 1}
}

// started drives a Turn from preparation to running: it returns the
// preparation request ID and Run ID.
func (h *rig) startedOn(c core.ConnID, prepEffects []core.Effect) (string, string) {
	h.t.Helper()
	prep := one[wire.ExecutionPrepare](h.t, prepEffects)
	h.frame(c, prep.ID, status(wire.StatePreparing, 1))
	start := one[wire.ExecutionStart](h.t, h.frame(c, prep.ID, status(wire.StateReady, 2)))
	h.frame(c, prep.ID, wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: 3, State: wire.StateStarting, RunID: start.P.RunID})
	h.frame(c, prep.ID, wire.PreparationStatus{ExecutorID: "exec-1", Handle: "h-1", Revision: 4, State: wire.StateStarted, RunID: start.P.RunID})
	return prep.ID, start.P.RunID
}

// running sets up device d1 on conn 1, a default session and one running
// Turn.
func (h *rig) running() (sid, tid, runID string) {
	h.t.Helper()
	h.connect("d1", 1, baseCaps())
	sid = h.session(defaultAgent())
	h.step(core.SubmitTurn{Call: h.nextCall(), Session: sid, Input: wire.TextInput("hello")})
	tid = "t-1"
	_, runID = h.startedOn(1, h.last)
	return sid, tid, runID
}

func (h *rig) turn(id string) core.TurnView {
	h.t.Helper()
	v, ok := h.m.Turn(id)
	require.True(h.t, ok)
	return v
}

func observations(effs []core.Effect) []core.Observation {
	var out []core.Observation
	for _, e := range effs {
		if o, ok := e.(core.Observation); ok {
			out = append(out, o)
		}
	}
	return out
}

func hasEffect[E core.Effect](effs []core.Effect, match func(E) bool) bool {
	for _, e := range effs {
		if x, ok := e.(E); ok && match(x) {
			return true
		}
	}
	return false
}

var errAny = errors.New("any")

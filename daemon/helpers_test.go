package daemon

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func testCaps() wire.AgentKindCapabilities {
	c := wire.AllCapabilities(wire.CapabilityUnsupported)
	for _, f := range []*wire.CapabilitySupport{&c.Streaming, &c.Steering, &c.DurableTurns,
		&c.DurableInputReceipts, &c.Preparation, &c.ExecutionControls, &c.ToolObservations,
		&c.EnvironmentNone, &c.Usage} {
		*f = wire.CapabilitySupported
	}
	return c
}

func testConfig() Config {
	return Config{
		Kinds:         []KindConfig{{Kind: "contract", Available: true, Version: "1", Capabilities: testCaps()}},
		DaemonVersion: "test",
	}
}

// rig drives one machine with explicit instants and keeps the effects.
type rig struct {
	t   testing.TB
	m   *Machine
	now time.Time
	gen ConnID
	out []Effect // effects of the last step
	all []Effect // every effect so far
}

func newRig(t testing.TB) *rig { return newRigWith(t, testConfig()) }

func newRigWith(t testing.TB, cfg Config) *rig {
	r := &rig{t: t, m: New(cfg), now: t0}
	r.connect()
	return r
}

func (r *rig) step(ev Event) []Effect {
	r.t.Helper()
	r.out = r.m.Step(r.now, ev)
	r.all = append(r.all, r.out...)
	return r.out
}

func (r *rig) advance(d time.Duration) { r.now = r.now.Add(d) }

func (r *rig) connect() {
	r.gen++
	r.step(ConnOpened{Conn: r.gen})
}

func (r *rig) recv(id string, p wire.Payload) []Effect {
	return r.step(FrameReceived{Conn: r.gen, Frame: wire.Frame{ID: id, Payload: p}})
}

// fire advances to the timer's instant and fires it.
func (r *rig) fire(id TimerID) []Effect {
	r.t.Helper()
	at, ok := r.armed(id)
	require.Truef(r.t, ok, "timer %s not armed", id)
	if at.After(r.now) {
		r.now = at
	}
	return r.step(TimerFired{Timer: id})
}

// armed reports the latest arming of id in all effects, unless cancelled.
func (r *rig) armed(id TimerID) (time.Time, bool) {
	var at time.Time
	ok := false
	for _, e := range r.all {
		switch v := e.(type) {
		case SetTimer:
			if v.Timer == id {
				at, ok = v.At, true
			}
		case CancelTimer:
			if v.Timer == id {
				ok = false
			}
		}
	}
	return at, ok
}

func (r *rig) result(c CallID, res Result) []Effect {
	return r.step(NativeResult{Call: c, Result: res})
}

// calls returns the native calls of the last step.
func (r *rig) calls() []NativeCall {
	var out []NativeCall
	for _, e := range r.out {
		if c, ok := e.(NativeCall); ok {
			out = append(out, c)
		}
	}
	return out
}

// call returns the single native call of type O in the last step.
func callOf[O Op](r *rig) (CallID, O) {
	r.t.Helper()
	var zero O
	for _, c := range r.calls() {
		if o, ok := c.Op.(O); ok {
			return c.Call, o
		}
	}
	require.Fail(r.t, fmt.Sprintf("no %T call in %s", zero, describeAll(r.out)))
	return "", zero
}

func noCall[O Op](r *rig) {
	r.t.Helper()
	for _, c := range r.calls() {
		if _, ok := c.Op.(O); ok {
			require.Fail(r.t, fmt.Sprintf("unexpected %s", c.Describe()))
		}
	}
}

// sent returns the frames sent in the last step.
func (r *rig) sent() []wire.Frame {
	var out []wire.Frame
	for _, e := range r.out {
		if s, ok := e.(Send); ok {
			out = append(out, s.Frame)
		}
	}
	return out
}

func payloadsOf[P wire.Payload](frames []wire.Frame) []P {
	var out []P
	for _, f := range frames {
		if p, ok := f.Payload.(P); ok {
			out = append(out, p)
		}
	}
	return out
}

func statuses(r *rig) []wire.PreparationStatus { return payloadsOf[wire.PreparationStatus](r.sent()) }

func oneStatus(r *rig) wire.PreparationStatus {
	r.t.Helper()
	s := statuses(r)
	if len(s) != 1 {
		require.Fail(r.t, fmt.Sprintf("want one status, got %d: %s", len(s), describeAll(r.out)))
	}
	return s[0]
}

func describeAll(effs []Effect) string {
	var b strings.Builder
	for _, e := range effs {
		b.WriteString("\n  ")
		b.WriteString(e.Describe())
	}
	return b.String()
}

func prepareFor(session string) wire.ExecutionPrepare {
	return wire.ExecutionPrepare{
		SessionID: session,
		Configuration: wire.ExecutionConfiguration{
			AgentKind:                   "contract",
			AgentStateKey:               "agents-api-" + session,
			StrictResume:                true,
			DisableExecutionEnvironment: true,
		},
	}
}

func startFor(s wire.PreparationStatus, run string) wire.ExecutionStart {
	return wire.ExecutionStart{ExecutorID: s.ExecutorID, Handle: s.Handle, RunID: run, Input: wire.TextInput("hello")}
}

// ready prepares session under request ID req and completes the native
// preparation; it returns the ready status.
func (r *rig) ready(req, session string) wire.PreparationStatus {
	r.t.Helper()
	r.recv(req, prepareFor(session))
	st := oneStatus(r)
	if st.State == wire.StateReady {
		return st
	}
	require.Equalf(r.t, wire.StatePreparing, st.State, "prepare %s: %+v", req, st)
	c, _ := callOf[Prepare](r)
	r.result(c, PrepareResult{})
	st = oneStatus(r)
	require.Equalf(r.t, wire.StateReady, st.State, "prepare %s: want ready, got %+v", req, st)
	return st
}

// started prepares, starts run and completes the native start; it returns
// the Turn ID.
func (r *rig) started(req, session, run string) TurnID {
	r.t.Helper()
	st := r.ready(req, session)
	r.recv(req, startFor(st, run))
	c, op := callOf[StartTurn](r)
	r.result(c, StartResult{Turn: true})
	if got := oneStatus(r); got.State != wire.StateStarted {
		require.Fail(r.t, fmt.Sprintf("start %s: %+v", run, got))
	}
	return op.Turn
}

// settle ends the native output, answers the settlement and returns the
// settle call's effects.
func (r *rig) settle(turn TurnID, res SettleResult) {
	r.t.Helper()
	r.step(NativeTurnEvent{Turn: turn, Event: wire.Done{Content: "ok"}})
	c, _ := callOf[AwaitSettlement](r)
	r.result(c, res)
}

func frameTypes(frames []wire.Frame) string {
	parts := make([]string, len(frames))
	for i, f := range frames {
		parts[i] = fmt.Sprintf("%s", f.Payload.MessageType())
	}
	return strings.Join(parts, ",")
}

// allSent returns every frame sent so far.
func (r *rig) allSent() []wire.Frame {
	var out []wire.Frame
	for _, e := range r.all {
		if s, ok := e.(Send); ok {
			out = append(out, s.Frame)
		}
	}
	return out
}

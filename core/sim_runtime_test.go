package core_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// simRuntime is a scripted Runtime peer: it dials Core, heartbeats its
// fixed declaration and answers prepare, start, steer and cancel
// plausibly, with seeded latencies and occasional refusals. It records
// ground truth (native starts, consumed inputs, receipts sent) in the
// shared simTruth.
type simRuntime struct {
	id               string
	caps             wire.AgentKindCapabilities
	truth            *simTruth
	rng              *rand.Rand
	conn             sim.ConnID
	open             bool
	seq              int
	actions          map[sim.TimerID]func(now time.Time) []sim.Effect
	unavailableUntil time.Time          // heartbeats declare the kind unavailable until then
	preps            map[string]*rtPrep // request ID → admission (connection-local)
	runs             map[string]*rtRun  // Run ID → native run (connection-local)
}

type rtPrep struct {
	handle string
	rev    uint64
	ready  bool
	used   bool
}

type rtRun struct {
	req       string
	conn      sim.ConnID
	finished  bool // done sent
	cancelled bool
	starting  bool // started not yet reported: a cancel is refused not_ready
	steering  bool // an input awaits its receipt
}

func newSimRuntime(id string, caps wire.AgentKindCapabilities, truth *simTruth, rng *rand.Rand) *simRuntime {
	return &simRuntime{id: id, caps: caps, truth: truth, rng: rng,
		actions: map[sim.TimerID]func(time.Time) []sim.Effect{},
		preps:   map[string]*rtPrep{}, runs: map[string]*rtRun{}}
}

func (r *simRuntime) ms(lo, hi int) time.Duration {
	return time.Duration(lo+r.rng.IntN(hi-lo+1)) * time.Millisecond
}

// later schedules fn after d as a private timer.
func (r *simRuntime) later(now time.Time, d time.Duration, fn func(now time.Time) []sim.Effect) sim.Effect {
	r.seq++
	id := sim.TimerID("a" + strconv.Itoa(r.seq))
	r.actions[id] = fn
	return sim.SetTimer{Timer: id, At: now.Add(d)}
}

func (r *simRuntime) send(c sim.ConnID, id string, p wire.Payload) []sim.Effect {
	if !r.open || c != r.conn {
		return nil
	}
	b, err := wire.Encode(wire.Frame{ID: id, Payload: p})
	if err != nil {
		r.truth.violate("runtime " + r.id + " built an invalid frame: " + err.Error())
		return nil
	}
	return []sim.Effect{sim.Send{Conn: c, Frame: b}}
}

func (r *simRuntime) heartbeat(now time.Time) []sim.Effect {
	return r.send(r.conn, "", wire.Heartbeat{TS: 1, SupportedAgentKinds: []wire.SupportedAgentKind{
		{Kind: kind, Available: !now.Before(r.unavailableUntil), Capabilities: r.caps}}})
}

// Operator faults injected as calls: an undecodable heartbeat, or the kind
// declared unavailable for a few seconds.
const (
	opInvalidHeartbeat = "invalid_heartbeat"
	opUnavailable      = "unavailable"
)

func (r *simRuntime) onOperator(now time.Time, op string) []sim.Effect {
	if !r.open {
		return nil
	}
	switch op {
	case opInvalidHeartbeat:
		return []sim.Effect{sim.Send{Conn: r.conn, Frame: []byte(`{"type":"heartbeat","payload":{"ts":"soon"}}`)}}
	case opUnavailable:
		r.unavailableUntil = now.Add(r.ms(500, 5000))
		return append(r.heartbeat(now), r.later(now, r.unavailableUntil.Sub(now), func(now time.Time) []sim.Effect {
			return r.heartbeat(now)
		}))
	}
	return nil
}

func (r *simRuntime) Step(now time.Time, ev sim.Event) []sim.Effect {
	switch e := ev.(type) {
	case sim.Start:
		return []sim.Effect{sim.Dial{Peer: simCore, Tag: r.id}}
	case sim.ConnOpened:
		if !e.Dialer {
			return nil
		}
		r.conn, r.open = e.Conn, true
		r.truth.declared[r.id] = r.caps
		return append(r.heartbeat(now), sim.SetTimer{Timer: "hb", At: now.Add(15 * time.Second)})
	case sim.CallReceived:
		return r.onOperator(now, e.Req.Describe())
	case sim.ConnClosed, sim.DialFailed:
		if c, ok := e.(sim.ConnClosed); ok && c.Conn != r.conn {
			return nil
		}
		// Admissions and routes belong to the connection: gone with it.
		r.open = false
		r.preps = map[string]*rtPrep{}
		r.runs = map[string]*rtRun{}
		return []sim.Effect{sim.SetTimer{Timer: "dial", At: now.Add(r.ms(100, 1000))}}
	case sim.TimerFired:
		return r.onTimer(now, e.Timer)
	case sim.Delivered:
		if e.Conn != r.conn {
			return nil
		}
		f, err := wire.Decode(e.Frame)
		if err != nil {
			r.truth.violate("Core sent an undecodable frame: " + err.Error())
			return nil
		}
		return r.onFrame(now, f)
	}
	return nil
}

func (r *simRuntime) onTimer(now time.Time, id sim.TimerID) []sim.Effect {
	switch id {
	case "dial":
		return []sim.Effect{sim.Dial{Peer: simCore, Tag: r.id}}
	case "hb":
		if !r.open {
			return nil
		}
		return append(r.heartbeat(now), sim.SetTimer{Timer: "hb", At: now.Add(15 * time.Second)})
	}
	fn := r.actions[id]
	delete(r.actions, id)
	if fn == nil {
		return nil
	}
	return fn(now)
}

func (r *simRuntime) onFrame(now time.Time, f wire.Frame) []sim.Effect {
	switch p := f.Payload.(type) {
	case wire.ExecutionPrepare:
		return r.onPrepare(now, f.ID, p)
	case wire.ExecutionStart:
		return r.onStart(now, f.ID, p)
	case wire.ExecutionRelease:
		delete(r.preps, f.ID)
	case wire.PromptSteer:
		return r.onSteer(now, f.ID, p)
	case wire.PromptCancel:
		return r.onCancel(now, f.ID, p)
	}
	return nil
}

func (r *simRuntime) status(c sim.ConnID, req string, p *rtPrep, st wire.PreparationStatus) []sim.Effect {
	p.rev++
	st.ExecutorID, st.Handle, st.Revision, st.ExpiresAt = "exec-"+r.id, p.handle, p.rev, 1800000000000
	return r.send(c, req, st)
}

func (r *simRuntime) onPrepare(now time.Time, req string, p wire.ExecutionPrepare) []sim.Effect {
	c := r.conn
	if err := p.Configuration.CheckCapabilities(r.caps); err != nil {
		r.truth.violate("prepare on " + r.id + " needs an undeclared capability: " + err.Error())
	}
	switch x := r.rng.IntN(100); {
	case x < 10:
		return r.send(c, req, wire.PreparationStatus{State: wire.StateRejected,
			ErrorCode: wire.PrepPreparationCapacity, Operation: wire.TypeExecutionPrepare})
	case x < 14:
		pr := &rtPrep{handle: "h-" + req}
		r.preps[req] = pr
		return []sim.Effect{r.later(now, r.ms(5, 50), func(time.Time) []sim.Effect {
			return r.status(c, req, pr, wire.PreparationStatus{State: wire.StateFailed, ErrorCode: wire.PrepPreparationFailed})
		})}
	}
	pr := &rtPrep{handle: "h-" + req}
	r.preps[req] = pr
	out := r.status(c, req, pr, wire.PreparationStatus{State: wire.StatePreparing})
	return append(out, r.later(now, r.ms(5, 150), func(time.Time) []sim.Effect {
		pr.ready = true
		return r.status(c, req, pr, wire.PreparationStatus{State: wire.StateReady})
	}))
}

func (r *simRuntime) onStart(now time.Time, req string, p wire.ExecutionStart) []sim.Effect {
	c := r.conn
	pr := r.preps[req]
	if pr == nil || !pr.ready || pr.used || p.Handle != pr.handle {
		return r.send(c, req, wire.PreparationStatus{State: wire.StateRejected,
			ErrorCode: wire.PrepUnknownPreparation, Operation: wire.TypeExecutionStart})
	}
	pr.used = true
	if r.rng.IntN(100) < 8 {
		turn, _, _ := strings.Cut(p.RunID, ".")
		r.truth.unavail[turn]++
		out := r.status(c, req, pr, wire.PreparationStatus{State: wire.StateFailed, ErrorCode: wire.PrepExecutorUnavailable})
		return append(out, r.send(c, req, wire.PreparationStatus{State: wire.StateRejected, Handle: pr.handle,
			ErrorCode: wire.PrepExecutorUnavailable, Operation: wire.TypeExecutionStart})...)
	}
	r.truth.nativeStart(p.RunID)
	run := &rtRun{req: req, conn: c, starting: true}
	r.runs[p.RunID] = run
	out := r.status(c, req, pr, wire.PreparationStatus{State: wire.StateStarting, RunID: p.RunID})
	out = append(out, r.later(now, r.ms(1, 300), func(time.Time) []sim.Effect {
		run.starting = false
		return r.status(c, req, pr, wire.PreparationStatus{State: wire.StateStarted, RunID: p.RunID})
	}))
	return append(out, r.later(now, r.ms(10, 200), func(now time.Time) []sim.Effect {
		return r.output(now, p.RunID, run, 1+r.rng.IntN(8))
	}))
}

// output streams deltas, then maybe an error, then done.
func (r *simRuntime) output(now time.Time, runID string, run *rtRun, left int) []sim.Effect {
	if run.finished || run.cancelled || r.runs[runID] != run {
		return nil
	}
	if left > 0 {
		out := r.send(run.conn, runID, wire.Delta{Delta: "tok ", Sequence: uint64(100 - left)})
		return append(out, r.later(now, r.ms(20, 400), func(now time.Time) []sim.Effect {
			return r.output(now, runID, run, left-1)
		}))
	}
	if run.steering {
		// done only after the pending input's receipt.
		return []sim.Effect{r.later(now, r.ms(50, 200), func(now time.Time) []sim.Effect {
			return r.output(now, runID, run, 0)
		})}
	}
	var out []sim.Effect
	if r.rng.IntN(100) < 10 {
		out = r.send(run.conn, runID, wire.RunError{Error: "upstream failed", Code: wire.EngineServerError})
	}
	run.finished = true
	return append(out, r.send(run.conn, runID, wire.Done{Content: "answer",
		Metadata: &wire.DoneMetadata{AgentSessionID: "native-" + runID}})...)
}

func (r *simRuntime) onSteer(now time.Time, runID string, p wire.PromptSteer) []sim.Effect {
	run := r.runs[runID]
	key := runID + "/" + p.InputID
	if run == nil || run.finished || run.cancelled {
		return r.send(r.conn, runID, wire.PromptSteerAck{InputID: p.InputID, ErrorCode: wire.SteerRunInactive})
	}
	if !p.DurableReceipt {
		r.truth.violate("prompt_steer without durable_receipt: " + key)
	}
	x := r.rng.IntN(100)
	if x < 10 {
		r.truth.refused[key]++
		return r.send(r.conn, runID, wire.PromptSteerAck{InputID: p.InputID, ErrorCode: wire.SteerNotReady})
	}
	r.truth.consume(key)
	run.steering = true
	if x < 15 {
		// The receipt is lost: the native write settles after a while
		// (sometimes past Core's written window) and no ack is sent.
		return []sim.Effect{r.later(now, r.ms(20000, 45000), func(time.Time) []sim.Effect {
			run.steering = false
			return nil
		})}
	}
	return []sim.Effect{r.later(now, r.ms(5, 100), func(now time.Time) []sim.Effect {
		out := r.send(run.conn, runID, wire.PromptSteerAck{InputID: p.InputID, Written: true})
		return append(out, r.later(now, r.ms(5, 300), func(time.Time) []sim.Effect {
			run.steering = false
			if run.cancelled {
				return nil
			}
			r.truth.accepted[key] = true
			return r.send(run.conn, runID, wire.PromptSteerAck{InputID: p.InputID, Accepted: true})
		}))
	})}
}

func (r *simRuntime) onCancel(now time.Time, runID string, p wire.PromptCancel) []sim.Effect {
	run := r.runs[runID]
	c := r.conn
	if run == nil || run.finished {
		return r.send(c, runID, wire.InteractionDecisionAck{DeliveryID: p.DeliveryID, ErrorCode: wire.CancelRunInactive})
	}
	if run.starting {
		return r.send(c, runID, wire.InteractionDecisionAck{DeliveryID: p.DeliveryID, ErrorCode: wire.CancelNotReady})
	}
	run.cancelled = true
	if r.rng.IntN(100) < 15 {
		return nil // settles, but the receipt is lost
	}
	return []sim.Effect{r.later(now, r.ms(10, 500), func(time.Time) []sim.Effect {
		run.finished = true
		out := r.send(c, runID, wire.Done{Content: ""})
		return append(out, r.send(c, runID, wire.InteractionDecisionAck{DeliveryID: p.DeliveryID, Applied: true,
			Outcome: &wire.Done{Content: "partial", Metadata: &wire.DoneMetadata{AgentSessionID: "native-" + runID}}})...)
	})}
}

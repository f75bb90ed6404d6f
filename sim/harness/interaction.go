package harness

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// Interaction fault kinds (swarm): each arms the device for its next
// matching interaction.
const (
	// AckLost: the daemon's next interaction_decision_ack is lost in
	// flight: the connection breaks with it unsent.
	AckLost sim.FaultKind = "interaction_ack_lost"
	// DecisionNever: the next native decision never confirms; the call is
	// answered (not applied) only when its Turn settles.
	DecisionNever sim.FaultKind = "harness_decision_never"
	// DecisionSlow: the next native decision confirms 16–25 s later, past
	// Core's 15 s receipt wait.
	DecisionSlow sim.FaultKind = "harness_decision_slow"
	// PermissionWithdrawn: the next permission decision races the native
	// side withdrawing the request (permission_cancel first; the decision
	// is not applied).
	PermissionWithdrawn sim.FaultKind = "harness_permission_withdrawn"
	// LateInteraction: the next Turn to settle emits a permission request
	// after its settlement (a late native callback).
	LateInteraction sim.FaultKind = "harness_late_interaction"
)

// InteractionKinds lists the interaction fault kinds in a fixed order.
func InteractionKinds() []sim.FaultKind {
	return []sim.FaultKind{AckLost, DecisionNever, DecisionSlow, PermissionWithdrawn, LateInteraction}
}

// TakeAckLost consumes an armed interaction_ack_lost fault of the device.
func (d *Device) TakeAckLost() bool { return d.take(AckLost) }

// Interaction kinds as ground truth names them.
const (
	AskPermission = "permission"
	AskUserChoice = "user_choice"
	AskFunction   = "function_call"
)

// InteractionRecorder is an optional extension of Recorder: the native
// side of interactions. key is the interaction ID for permissions and
// user choices and "<run>/<call ID>" for function calls.
type InteractionRecorder interface {
	// InteractionAsked: the Turn of run emitted the interaction.
	InteractionAsked(at int64, device, run, kind, key string)
	// DecisionCalled: a native decision call for key reached the Turn of
	// run (misrouted when that Turn never emitted key).
	DecisionCalled(at int64, device, run, key string, misrouted bool)
	// DecisionAnswered: the native call for key returned; applied says
	// whether the decision was applied natively at that instant.
	DecisionAnswered(at int64, device, run, key string, applied bool)
}

// AdapterRefusalRecorder is an optional extension of Recorder: the
// adapter answered a native decision call ErrUnsupportedOperation,
// although the kind declares the operation (a contract breach).
type AdapterRefusalRecorder interface {
	DecisionRefusedUnsupported(at int64, device, run, key string)
}

type askState uint8

const (
	askPending askState = iota + 1
	askApplying
	askApplied
	askWithdrawn
)

// hAsk is one interaction a native Turn emitted.
type hAsk struct {
	kind  string
	key   string
	id    string
	state askState
	at    time.Time // when the turn asked
}

// hAsks is the interaction state of the Harness.
type hAsks struct {
	r      *rand.Rand
	refuse *rand.Rand // nil: the adapter implements every declared operation
	chance int        // in 8: a turn asks
	seq    uint64
	byTurn map[daemon.TurnID][]*hAsk
	held   map[daemon.TurnID][]func(now time.Time) // decisions answered at settlement
}

func (h *Harness) asks() *hAsks {
	if h.ix == nil {
		r := h.w.Rand("interactions:" + string(h.dev.ID))
		h.ix = &hAsks{r: r, chance: 2 + r.IntN(6), byTurn: map[daemon.TurnID][]*hAsk{},
			held: map[daemon.TurnID][]func(time.Time){}}
		if h.dev.Harness.Asks.Always {
			h.ix.chance = 8
		}
		// In one seed in four the adapter refuses some declared decision
		// operations (ErrUnsupportedOperation), from a stream of its own.
		if rr := h.w.Rand("adapter-refusals:" + string(h.dev.ID)); rr.IntN(4) == 0 {
			h.ix.refuse = rr
		}
	}
	return h.ix
}

func (h *Harness) ixRecorder() InteractionRecorder {
	r, _ := h.dev.Recorder.(InteractionRecorder)
	return r
}

// scheduleAsks lets a native turn ask up to two questions during its
// span: a permission, a user choice or a function call.
func (h *Harness) scheduleAsks(now time.Time, t *hTurn, span time.Duration) {
	a := h.asks()
	if a.r.IntN(8) >= a.chance {
		return
	}
	n := 1 + a.r.IntN(2)
	for range n {
		d := time.Duration(a.r.Int64N(int64(span)) + 1)
		kind := []string{AskPermission, AskPermission, AskUserChoice, AskFunction, AskFunction}[a.r.IntN(5)]
		h.after(now, d, func(now time.Time) { h.ask(now, t, kind) })
	}
}

func (h *Harness) ask(now time.Time, t *hTurn, kind string) {
	if t.settled || t.done {
		return
	}
	a := h.asks()
	a.seq++
	// Identities are unique across the daemon process's lives: a restarted
	// Harness counts from one again, but Run IDs never repeat.
	n := t.run + "-" + strconv.FormatUint(a.seq, 10)
	dev := string(h.dev.ID)
	ask := &hAsk{kind: kind, state: askPending, at: now}
	var p wire.Payload
	switch kind {
	case AskPermission:
		ask.id = "perm-" + n
		p = wire.PermissionRequest{RequestID: ask.id, Tool: "shell", Title: "run step " + n}
	case AskUserChoice:
		ask.id = "ask-" + n
		p = wire.UserChoicePrompt{AskID: ask.id, Questions: []wire.UserQuestion{
			{ID: "q1", Question: "which colour?", Options: []wire.UserOption{{Label: "red"}, {Label: "blue"}}},
			{ID: "q2", Header: "Size", Question: "which size?", MultiSelect: true, Options: []wire.UserOption{{Label: "s"}, {Label: "l"}}},
		}}
	default:
		ask.id = "call-" + n
		p = wire.FunctionCall{CallID: ask.id, Name: "lookup", Arguments: []byte(`{"q":` + strconv.FormatUint(a.seq, 10) + `}`)}
	}
	ask.key = ask.id
	if kind == AskFunction {
		ask.key = t.run + "/" + ask.id
	}
	a.byTurn[t.id] = append(a.byTurn[t.id], ask)
	if rec := h.ixRecorder(); rec != nil {
		rec.InteractionAsked(at(now), dev, t.run, kind, ask.key)
	}
	h.event(now, t, p)
}

// decide answers one native decision call on the Turn the daemon named.
func (h *Harness) decide(now time.Time, c daemon.CallID, turn daemon.TurnID, kind, id string) {
	a := h.asks()
	t := h.turns[turn]
	dev := string(h.dev.ID)
	run := ""
	if t != nil {
		run = t.run
	}
	var ask *hAsk
	if i := slices.IndexFunc(a.byTurn[turn], func(x *hAsk) bool { return x.id == id && x.kind == kind }); i >= 0 {
		ask = a.byTurn[turn][i]
	}
	key := id
	if kind == AskFunction {
		key = run + "/" + id
	}
	rec := h.ixRecorder()
	if rec != nil {
		rec.DecisionCalled(at(now), dev, run, key, ask == nil && h.askedElsewhere(turn, kind, id))
	}
	answer := func(now time.Time, applied bool) {
		if rec != nil {
			rec.DecisionAnswered(at(now), dev, run, key, applied)
		}
		out := daemon.DecisionResult{Outcome: daemon.DecisionApplied}
		if !applied {
			out = daemon.DecisionResult{Outcome: daemon.DecisionNotPending, Err: "simulated interaction not pending"}
		}
		h.result(now, c, out)
	}
	if ask == nil || t == nil || t.settled || t.done || ask.state == askWithdrawn {
		h.after(now, h.latency(), func(now time.Time) { answer(now, false) })
		return
	}
	if ask.state == askApplied {
		// The native side applies whatever it is handed: a second call is
		// a second application (the daemon must never make one). Ground
		// truth records it.
		h.after(now, h.latency(), func(now time.Time) { answer(now, !t.settled && !t.done) })
		return
	}
	if kind == AskPermission && (h.take(PermissionWithdrawn) || chanceIn8(a.r, h.dev.Harness.Asks.WithdrawRaces)) {
		ask.state = askWithdrawn
		h.host.Feed(now, daemon.NativePermissionWithdrawn{Turn: turn, InteractionID: id})
		h.after(now, h.latency(), func(now time.Time) { answer(now, false) })
		return
	}
	if a.refuse != nil && a.refuse.IntN(6) == 0 {
		if rr, ok := h.dev.Recorder.(AdapterRefusalRecorder); ok {
			rr.DecisionRefusedUnsupported(at(now), dev, run, key)
		}
		h.after(now, h.latency(), func(now time.Time) {
			if rec != nil {
				rec.DecisionAnswered(at(now), dev, run, key, false)
			}
			h.result(now, c, daemon.DecisionResult{Outcome: daemon.DecisionUnsupported, Err: "simulated adapter refuses a declared operation"})
		})
		return
	}
	ask.state = askApplying
	// A native turn waiting for an answer does not end on its own while
	// the decision is out (writesOut counts it with the writes).
	t.writesOut++
	done := false
	settle := func(now time.Time, confirm bool) {
		if done {
			return
		}
		done = true
		if !confirm || t.settled || t.done || ask.state == askWithdrawn || ask.state == askPending {
			if ask.state == askApplying {
				ask.state = askPending
			}
			answer(now, false)
		} else { // applying, or applied by an earlier call: applied (again)
			ask.state = askApplied
			answer(now, true)
		}
		t.writesOut--
		if end := t.endPending; end != nil && t.writesOut == 0 {
			t.endPending = nil
			end(now)
		}
	}
	// Settlement answers every decision still out (not applied): a settled
	// Turn's interactions are settled.
	a.held[turn] = append(a.held[turn], func(now time.Time) { settle(now, false) })
	switch {
	case h.take(DecisionNever):
		h.hung = append(h.hung, func(now time.Time) { settle(now, false) }) // released at heal
	case h.take(DecisionSlow) || chanceIn8(a.r, h.dev.Harness.Asks.SlowDecisions):
		h.after(now, time.Duration(16000+a.r.IntN(9000))*time.Millisecond, func(now time.Time) { settle(now, true) })
	default:
		h.after(now, time.Duration(5+a.r.IntN(300))*time.Millisecond, func(now time.Time) { settle(now, true) })
	}
}

// askedElsewhere reports whether a Turn other than turn emitted id.
func (h *Harness) askedElsewhere(turn daemon.TurnID, kind, id string) bool {
	for _, tid := range sortedTurnIDs(h.asks().byTurn) {
		if tid == turn {
			continue
		}
		if slices.ContainsFunc(h.asks().byTurn[tid], func(x *hAsk) bool { return x.id == id && x.kind == kind }) {
			return true
		}
	}
	return false
}

// decisionCall dispatches the three decision operations.
func (h *Harness) decisionCall(now time.Time, e daemon.NativeCall) bool {
	switch op := e.Op.(type) {
	case daemon.RespondPermission:
		h.decide(now, e.Call, op.Turn, AskPermission, op.InteractionID)
	case daemon.RespondUserChoice:
		h.decide(now, e.Call, op.Turn, AskUserChoice, op.InteractionID)
	case daemon.SubmitFunctionResult:
		h.decide(now, e.Call, op.Turn, AskFunction, op.Result.CallID)
	default:
		return false
	}
	return true
}

// asksSettled runs when a native turn settles: decisions that never
// confirmed are answered now (not applied), pending permissions are gone,
// and a late-interaction fault emits a request after the settlement.
func (h *Harness) asksSettled(now time.Time, t *hTurn) {
	if h.ix == nil {
		return
	}
	held := h.ix.held[t.id]
	delete(h.ix.held, t.id)
	for _, fn := range held {
		fn(now)
	}
	if h.take(LateInteraction) {
		h.after(now, h.latency(), func(now time.Time) {
			h.ix.seq++
			id := "perm-" + t.run + "-late-" + strconv.FormatUint(h.ix.seq, 10)
			h.event(now, t, wire.PermissionRequest{RequestID: id, Tool: "shell", Title: "late"})
		})
	}
}

// loseInFlight breaks connection gen with the frame being sent unsent: it
// never reaches the network, and the daemon learns the transport closed.
func (n *Daemon) loseInFlight(now time.Time, gen uint64) {
	n.out = append(n.out, sim.Close{Conn: sim.ConnID(gen), Reason: "ack lost in flight"})
	n.queue = append(n.queue, daemon.ConnClosed{Conn: daemon.ConnID(gen)})
	if sim.ConnID(gen) == n.cur {
		n.cur = 0
		n.redial(now, false)
	}
}

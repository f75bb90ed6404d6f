package core_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

const (
	simCore       sim.NodeID    = "core"
	simCoreCrash  sim.FaultKind = "core_crash"
	simWorkWindow               = 8 * time.Second
)

// simSeeds is the number of seeds TestSimCore runs (-core.sim.seeds).
var simSeeds = flag.Uint64("core.sim.seeds", 240, "seeds run by TestSimCore")

// simTruth is what the suite knows independently of Core's records: what
// crossed the wire and what the scripted Runtimes did natively.
type simTruth struct {
	violations []string
	declared   map[string]wire.AgentKindCapabilities // device → declaration
	coreStarts map[string]int                        // Run ID → execution_start frames Core sent
	turnStarts map[string]int                        // Turn → execution_start frames Core sent
	unavail    map[string]int                        // Turn → starts refused executor_unavailable
	native     map[string]int                        // Run ID → native starts
	steerSent  map[string]int                        // run/input → prompt_steer frames Core sent
	refused    map[string]int                        // run/input → not_ready answers (nothing consumed)
	consumed   map[string]int                        // run/input → native consumption
	accepted   map[string]bool                       // run/input → accepted receipt sent
	seen       map[string]core.TurnRecord            // last durable record seen per Turn
	turns      []string                              // Turn IDs answered to the workload
	subs       map[core.CallID]*simSub
	crashes    int
}

type simSub struct {
	turn     string
	next     uint64
	accepted bool // Core answered the Subscribe without error
	closed   bool // closed by Core, or lost with a Core crash
}

func newSimTruth() *simTruth {
	return &simTruth{declared: map[string]wire.AgentKindCapabilities{}, coreStarts: map[string]int{},
		native: map[string]int{}, turnStarts: map[string]int{}, unavail: map[string]int{}, steerSent: map[string]int{}, refused: map[string]int{},
		consumed: map[string]int{}, accepted: map[string]bool{}, seen: map[string]core.TurnRecord{},
		subs: map[core.CallID]*simSub{}}
}

func (t *simTruth) violate(msg string) { t.violations = append(t.violations, msg) }

func (t *simTruth) nativeStart(run string) {
	if t.native[run]++; t.native[run] > 1 {
		t.violate("Run " + run + " started natively twice")
	}
}

func (t *simTruth) consume(key string) {
	if t.consumed[key]++; t.consumed[key] > 1 {
		t.violate("input " + key + " consumed twice")
	}
}

// simCoreNode runs the Core machine over the simulated network. Its store
// lives in the test, so it survives crashes; every incarnation starts with
// core.Restart.
type simCoreNode struct {
	cfg   core.Config
	st    *store.Memory
	truth *simTruth
	m     *core.Machine
}

func (n *simCoreNode) Step(now time.Time, ev sim.Event) []sim.Effect {
	var cev core.Event
	switch e := ev.(type) {
	case sim.Start:
		n.m = core.Restart(n.cfg, n.st)
		if e.Incarnation > 1 {
			n.truth.crashes++
			for _, sub := range n.truth.subs {
				sub.closed = true // the subscriber's process lost Core
			}
		}
		return nil
	case sim.ConnOpened:
		if e.Dialer {
			return nil
		}
		cev = core.ConnOpened{Device: string(e.Peer), Conn: core.ConnID(e.Conn)}
	case sim.ConnClosed:
		cev = core.ConnClosed{Conn: core.ConnID(e.Conn), Reason: e.Reason}
	case sim.Delivered:
		f, err := wire.Decode(e.Frame)
		if err != nil {
			cev = core.FrameRejected{Conn: core.ConnID(e.Conn), Type: envelopeType(e.Frame), Err: err}
		} else {
			cev = core.FrameReceived{Conn: core.ConnID(e.Conn), Frame: f}
		}
	case sim.TimerFired:
		cev = core.TimerFired{Timer: core.TimerID(e.Timer)}
	case sim.CallReceived:
		cev = e.Req.(core.Event)
	default:
		return nil
	}
	return n.apply(n.m.Step(now, cev))
}

func envelopeType(frame []byte) string {
	var env struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(frame, &env)
	return env.Type
}

func (n *simCoreNode) apply(effs []core.Effect) []sim.Effect {
	var out []sim.Effect
	for _, e := range effs {
		switch x := e.(type) {
		case core.Send:
			n.sent(x)
			b, err := wire.Encode(x.Frame)
			if err != nil {
				n.truth.violate("Core built an invalid frame: " + err.Error())
				continue
			}
			out = append(out, sim.Send{Conn: sim.ConnID(x.Conn), Frame: b})
		case core.CloseConn:
			out = append(out, sim.Close{Conn: sim.ConnID(x.Conn), Reason: x.Reason})
		case core.SetTimer:
			out = append(out, sim.SetTimer{Timer: sim.TimerID(x.Timer), At: x.At})
		case core.CancelTimer:
			out = append(out, sim.CancelTimer{Timer: sim.TimerID(x.Timer)})
		case core.APIResult:
			if v, ok := x.Value.(core.TurnSubmitted); ok {
				n.truth.turns = append(n.truth.turns, v.Turn)
			}
			if s := n.truth.subs[x.Call]; s != nil && x.Err == nil {
				s.accepted = true
			}
		case core.Observation:
			n.observed(x)
		}
	}
	return out
}

// sent records Core's frames and checks dispatch against the device's
// declaration and the admission table.
func (n *simCoreNode) sent(s core.Send) {
	device := ""
	for _, d := range n.m.Devices() {
		if d.Conn == s.Conn {
			device = d.Device
		}
	}
	if _, ok := s.Frame.Payload.(wire.ExecutionPrepare); ok {
		n.available(s.Conn, device)
	}
	if _, ok := s.Frame.Payload.(wire.ExecutionStart); ok {
		n.available(s.Conn, device)
	}
	switch p := s.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		turn := ""
		for _, pv := range n.m.Preparations() {
			if pv.RequestID == s.Frame.ID {
				turn = pv.Turn
			}
		}
		n.admitted(device, p.SessionID, turn)
	case wire.ExecutionStart:
		if n.truth.coreStarts[p.RunID]++; n.truth.coreStarts[p.RunID] > 1 {
			n.truth.violate("Core sent execution_start for Run " + p.RunID + " twice")
		}
		turn, _, _ := strings.Cut(p.RunID, ".")
		// A Turn starts once, plus once more only after an explicit
		// executor_unavailable refusal of its first start.
		if n.truth.turnStarts[turn]++; n.truth.turnStarts[turn] > 1+min(n.truth.unavail[turn], 1) {
			n.truth.violate("Turn " + turn + " started again without an executor_unavailable refusal")
		}
		rec, _ := n.st.Turn(turn)
		n.admitted(device, rec.Session, turn)
	case wire.PromptSteer:
		key := s.Frame.ID + "/" + p.InputID
		if n.truth.steerSent[key]++; n.truth.steerSent[key] > 1+n.truth.refused[key] {
			n.truth.violate("input " + key + " delivered again without a not_ready refusal")
		}
	}
}

// available: Core dispatches only while its snapshot of the connection
// declares the kind available.
func (n *simCoreNode) available(c core.ConnID, device string) {
	if k, ok := n.m.Snapshot(c, kind); !ok || !k.Available {
		n.truth.violate("dispatched to " + device + " whose snapshot does not declare the kind available")
	}
}

// admitted: the device's declaration supports everything the seed's
// admission table (seedRequired, written independently of Core) asks for
// the Turn, counting images of active inputs queued before the claim.
func (n *simCoreNode) admitted(device, session, turn string) {
	caps, ok := n.truth.declared[device]
	srec, _ := n.st.Session(session)
	images := false
	if rec, found := n.st.Turn(turn); found {
		images = rec.Input.HasImages()
		for _, in := range n.st.Inputs(turn) {
			images = images || in.Input.HasImages()
		}
	}
	if miss := seedMissing(caps, seedRequired(srec, core.EngineProfile{}, images)); !ok || miss != "" {
		n.truth.violate(fmt.Sprintf("dispatched Session %s to %s lacking %q", session, device, miss))
	}
}

// observed checks SubscribeDurable: contiguous persisted events, each
// identical to the durable one, then one close; nothing fabricated.
func (n *simCoreNode) observed(o core.Observation) {
	s := n.truth.subs[o.Subscriber]
	switch {
	case s == nil || s.closed || !s.accepted:
		n.truth.violate(fmt.Sprintf("observation for closed or unknown subscriber %s", o.Subscriber))
	case o.Closed:
		s.closed = true
	default:
		evs := n.st.Events(s.turn)
		s.next++
		if o.Event.Seq != s.next || int(o.Event.Seq) > len(evs) || evs[o.Event.Seq-1].Type != o.Event.Type {
			n.truth.violate(fmt.Sprintf("subscriber %s got %s seq %d, not the durable event %d", o.Subscriber, o.Event.Type, o.Event.Seq, s.next))
		}
	}
}

// simDevices: d1 declares everything; d2 lacks message_images; d3 lacks
// function_tools and native_session_recovery.
func simDevices() map[string]wire.AgentKindCapabilities {
	full := fullCaps()
	return map[string]wire.AgentKindCapabilities{
		"d1": full,
		"d2": with(full, "message_images", wire.CapabilityUnsupported),
		"d3": with(with(full, "function_tools", wire.CapabilityUnsupported), "native_session_recovery", wire.CapabilityUnsupported),
	}
}

func simSetup(truth **simTruth, st **store.Memory) func(w *sim.Kernel) {
	return func(w *sim.Kernel) {
		t := newSimTruth()
		s := store.NewMemory()
		*truth, *st = t, s
		cn := &simCoreNode{cfg: testConfig(), st: s, truth: t}
		w.AddNode(simCore, func() sim.Node { return cn })
		devs := simDevices()
		for _, id := range []string{"d1", "d2", "d3"} {
			caps := devs[id]
			w.AddNode(sim.NodeID(id), func() sim.Node {
				return newSimRuntime(id, caps, t, w.Rand("node:"+id))
			})
		}
		w.RegisterFault(sim.FaultSpec{Kind: simCoreCrash, Targets: []sim.NodeID{simCore},
			ForMin: 100 * time.Millisecond, ForMax: 2 * time.Second}, sim.CrashRestart)
		devices := []sim.NodeID{"d1", "d2", "d3"}
		for _, op := range []string{opInvalidHeartbeat, opUnavailable} {
			w.RegisterFault(sim.FaultSpec{Kind: sim.FaultKind(op), Targets: devices}, func(w *sim.Kernel, f sim.Fault) {
				w.Inject(f.Node, sim.CallReceived{From: "operator", Req: sim.Text(op)})
			})
		}
		simWorkload(w, t)
		simChecks(w, t, s, cn)
	}
}

// simWorkload creates Sessions at once, then submits, steers, cancels and
// subscribes at seeded instants inside the work window.
func simWorkload(w *sim.Kernel, t *simTruth) {
	r := w.Rand("workload")
	calls := 0
	call := func(ev core.Event) {
		calls++
		w.Inject(simCore, sim.CallReceived{From: "workload", Call: sim.CallID(calls), Req: ev})
	}
	agents := []core.AgentConfig{defaultAgent(), defaultAgent(), defaultAgent()}
	agents[1].FunctionTools = []wire.FunctionTool{{Name: "lookup"}}
	agents[2].MultiAgent = true
	sessions := 2 + r.IntN(3)
	w.At(sim.Epoch, "create sessions", func() {
		for i := range sessions {
			call(core.CreateSession{Call: core.CallID(fmt.Sprintf("create-%d", i)), Agent: agents[i%len(agents)]})
		}
	})
	turns := 3 + r.IntN(6) + w.Workload()
	for i := range turns {
		at := sim.Epoch.Add(time.Duration(r.Int64N(int64(simWorkWindow))))
		sid := fmt.Sprintf("s-%d", 1+r.IntN(sessions))
		in := wire.TextInput("turn " + itoa(i))
		if r.IntN(5) == 0 {
			in = append(in, wire.InputMessage{Content: []wire.InputContent{wire.ImagePart("data:image/png;base64,AAAA")}})
		}
		w.At(at, "submit", func() { call(core.SubmitTurn{Call: core.CallID(fmt.Sprintf("submit-%d", i)), Session: sid, Input: in}) })
	}
	for i := range 2 * turns {
		at := sim.Epoch.Add(time.Duration(r.Int64N(int64(simWorkWindow))))
		pick, op := r.IntN(1<<20), r.IntN(10)
		w.At(at, "act", func() {
			if len(t.turns) == 0 {
				return
			}
			tid := t.turns[pick%len(t.turns)]
			id := core.CallID(fmt.Sprintf("act-%d", i))
			switch {
			case op < 6:
				call(core.SteerInput{Call: id, Turn: tid, Input: wire.TextInput("steer " + itoa(i))})
			case op < 8:
				t.subs[id] = &simSub{turn: tid}
				call(core.Subscribe{Call: id, Turn: tid})
			default:
				call(core.CancelTurn{Call: id, Turn: tid})
			}
		})
	}
}

func simChecks(w *sim.Kernel, t *simTruth, st *store.Memory, cn *simCoreNode) {
	w.AddCheck(sim.Check{Name: "ground_truth", AfterStep: func(*sim.View) error {
		if len(t.violations) > 0 {
			return fmt.Errorf("%s", t.violations[0])
		}
		return nil
	}})
	w.AddCheck(sim.Check{Name: "durable_turns", AfterStep: func(v *sim.View) error {
		if node, _, _ := v.Last(); node != simCore {
			return nil // only Core's steps change its records
		}
		return checkDurable(t, st, cn, v.Up(simCore))
	}, AtEnd: func(v *sim.View) error { return checkDurable(t, st, cn, v.Up(simCore)) }})
	w.AddCheck(sim.Check{Name: "subscriptions_closed", AtEnd: func(*sim.View) error {
		for _, id := range slices.Sorted(mapKeys(t.subs)) {
			if s := t.subs[id]; s.accepted && !s.closed {
				if rec, _ := st.Turn(s.turn); rec.State.Terminal() {
					return fmt.Errorf("subscriber %s of terminal %s never closed", id, s.turn)
				}
			}
		}
		return nil
	}})
	w.SetConvergence(func() (bool, string) {
		for _, rec := range st.Turns() {
			if !rec.State.Terminal() {
				return false, "turn " + rec.ID + " is " + string(rec.State)
			}
		}
		return true, ""
	})
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkDurable: no terminal state regresses, durable records never vanish
// or shrink, cursors only cover accepted inputs, and the live machine
// agrees with the store.
func checkDurable(t *simTruth, st *store.Memory, cn *simCoreNode, up bool) error {
	recs := st.Turns()
	if len(recs) < len(t.seen) {
		return fmt.Errorf("%d turn records, %d seen before", len(recs), len(t.seen))
	}
	for _, rec := range recs {
		prev, ok := t.seen[rec.ID]
		if ok && prev.State.Terminal() && (rec.State != prev.State || rec.ErrorCode != prev.ErrorCode) {
			return fmt.Errorf("turn %s regressed from %s/%s to %s/%s", rec.ID, prev.State, prev.ErrorCode, rec.State, rec.ErrorCode)
		}
		if ok && (rec.EventCount < prev.EventCount || rec.InputCursor < prev.InputCursor) {
			return fmt.Errorf("turn %s lost durable facts", rec.ID)
		}
		t.seen[rec.ID] = rec
		inputs := st.Inputs(rec.ID)
		for i := 0; i < rec.InputCursor; i++ {
			if key := rec.RunID + "/" + inputs[i].ID; !t.accepted[key] && !acceptedOnAnyRun(t, rec.ID, inputs[i].ID) {
				return fmt.Errorf("turn %s cursor %d covers input %s without accepted", rec.ID, rec.InputCursor, inputs[i].ID)
			}
		}
		if up {
			if v, _ := cn.m.Turn(rec.ID); v.State != rec.State || v.InputCursor != rec.InputCursor {
				return fmt.Errorf("machine says %s/%d, store %s/%d for %s", v.State, v.InputCursor, rec.State, rec.InputCursor, rec.ID)
			}
		}
	}
	return nil
}

func acceptedOnAnyRun(t *simTruth, turn, input string) bool {
	return t.accepted[turn+"/"+input] || t.accepted[turn+".2/"+input]
}

func simOptions(truth **simTruth, st **store.Memory) sim.Options {
	return sim.Options{Setup: simSetup(truth, st), Workload: 4, LivenessTimeout: 5 * time.Minute,
		Swarm: sim.SwarmConfig{HealMin: 10 * time.Second, HealMax: 20 * time.Second}}
}

// TestSimCore runs Core against scripted Runtimes over many seeds with
// network faults and Core crashes.
func TestSimCore(t *testing.T) {
	var truth *simTruth
	var st *store.Memory
	opts := simOptions(&truth, &st)
	c := sim.NewCampaign()
	codes := map[string]int{}
	crashes, turns, retried, accepted, unknown := 0, 0, 0, 0, 0
	for seed := uint64(1); seed <= *simSeeds; seed++ {
		r := sim.Run(seed, opts)
		if r.Failed() || !r.Converged {
			require.Fail(t, fmt.Sprintf("seed %d: %v pending=%q\nschedule: %s\n%s", seed, r.Violations, r.Pending, r.Schedule, strings.Join(r.Tail, "\n")))
		}
		c.Add(r)
		crashes += truth.crashes
		for _, rec := range st.Turns() {
			turns++
			codes[string(rec.State)+"/"+rec.ErrorCode]++
			if rec.Retried {
				retried++
			}
			for _, in := range st.Inputs(rec.ID) {
				switch in.State {
				case core.InputAccepted:
					accepted++
				case core.InputUnknown:
					unknown++
				}
			}
		}
	}
	t.Logf("%d seeds, %d turns, %d Core restarts, %d retried starts, %d accepted and %d unknown inputs, outcomes %v, faults %v",
		*simSeeds, turns, crashes, retried, accepted, unknown, codes, c.Faults)
	require.True(t, crashes > 0 && retried > 0 && accepted > 0 && unknown > 0, "rare paths not reached")
	for _, want := range []string{"completed/", "cancelled/", "failed/engine_failed", "failed/capability_unsupported",
		"failed/input_outcome_unknown", "failed/delivery_unknown", "failed/event_stream_incomplete",
		"failed/cancel_unconfirmed", "failed/preparation_start_failed"} {
		require.True(t, codes[want] > 0, "outcome %s never reached: %v", want, codes)
	}
}

func TestSimCoreDeterministic(t *testing.T) {
	var truth *simTruth
	var st *store.Memory
	opts := simOptions(&truth, &st)
	for _, seed := range []uint64{3, 17} {
		a, b := sim.Run(seed, opts), sim.Run(seed, opts)
		require.Equal(t, a.Fingerprint, b.Fingerprint, "seed %d", seed)
	}
}

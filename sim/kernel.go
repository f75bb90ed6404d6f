package sim

import (
	"math/rand/v2"
	"slices"
	"time"
)

// slot holds one node: its factory, its current incarnation and its timers.
type slot struct {
	id       NodeID
	index    int32
	factory  Factory
	node     Node
	up       bool
	inc      uint32
	timers   map[TimerID]uint64 // armed timer -> generation
	timerGen uint64
	calls    map[CallID]uint32 // calls made by this node -> incarnation
}

// Kernel is one simulated universe: nodes, network, clock, queue, trace and
// checkers. A Setup function populates it; Run drives it. Every method must be
// called from Setup, from a Node's Step (through a captured *Kernel), from a
// fault handler or from a callback scheduled with At/After — never from
// another goroutine.
type Kernel struct {
	seed     uint64
	opts     Options
	workload int
	now      int64
	q        queue
	tr       *tracer
	describe func([]byte) string

	slots   []*slot
	index   map[NodeID]int32
	streams map[string]*rand.Rand
	draws   Draws // bytes that replace the first draws of named streams
	net     network

	checks []Check
	// afterSteps are the indexes in checks of those with an AfterStep,
	// in registration order (AddCheck, their only writer).
	afterSteps []int
	taps       []func(TapEvent)
	specs      []faultEntry
	converge   func() (bool, string)
	// convergeLazy replaces converge when set (convergence.go)
	convergeLazy func() (bool, func() string)
	marks        map[string]int

	stats      Stats
	step       uint64
	violations []Violation
	dumper     func(Violation) []string
	dump       []string // dumper's lines at the first violation
	started    bool
	healed     bool
	heal       int64
	stop       bool
	converged  bool
	pending    string
	pendingFn  func() string // builds pending, when set (convergence.go)
	healHooks  []func()

	lastNode    NodeID
	lastEvent   Event
	lastEffects []Effect
	view        View
}

// callsMax bounds the calls one incarnation of a node may have made.
const callsMax = 1 << 20

func newKernel(seed uint64, opts Options) *Kernel {
	w := &Kernel{
		seed:     seed,
		opts:     opts,
		q:        newQueue(opts.QueueMax),
		tr:       newTracer(opts.TraceTail, opts.TraceWriter, opts.KeepTrace),
		describe: opts.Describe,
		index:    map[NodeID]int32{},
		streams:  map[string]*rand.Rand{},
		marks:    map[string]int{},
	}
	w.view = View{w: w}
	w.stats.Faults = map[FaultKind]int{}
	w.net = newNetwork(w)
	return w
}

// Seed returns the run seed.
func (w *Kernel) Seed() uint64 { return w.seed }

// Workload returns the workload-size knob of this run (Options.Workload or
// the replayed schedule's value). Shrinking lowers it; Setup should scale the
// workload it creates by it.
func (w *Kernel) Workload() int { return w.workload }

// Now returns the current virtual time.
func (w *Kernel) Now() time.Time { return Epoch.Add(time.Duration(w.now)) }

// Rand returns the random stream named name, creating it on first use from
// the run seed and the name alone (see StreamSeed). Conventional names:
// "node:<id>", "workload", "harness". The kernel itself draws from
// "network", "swarm", "swarm:<kind>" and "faults:<kind>"; do not draw from
// those.
func (w *Kernel) Rand(name string) *rand.Rand {
	if r, ok := w.streams[name]; ok {
		return r
	}
	r := NewStream(w.seed, name)
	if b, ok := w.draws[name]; ok {
		r = newDrawStream(w.seed, name, b)
	}
	w.streams[name] = r
	return r
}

// AddNode registers a node (a machine or a service). It must be called from
// Setup. The factory runs at the start of the run and again on every Restart.
// Nodes start in registration order, all at Epoch.
func (w *Kernel) AddNode(id NodeID, f Factory) {
	assert.That(!w.started, "AddNode after the run started")
	assert.That(f != nil, "AddNode with a nil factory")
	_, dup := w.index[id]
	assert.That(!dup && id != "" && id != kernelName, "bad or duplicate node id %q", id)
	s := &slot{id: id, index: int32(len(w.slots)), factory: f, timers: map[TimerID]uint64{},
		calls: map[CallID]uint32{}}
	w.index[id] = s.index
	w.slots = append(w.slots, s)
}

// Nodes returns the node IDs in registration order.
func (w *Kernel) Nodes() []NodeID {
	out := make([]NodeID, len(w.slots))
	for i, s := range w.slots {
		out[i] = s.id
	}
	return out
}

// Node returns the current incarnation of id, or nil while it is down.
func (w *Kernel) Node(id NodeID) Node {
	s := w.slot(id)
	if s == nil || !s.up {
		return nil
	}
	return s.node
}

// Up reports whether id is running.
func (w *Kernel) Up(id NodeID) bool {
	s := w.slot(id)
	return s != nil && s.up
}

func (w *Kernel) slot(id NodeID) *slot {
	i, ok := w.index[id]
	if !ok {
		return nil
	}
	return w.slots[i]
}

// AtLeastLiveness raises the liveness deadline after heal to at least d,
// for a world whose seed draws a larger workload than its options knew.
// It must be called from Setup.
func (w *Kernel) AtLeastLiveness(d time.Duration) {
	assert.That(!w.started, "AtLeastLiveness after the run started")
	w.opts.LivenessTimeout = max(w.opts.LivenessTimeout, d)
}

// SetDump registers fn to render the state of every machine when the first
// violation is found: its lines end the trace (as "dump" lines) and
// Result.Dump. It must be called from Setup.
func (w *Kernel) SetDump(fn func(Violation) []string) {
	assert.That(!w.started, "SetDump after the run started")
	w.dumper = fn
}

// AddCheck registers a checker. Checkers run in registration order.
func (w *Kernel) AddCheck(c Check) {
	assert.That(c.Name != "", "check without a name")
	w.checks = append(w.checks, c)
	if c.AfterStep != nil {
		w.afterSteps = append(w.afterSteps, len(w.checks)-1)
	}
}

// SetConvergence sets the liveness predicate evaluated after every step once
// faults have healed. It returns ok, or a description of what is pending.
func (w *Kernel) SetConvergence(f func() (ok bool, pending string)) {
	w.converge, w.convergeLazy = f, nil
}

// At schedules fn at virtual instant at (clamped to now). label is traced
// when fn runs. Use it for workload arrivals and fault follow-ups.
func (w *Kernel) At(at time.Time, label string, fn func()) {
	assert.That(fn != nil, "At with a nil callback")
	t := max(int64(at.Sub(Epoch)), w.now)
	w.q.push(item{at: t, kind: itemFunc, fn: fn, text: label})
}

// After schedules fn d after now.
func (w *Kernel) After(d time.Duration, label string, fn func()) {
	w.At(w.Now().Add(d), label, fn)
}

// Inject queues ev for node id at the current instant, as if it came from
// outside the world (a workload request, an operator action).
func (w *Kernel) Inject(id NodeID, ev Event) {
	s := w.slot(id)
	assert.That(s != nil, "Inject to unknown node %q", id)
	w.q.push(item{at: w.now, kind: itemEvent, node: s.index, inc: s.inc, ev: ev})
}

// Note writes a kernel line to the trace.
func (w *Kernel) Note(text string) { w.tr.line(w.now, kernelName, "!!", text) }

// Crash stops node id: its volatile state is discarded, its timers and
// queued events are dropped, its connections break (each peer learns at its
// own time) and replies to its calls are dropped.
func (w *Kernel) Crash(id NodeID) {
	s := w.slot(id)
	assert.That(s != nil, "Crash of unknown node %q", id)
	if !s.up {
		w.Note("crash " + string(id) + " ignored (down)")
		return
	}
	w.Note("crash " + string(id))
	s.up = false
	s.node = nil
	s.timers = map[TimerID]uint64{}
	s.calls = map[CallID]uint32{}
	w.net.crash(s)
	w.stats.Crashes++
}

// Restart builds a new incarnation of id with its factory and delivers Start.
func (w *Kernel) Restart(id NodeID) {
	s := w.slot(id)
	assert.That(s != nil, "Restart of unknown node %q", id)
	if s.up {
		w.Note("restart " + string(id) + " ignored (up)")
		return
	}
	w.Note("restart " + string(id))
	w.boot(s)
}

func (w *Kernel) boot(s *slot) {
	s.inc++
	s.node = s.factory()
	assert.That(s.node != nil, "factory of %q returned nil", s.id)
	s.up = true
	w.q.push(item{at: w.now, kind: itemEvent, node: s.index, inc: s.inc,
		ev: Start{Incarnation: s.inc}})
}

// Sometimes counts one hit of a rare-state mark. Marks are reported per run
// in Result.Marks and aggregated per campaign by Campaign.
func (w *Kernel) Sometimes(name string) { w.marks[name]++ }

// Reachable counts one hit of a mark that a campaign expects to reach at
// least once (see Campaign.Missing). It counts exactly like Sometimes.
func (w *Kernel) Reachable(name string) { w.marks[name]++ }

// deliver hands ev to s and applies the effects it returns.
func (w *Kernel) deliver(s *slot, ev Event) {
	b := w.tr.begin(w.now, string(s.id), "<-")
	w.tr.end(w.appendEvent(b, ev))
	w.stats.Events++
	effects := s.node.Step(w.Now(), ev)
	w.lastNode, w.lastEvent, w.lastEffects = s.id, ev, effects
	for _, ef := range effects {
		b := w.tr.begin(w.now, string(s.id), "->")
		w.tr.end(w.appendEffect(b, ef))
		w.stats.Effects++
		if !s.up {
			continue // a Step cannot crash its own node, but a service may
		}
		w.apply(s, ef)
	}
}

func (w *Kernel) apply(s *slot, ef Effect) {
	switch e := ef.(type) {
	case Send:
		w.net.send(s, e)
	case SetTimer:
		s.timerGen++
		s.timers[e.Timer] = s.timerGen
		at := max(int64(e.At.Sub(Epoch)), w.now)
		w.q.push(item{at: at, kind: itemTimer, node: s.index, inc: s.inc,
			timer: e.Timer, gen: s.timerGen})
	case CancelTimer:
		delete(s.timers, e.Timer)
	case Close:
		w.net.close(s, e)
	case Dial:
		w.net.dial(s, e)
	case Call:
		w.applyCall(s, e)
	case Reply:
		w.applyReply(s, e)
	default:
		panic("sim: unknown effect type")
	}
}

func (w *Kernel) applyCall(s *slot, e Call) {
	t := w.slot(e.To)
	if t == nil || !t.up {
		w.Note("drop call " + string(s.id) + "->" + string(e.To) + " (service down)")
		return
	}
	s.calls[e.Call] = s.inc
	assert.That(len(s.calls) <= callsMax, "node %q made more than %d distinct calls", s.id, callsMax)
	w.q.push(item{at: w.now, kind: itemEvent, node: t.index, inc: t.inc,
		ev: CallReceived{From: s.id, Call: e.Call, Req: e.Req}})
}

func (w *Kernel) applyReply(s *slot, e Reply) {
	t := w.slot(e.To)
	if t == nil || !t.up {
		w.Note("drop reply " + string(s.id) + "->" + string(e.To) + " (caller gone)")
		return
	}
	inc, ok := t.calls[e.Call]
	if !ok || inc != t.inc {
		w.Note("drop reply " + string(s.id) + "->" + string(e.To) + " (caller gone)")
		return
	}
	w.q.push(item{at: w.now, kind: itemEvent, node: t.index, inc: inc,
		ev: CallReturned{From: s.id, Call: e.Call, Res: e.Res}})
}

// dispatch performs one popped item.
func (w *Kernel) dispatch(it item) {
	w.lastNode, w.lastEvent, w.lastEffects = "", nil, nil
	switch it.kind {
	case itemEvent:
		if s := w.live(it); s != nil {
			w.deliver(s, it.ev)
		}
	case itemTimer:
		s := w.live(it)
		if s == nil || s.timers[it.timer] != it.gen {
			return
		}
		delete(s.timers, it.timer)
		w.deliver(s, TimerFired{Timer: it.timer})
	case itemFrame:
		w.net.arrive(it)
	case itemOpened:
		w.net.opened(it)
	case itemClosed:
		w.net.closed(it)
	case itemDialFailed:
		if s := w.live(it); s != nil {
			w.deliver(s, it.ev)
		}
	case itemFunc:
		if it.text != "" {
			w.Note(it.text)
		}
		it.fn()
	default:
		panic("sim: unknown item kind")
	}
}

// live returns the target slot of it if the incarnation it was meant for is
// still running.
func (w *Kernel) live(it item) *slot {
	s := w.slots[it.node]
	if !s.up || s.inc != it.inc {
		return nil
	}
	return s
}

// sortedKeys returns the keys of m in order.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

const kernelName = "kernel"

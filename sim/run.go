package sim

import (
	"fmt"
	"io"
	"maps"
	"math"
	"strings"
	"time"
)

// Options configure a run. Only Setup is required.
type Options struct {
	// Setup populates the world: nodes, services, checks, caller fault kinds,
	// convergence predicate, workload. It runs before the schedule is drawn.
	Setup func(w *Kernel)
	// Schedule replays a stored schedule instead of drawing one from the seed.
	// It must be valid (Schedule.Validate): Run panics otherwise.
	Schedule *Schedule
	// Swarm bounds the swarm draws.
	Swarm SwarmConfig
	// Workload is the workload-size knob handed to Setup (Kernel.Workload);
	// ignored when Schedule is set (the schedule carries its own).
	Workload int
	// Draws replace the first draws of named streams (see Draws); ignored
	// when Schedule is set (the schedule carries its own).
	Draws Draws
	// LivenessTimeout is how long after the heal time the convergence
	// predicate may take to hold (default 60s of virtual time).
	LivenessTimeout time.Duration
	// NeverHeal keeps every fault active at the heal time active forever. It
	// exists to prove that the liveness phase fails; never use it otherwise.
	NeverHeal bool
	// Describe renders a frame for the trace (default: length and hex).
	Describe func(frame []byte) string
	// TraceTail is the number of trace lines kept in Result.Tail (default 64).
	TraceTail int
	// TraceWriter receives the full trace as it is written.
	TraceWriter io.Writer
	// KeepTrace keeps every trace line in Result.Trace (for the auditor).
	KeepTrace bool
	// QueueMax bounds the event queue (default 1<<20); overflow panics.
	QueueMax int
	// StepsMax bounds the number of steps (default 1<<26); hitting it is a
	// violation of the CheckStepsMax check.
	StepsMax uint64
}

// CheckStepsMax is the violation of a run that reached Options.StepsMax.
const CheckStepsMax = "steps_max"

func (o Options) withDefaults() Options {
	assert.That(o.Setup != nil, "Options.Setup is required")
	if o.LivenessTimeout == 0 {
		o.LivenessTimeout = 60 * time.Second
	}
	if o.TraceTail == 0 {
		o.TraceTail = 64
	}
	if o.QueueMax == 0 {
		o.QueueMax = 1 << 20
	}
	if o.StepsMax == 0 {
		o.StepsMax = 1 << 26
	}
	if o.Swarm.HealMin == 0 {
		o.Swarm.HealMin = 5 * time.Second
	}
	if o.Swarm.HealMax == 0 {
		o.Swarm.HealMax = max(30*time.Second, o.Swarm.HealMin)
	}
	if o.Swarm.Enable == (Ratio{}) {
		o.Swarm.Enable = Ratio{1, 2}
	}
	return o
}

// Check observes the world. AfterStep runs after every step, AtEnd once at
// the end of a run that had no violation; either may be nil. A non-nil error
// is a violation of the check Name, or, when the error is a
// *NamedViolation, of the check it names (one checker judging many rules,
// each reported under its own name). Checks must not change the world:
// they read it through View.
type Check struct {
	Name      string
	AfterStep func(v *View) error
	AtEnd     func(v *View) error
}

// NamedViolation is a violation a Check reports under the name of the rule
// it broke.
type NamedViolation struct{ Check, Message string }

func (v *NamedViolation) Error() string { return v.Check + ": " + v.Message }

// violation names what check c's error violated.
func (c *Check) violation(err error) (check, msg string) {
	if nv, ok := err.(*NamedViolation); ok {
		return nv.Check, nv.Message
	}
	return c.Name, err.Error()
}

// Violation is a failed check.
type Violation struct {
	Step    uint64        `json:"step"`
	At      time.Duration `json:"at"` // since Epoch
	Check   string        `json:"check"`
	Message string        `json:"message"`
}

func (v Violation) String() string {
	return fmt.Sprintf("step %d at %s: %s: %s", v.Step, FormatTime(Epoch.Add(v.At)), v.Check, v.Message)
}

// Stats counts what happened in a run.
type Stats struct {
	Steps           uint64
	Events          uint64 // events delivered to nodes
	Effects         uint64
	FramesDelivered uint64
	FramesLost      uint64
	FramesDropped   uint64 // best-effort frames whose Send.Budget ran out (TapDropped)
	FramesTooBig    uint64
	FramesForged    uint64 // frames a proxy put on the wire (sim/proxy.go)
	DialsRefused    uint64
	Crashes         uint64
	Faults          map[FaultKind]int // faults applied, per kind
	FaultsSkipped   uint64            // faults with no victim at their instant
	QueuePeak       int
	TraceLines      uint64
	End             time.Duration // virtual time at the end, since Epoch
}

// Result is the outcome of one run.
type Result struct {
	Seed        uint64
	Schedule    Schedule
	Fingerprint string // hex SHA-256 of the trace
	Violations  []Violation
	Stats       Stats
	Marks       map[string]int
	Converged   bool   // the convergence predicate held after heal
	Pending     string // the predicate's last reason when it did not hold
	Tail        []string
	Trace       []string // only with Options.KeepTrace
	// TraceErr is the first error of Options.TraceWriter, which then got no
	// further lines: the run itself and its Fingerprint are unaffected, but
	// the written trace is incomplete. Nil without a writer.
	TraceErr error
	// Dump is the state of every machine when the first violation was
	// found (Kernel.SetDump), also at the end of the trace.
	Dump []string
}

// Failed reports whether any check failed.
func (r Result) Failed() bool { return len(r.Violations) > 0 }

// FailedCheck returns the name of the first violated check, or "".
func (r Result) FailedCheck() string {
	if len(r.Violations) == 0 {
		return ""
	}
	return r.Violations[0].Check
}

// Report renders the run for a failure message: seed, swarm, outcome,
// fingerprint, counts, marks and the trace tail.
func (r Result) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "SEED=%d\n%s\n", r.Seed, r.Schedule)
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "VIOLATION %s\n", v)
	}
	if len(r.Violations) == 0 {
		fmt.Fprintf(&b, "ok converged=%v pending=%q\n", r.Converged, r.Pending)
	}
	if r.TraceErr != nil {
		fmt.Fprintf(&b, "TRACE INCOMPLETE %v\n", r.TraceErr)
	}
	fmt.Fprintf(&b, "fingerprint=%s steps=%d events=%d end=%s\n", r.Fingerprint, r.Stats.Steps,
		r.Stats.Events, FormatTime(Epoch.Add(r.Stats.End)))
	for _, k := range sortedKeys(r.Stats.Faults) {
		fmt.Fprintf(&b, "fault %s x%d\n", k, r.Stats.Faults[k])
	}
	for _, k := range sortedKeys(r.Marks) {
		fmt.Fprintf(&b, "mark %s x%d\n", k, r.Marks[k])
	}
	b.WriteString("trace tail:\n")
	for _, l := range r.Tail {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// Run executes one simulation from seed.
func Run(seed uint64, opts Options) Result {
	opts = opts.withDefaults()
	w := newKernel(seed, opts)
	w.workload, w.draws = opts.Workload, opts.Draws.clone()
	if opts.Schedule != nil {
		w.workload, w.draws = opts.Schedule.Workload, opts.Schedule.Draws.clone()
	}
	opts.Setup(w)
	var s Schedule
	if opts.Schedule != nil {
		s = opts.Schedule.clone()
		assert.That(s.Seed == seed, "schedule of seed %d replayed with seed %d", s.Seed, seed)
	} else {
		s = w.generate(opts.Swarm)
		s.Draws = w.draws.clone()
	}
	if err := s.Validate(); err != nil {
		panic(fmt.Sprintf("sim: invalid schedule (validate it with Schedule.Validate or ParseSchedule first): %v", err))
	}
	w.start(s)
	w.loop()
	return w.result(s)
}

// Replay runs a stored schedule with its own seed. Given the same Setup and
// options it reproduces the original run's fingerprint exactly. An invalid
// schedule (see Schedule.Validate) is a programmer error: Replay panics;
// schedules read from storage go through ParseSchedule, which returns it.
func Replay(s Schedule, opts Options) Result {
	opts.Schedule = &s
	return Run(s.Seed, opts)
}

func (w *Kernel) start(s Schedule) {
	assert.That(s.Network.LatencyMin >= 0 && s.Network.LatencyMin <= s.Network.LatencyMax, "bad latency range")
	assert.That(s.Network.DetectMax >= 0 && s.Heal >= 0, "bad schedule durations")
	w.net.cfg = s.Network
	w.started = true
	w.Note("swarm " + s.String())
	for _, sl := range w.slots {
		w.boot(sl)
	}
	known := w.allSpecs()
	for _, f := range s.Faults {
		if !knownKind(known, f.Kind) {
			assert.Failf("schedule has unknown fault kind %q", f.Kind)
		}
		w.q.push(item{at: int64(f.At), kind: itemFunc, fn: func() { w.inject(f) }})
	}
	w.heal = int64(s.Heal)
	w.q.push(item{at: w.heal, kind: itemFunc, fn: w.healNow})
}

func knownKind(specs []faultEntry, k FaultKind) bool {
	for _, e := range specs {
		if e.spec.Kind == k {
			return true
		}
	}
	return false
}

// OnHeal registers fn to run at the heal time (for example to restart
// crashed nodes). Hooks run in registration order.
func (w *Kernel) OnHeal(fn func()) { w.healHooks = append(w.healHooks, fn) }

// Healed reports whether the heal time has passed.
func (w *Kernel) Healed() bool { return w.healed }

func (w *Kernel) healNow() {
	w.healed = true
	if w.opts.NeverHeal {
		w.Note("heal skipped (never heal)")
		w.net.heal(true)
		return
	}
	w.Note("heal")
	w.net.heal(false)
	for _, fn := range w.healHooks {
		fn()
	}
}

func (w *Kernel) loop() {
	deadline := w.heal + min(int64(w.opts.LivenessTimeout), math.MaxInt64-w.heal)
	for !w.stop {
		if w.q.len() == 0 {
			w.settle("quiescent")
			return
		}
		at := w.q.peekAt()
		if at > deadline {
			w.now = deadline
			w.settle(fmt.Sprintf("not converged %s after heal", w.opts.LivenessTimeout))
			return
		}
		it := w.q.pop()
		if at < w.now { // not assertf: boxing its arguments would allocate per step
			panic(fmt.Sprintf("sim: assertion failed: time went backwards: %d < %d", at, w.now))
		}
		w.now = at
		w.step++
		w.dispatch(it)
		w.afterStep()
		if !w.stop && w.step >= w.opts.StepsMax {
			w.violate(CheckStepsMax, fmt.Sprintf("%d steps without finishing", w.step))
		}
	}
}

// settle ends a run that ran out of events or time: the convergence
// predicate must hold.
func (w *Kernel) settle(why string) {
	if !w.convergenceSet() {
		return
	}
	if w.evalConvergence() {
		w.converged = true
		return
	}
	w.violate("liveness", why+": "+w.pendingText())
}

func (w *Kernel) afterStep() {
	for _, i := range w.afterSteps { // the checks with an AfterStep, in order
		c := &w.checks[i]
		if err := c.AfterStep(&w.view); err != nil {
			w.violate(c.violation(err))
			return
		}
	}
	if w.healed && w.convergenceSet() {
		if w.evalConvergence() {
			w.converged = true
			w.Note("converged")
			w.stop = true
		}
	}
}

func (w *Kernel) violate(check, msg string) {
	v := Violation{Step: w.step, At: time.Duration(w.now), Check: check, Message: msg}
	w.violations = append(w.violations, v)
	w.Note("violation " + v.String())
	w.stop = true
	if len(w.violations) == 1 && w.dumper != nil {
		w.dump = w.dumper(v)
		for _, l := range w.dump {
			w.tr.line(w.now, "dump", "::", l)
		}
	}
}

func (w *Kernel) result(s Schedule) Result {
	if len(w.violations) == 0 {
		for i := range w.checks {
			c := &w.checks[i]
			if c.AtEnd == nil {
				continue
			}
			if err := c.AtEnd(&w.view); err != nil {
				w.violate(c.violation(err))
			}
		}
	}
	w.stats.Steps = w.step
	w.stats.QueuePeak = w.q.peak
	w.stats.TraceLines = w.tr.lines
	w.stats.End = time.Duration(w.now)
	return Result{
		Seed: w.seed, Schedule: s, Fingerprint: w.tr.fingerprint(), Violations: w.violations,
		Stats: w.stats, Marks: maps.Clone(w.marks), Converged: w.converged, Pending: w.pendingText(),
		Tail: w.tr.tail(), Trace: w.tr.keptLines(), TraceErr: w.tr.writeErr(), Dump: w.dump,
	}
}

// View is the read-only window checkers get on the world.
type View struct{ w *Kernel }

// Now returns the virtual time.
func (v *View) Now() time.Time { return v.w.Now() }

// Step returns the number of the step just taken.
func (v *View) Step() uint64 { return v.w.step }

// Node returns the current incarnation of id (nil while down). Checkers may
// read it but must not call Step or change it.
func (v *View) Node(id NodeID) Node { return v.w.Node(id) }

// Up reports whether id is running.
func (v *View) Up(id NodeID) bool { return v.w.Up(id) }

// Nodes returns the node IDs in registration order.
func (v *View) Nodes() []NodeID { return v.w.Nodes() }

// Healed reports whether faults have healed.
func (v *View) Healed() bool { return v.w.healed }

// Mark returns how often the named mark was hit so far.
func (v *View) Mark(name string) int { return v.w.marks[name] }

// Last returns the node, event and effects of the step just taken; the
// event is nil when that step delivered nothing to a node (a fault, a drop,
// a kernel callback).
func (v *View) Last() (NodeID, Event, []Effect) {
	return v.w.lastNode, v.w.lastEvent, v.w.lastEffects
}

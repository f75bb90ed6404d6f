package campaign

import (
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/linearize"
)

// Outcome is one run of the world under test: the kernel's result plus what
// the world checked beside it.
type Outcome struct {
	Result   sim.Result
	Lin      linearize.Result
	HTML     []byte   // porcupine visualization when Lin is Illegal
	Timeline []string // applied faults, in order
	Turns    int
	Inputs   int
	// Derived is what the seed drew about the world beside its schedule
	// (JSON-serializable; written to a bundle's options.json); nil if the
	// world tells nothing.
	Derived any
	// Skipped counts, by kind, faults the kernel counted as applied that
	// found no victim in the world; reports subtract them from the
	// injected counts and add them to "found no victim".
	Skipped map[sim.FaultKind]int
	// TimersDecided counts, by timer name (check.Timers), the outcomes
	// a timer's firing produced in the run; nil if the world tells none.
	TimersDecided map[string]int
}

// Runner is the world under test, configured once. Implementations must be
// safe for concurrent use when the shell runs seeds in parallel, and
// deterministic: the same seed always yields the same fingerprint.
type Runner interface {
	// Run executes seed.
	Run(seed uint64) Outcome
	// Replay executes a stored (possibly shrunk) schedule.
	Replay(s sim.Schedule) Outcome
	// Trace reruns seed (or replays s when it is not nil) keeping the full
	// trace in Result.Trace. Its fingerprint must equal Run's.
	Trace(seed uint64, s *sim.Schedule) sim.Result
	// Shrink minimises a failing outcome.
	Shrink(o Outcome) sim.ShrinkResult
}

// TraceKeeper is a Runner that can keep the full trace of a campaign run.
// RunSeed uses it for the first run of every seed, so that a determinism
// audit can name the first divergent line even when that first run is the
// odd one out.
type TraceKeeper interface {
	// RunKeepTrace is Run with Result.Trace kept; the fingerprint is Run's.
	RunKeepTrace(seed uint64) Outcome
}

// AuditEveryDefault is how often a passing seed is audited: every seed that
// is a multiple of it. Failing seeds are always audited.
const AuditEveryDefault = 50

// SeedOptions tune RunSeed.
type SeedOptions struct {
	// AuditEvery audits passing seeds that are multiples of it (default
	// AuditEveryDefault; negative: never).
	AuditEvery int
	// Wall reads a monotonic wall clock (the shell passes one); nil reads
	// zero, so reports carry no wall time.
	Wall func() time.Duration
}

// SeedRun is one seed's report with what the shell needs to write a
// failure bundle.
type SeedRun struct {
	Report  SeedReport
	Outcome Outcome
	// Trace is the full trace of the audit rerun (nil when not audited).
	Trace []string
}

// Failed reports whether the seed failed (a violation, an Illegal history
// or a determinism audit mismatch).
func (r SeedRun) Failed() bool { return r.Report.Failed() }

// RunSeed runs one seed and, when due, audits it. It is safe to call from
// several goroutines if the Runner is.
func RunSeed(r Runner, seed uint64, o SeedOptions) SeedRun {
	wall := o.Wall
	if wall == nil {
		wall = func() time.Duration { return 0 }
	}
	every := o.AuditEvery
	if every == 0 {
		every = AuditEveryDefault
	}
	start := wall()
	var out Outcome
	if k, ok := r.(TraceKeeper); ok {
		out = k.RunKeepTrace(seed)
	} else {
		out = r.Run(seed)
	}
	firstTrace := out.Result.Trace
	out.Result.Trace = nil
	run := SeedRun{Outcome: out, Report: NewSeedReport(out)}
	run.Report.WallMS = millis(wall() - start)
	if run.Report.Failed() || (every > 0 && seed%uint64(every) == 0) {
		run.Trace, run.Report.Audit = audit(r, seed, out.Result.Fingerprint, firstTrace)
	}
	return run
}

// audit reruns seed with its trace kept and compares fingerprints. On a
// mismatch it runs once more and compares all three runs, naming the first
// divergent line between the odd run and one of the others: two reruns
// that differ from each other are compared directly; when both agree but
// the campaign run differs, the campaign run's trace (firstTrace, kept by a
// TraceKeeper) is compared with a rerun's. Without that trace the audit can
// only say that the campaign run is the odd one out.
func audit(r Runner, seed uint64, first string, firstTrace []string) ([]string, *AuditReport) {
	a := r.Trace(seed, nil)
	rep := &AuditReport{Fingerprint: a.Fingerprint}
	if a.Fingerprint == first {
		return a.Trace, rep
	}
	rep.Diverged = true
	b := r.Trace(seed, nil)
	switch {
	case a.Fingerprint != b.Fingerprint && firstTrace != nil && b.Fingerprint == first:
		// The first traced rerun is the odd one out.
		rep.Detail = "the first traced rerun differs from the campaign run and a second rerun"
		rep.name(firstTrace, a.Trace, "campaign run", "rerun 1")
	case a.Fingerprint != b.Fingerprint:
		rep.Detail = "two traced reruns of the seed diverge"
		rep.name(a.Trace, b.Trace, "rerun 1", "rerun 2")
	case firstTrace != nil:
		rep.Detail = "the campaign run differs from two agreeing traced reruns"
		rep.name(firstTrace, a.Trace, "campaign run", "rerun 1")
	}
	if rep.Line == 0 && rep.Detail == "" {
		rep.Detail = "campaign run " + first + " differs from two agreeing traced reruns " + a.Fingerprint
	}
	return a.Trace, rep
}

// name records the first line where traces x and y differ.
func (a *AuditReport) name(x, y []string, xName, yName string) {
	if idx, lx, ly, ok := sim.FirstDivergence(x, y); ok {
		a.Line, a.LineA, a.LineB = idx+1, lx, ly
		a.Detail += " (A: " + xName + ", B: " + yName + ")"
	}
}

func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// RunPlan runs the seeds of p one after another and folds them into a
// summary, calling emit (if not nil) with each seed in order. The shell runs
// seeds in parallel instead; RunPlan is the sequential reference.
func RunPlan(r Runner, p Plan, o SeedOptions, emit func(SeedRun)) *Summary {
	s := NewSummary()
	for _, seed := range p.Seeds() {
		run := RunSeed(r, seed, o)
		s.Add(run.Report)
		if emit != nil {
			emit(run)
		}
	}
	return s
}

package campaign

import (
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// Outcome is one run of the world under test: the kernel's result plus what
// the world checked beside it.
type Outcome struct {
	Result   sim.Result
	Lin      check.LinearizeResult
	HTML     []byte   // porcupine visualization when Lin is Illegal
	Timeline []string // applied faults, in order
	Turns    int
	Inputs   int
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
	out := r.Run(seed)
	run := SeedRun{Outcome: out, Report: NewSeedReport(out)}
	run.Report.WallMS = millis(wall() - start)
	if run.Report.Failed() || (every > 0 && seed%uint64(every) == 0) {
		run.Trace, run.Report.Audit = audit(r, seed, out.Result)
	}
	return run
}

// audit reruns seed with its trace kept and compares fingerprints. On a
// mismatch it runs once more, so that the divergence can be named from two
// traces: the first divergent line of the two reruns when they differ, or,
// when both reruns agree with each other but not with the campaign run,
// the fact that the untraced run is the odd one out.
func audit(r Runner, seed uint64, first sim.Result) ([]string, *AuditReport) {
	a := r.Trace(seed, nil)
	rep := &AuditReport{Fingerprint: a.Fingerprint}
	if a.Fingerprint == first.Fingerprint {
		return a.Trace, rep
	}
	rep.Diverged = true
	b := r.Trace(seed, nil)
	idx, la, lb, ok := sim.FirstDivergence(a.Trace, b.Trace)
	if ok {
		rep.Line, rep.LineA, rep.LineB = idx+1, la, lb
		rep.Detail = "two traced reruns of the seed diverge"
		return a.Trace, rep
	}
	rep.Detail = "campaign run " + first.Fingerprint + " differs from two agreeing traced reruns " + a.Fingerprint
	return a.Trace, rep
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

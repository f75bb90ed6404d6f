package campaign

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
)

// fakeWall is a wall clock that moves step on every reading.
func fakeWall(step time.Duration) func() time.Duration {
	var now time.Duration
	return func() time.Duration { now += step; return now }
}

// firstSeed returns the first seed in [from, from+200) whose report
// satisfies ok.
func firstSeed(t *testing.T, r Runner, from uint64, ok func(SeedReport) bool) SeedRun {
	t.Helper()
	for s := from; s < from+200; s++ {
		if run := RunSeed(r, s, SeedOptions{AuditEvery: -1}); ok(run.Report) {
			return run
		}
	}
	t.Fatalf("no seed in [%d,%d) fits", from, from+200)
	return SeedRun{}
}

func TestRunSeedIsDeterministic(t *testing.T) {
	r := toyRunner{bug: true}
	for seed := uint64(1); seed <= 20; seed++ {
		a := RunSeed(r, seed, SeedOptions{AuditEvery: -1})
		b := RunSeed(r, seed, SeedOptions{AuditEvery: -1})
		if !reflect.DeepEqual(a.Report, b.Report) {
			t.Fatalf("seed %d reports differ:\n%+v\n%+v", seed, a.Report, b.Report)
		}
	}
}

func TestRunSeedReport(t *testing.T) {
	run := RunSeed(toyRunner{}, 7, SeedOptions{AuditEvery: -1, Wall: fakeWall(5 * time.Millisecond)})
	rep := run.Report
	res := run.Outcome.Result
	if rep.Seed != 7 || rep.Fingerprint != res.Fingerprint || len(rep.Fingerprint) != 64 {
		t.Fatalf("identity: %+v", rep)
	}
	if rep.WallMS != 5 {
		t.Fatalf("wall ms %v, want 5 (one fake clock step)", rep.WallMS)
	}
	if rep.Events != res.Stats.Events || rep.Events == 0 || rep.VirtualMS != res.Stats.End.Milliseconds() {
		t.Fatalf("counts: %+v vs %+v", rep, res.Stats)
	}
	if len(rep.Faults.Enabled) != len(res.Schedule.Enabled) || rep.Lin.Result != LinNone || rep.Failed() {
		t.Fatalf("faults/lin/failed: %+v", rep)
	}
	if rep.Marks["toy_resend"] != res.Marks["toy_resend"] {
		t.Fatalf("marks %v vs %v", rep.Marks, res.Marks)
	}
}

func TestRunSeedViolations(t *testing.T) {
	run := firstSeed(t, toyRunner{bug: true}, 1, SeedReport.Failed)
	v := run.Report.Violations[0]
	if v.Check != "applied_once" || !strings.Contains(v.Message, "applied 2 times") || v.Step == 0 ||
		v.Time == "" {
		t.Fatalf("violation %+v", v)
	}
	if run.Report.FirstCheck() != "applied_once" {
		t.Fatalf("first check %q", run.Report.FirstCheck())
	}
}

func TestAuditFailingAndEveryFiftiethSeed(t *testing.T) {
	r := toyRunner{bug: true}
	failing := firstSeed(t, r, 1, SeedReport.Failed).Report.Seed
	for _, tc := range []struct {
		seed    uint64
		audited bool
	}{{failing, true}, {50, true}, {100, true}} {
		run := RunSeed(r, tc.seed, SeedOptions{})
		if (run.Report.Audit != nil) != tc.audited {
			t.Fatalf("seed %d audited=%v", tc.seed, run.Report.Audit != nil)
		}
		a := run.Report.Audit
		if a.Diverged || a.Fingerprint != run.Report.Fingerprint || len(run.Trace) == 0 {
			t.Fatalf("seed %d audit %+v", tc.seed, a)
		}
	}
	passing := firstSeed(t, r, 51, func(s SeedReport) bool { return !s.Failed() }).Report.Seed
	if RunSeed(r, passing, SeedOptions{}).Report.Audit != nil {
		t.Fatalf("passing seed %d should not be audited", passing)
	}
	if RunSeed(r, passing, SeedOptions{AuditEvery: 1}).Report.Audit == nil {
		t.Fatalf("AuditEvery 1 audits every seed")
	}
}

func TestAuditNamesFirstDivergentLine(t *testing.T) {
	noise := 0
	run := RunSeed(toyRunner{noise: &noise}, 50, SeedOptions{})
	a := run.Report.Audit
	if a == nil || !a.Diverged || !run.Failed() || run.Report.FirstCheck() != "determinism" {
		t.Fatalf("nondeterministic seed not flagged: %+v", run.Report)
	}
	if a.Line < 1 || !strings.Contains(a.LineA, "noise 2") || !strings.Contains(a.LineB, "noise 3") {
		t.Fatalf("divergence %+v", a)
	}
	if s := a.String(); !strings.Contains(s, "NONDETERMINISTIC") || !strings.Contains(s, "noise 3") {
		t.Fatalf("audit string %q", s)
	}
}

func TestSeedReportLineRoundTrip(t *testing.T) {
	run := firstSeed(t, toyRunner{bug: true}, 1, SeedReport.Failed)
	rep := RunSeed(toyRunner{bug: true}, run.Report.Seed, SeedOptions{Wall: fakeWall(time.Millisecond)}).Report
	line := MarshalLine(rep)
	if strings.Contains(string(line), "\n") {
		t.Fatal("a line must not contain a newline")
	}
	h, back, err := ParseLine(line)
	if err != nil || h != nil || !reflect.DeepEqual(*back, rep) {
		t.Fatalf("round trip: %v %v\n%s", err, back, line)
	}
	for _, key := range []string{`"seed":`, `"fingerprint":`, `"faults":{"enabled":`, `"applied":`,
		`"marks":`, `"violations":[{"check":"applied_once"`, `"events":`, `"virtual_ms":`,
		`"wall_ms":1`, `"lin":{"result":"none"`, `"audit":{`} {
		if !strings.Contains(string(line), key) {
			t.Errorf("line lacks %s: %s", key, line)
		}
	}
	hdr := NewHeader(Plan{First: 1, Count: 10, Shard: Shard{1, 2}}, Config{Devices: 2}, "abc")
	h, back, err = ParseLine(MarshalLine(hdr))
	if err != nil || back != nil || !reflect.DeepEqual(*h, hdr) {
		t.Fatalf("header round trip: %v %+v", err, h)
	}
	if _, _, err := ParseLine([]byte(`{"other":1}`)); err == nil {
		t.Fatal("a line without header or seed must fail")
	}
}

// oddRunner's campaign run differs from its traced reruns, which agree.
type oddRunner struct{ toyRunner }

func (o oddRunner) Run(seed uint64) Outcome {
	opts := o.options()
	setup := opts.Setup
	opts.Setup = func(w *sim.Kernel) { w.Note("odd"); setup(w) }
	return Outcome{Result: sim.Run(seed, opts)}
}

func TestAuditFlagsARunThatDiffersFromAgreeingReruns(t *testing.T) {
	run := RunSeed(oddRunner{}, 100, SeedOptions{})
	a := run.Report.Audit
	if a == nil || !a.Diverged || a.Line != 0 || !strings.Contains(a.Detail, "two agreeing traced reruns") ||
		!strings.Contains(a.String(), "NONDETERMINISTIC: campaign run ") {
		t.Fatalf("audit %+v", a)
	}
}

// keeperRunner is an oddRunner that keeps the campaign run's trace.
type keeperRunner struct{ oddRunner }

func (k keeperRunner) RunKeepTrace(seed uint64) Outcome {
	opts := k.options()
	setup := opts.Setup
	opts.Setup = func(w *sim.Kernel) { w.Note("odd"); setup(w) }
	opts.KeepTrace = true
	return Outcome{Result: sim.Run(seed, opts)}
}

// Regression: the determinism audit compared reruns only; it names the first
// line where the campaign run's kept trace differs from two agreeing
// reruns, and then drops that trace.
func TestAuditNamesTheLineWhenTheCampaignRunIsOdd(t *testing.T) {
	run := RunSeed(keeperRunner{}, 100, SeedOptions{})
	a := run.Report.Audit
	if a == nil || !a.Diverged || a.Line < 1 || !strings.Contains(a.LineA, "odd") ||
		!strings.Contains(a.Detail, "campaign run differs from two agreeing traced reruns") {
		t.Fatalf("audit %+v", a)
	}
	if run.Outcome.Result.Trace != nil {
		t.Fatal("the campaign run's trace must not be held after the audit")
	}
}

// firstRerunOdd's first traced rerun differs from every other run.
type firstRerunOdd struct {
	toyRunner
	traces *int
}

func (f firstRerunOdd) RunKeepTrace(seed uint64) Outcome {
	o := f.options()
	o.KeepTrace = true
	return Outcome{Result: sim.Run(seed, o)}
}

func (f firstRerunOdd) Trace(seed uint64, s *sim.Schedule) sim.Result {
	*f.traces++
	o := f.options()
	o.KeepTrace = true
	if *f.traces == 1 {
		setup := o.Setup
		o.Setup = func(w *sim.Kernel) { w.Note("odd rerun"); setup(w) }
	}
	return sim.Run(seed, o)
}

// When the first traced rerun is the odd one, the audit names its line.
func TestAuditNamesTheLineWhenTheFirstRerunIsOdd(t *testing.T) {
	n := 0
	a := RunSeed(firstRerunOdd{traces: &n}, 50, SeedOptions{}).Report.Audit
	if a == nil || !a.Diverged || a.Line < 1 || !strings.Contains(a.LineB, "odd rerun") ||
		!strings.Contains(a.Detail, "first traced rerun differs") {
		t.Fatalf("audit %+v", a)
	}
}

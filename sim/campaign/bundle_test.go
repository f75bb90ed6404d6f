package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
)

func bundleFiles(files []File) map[string]string {
	m := map[string]string{}
	for _, f := range files {
		m[f.Name] = string(f.Data)
	}
	return m
}

func TestBundleOfFailingSeed(t *testing.T) {
	r := toyRunner{bug: true}
	run := firstSeed(t, r, 1, SeedReport.Failed)
	seed := run.Report.Seed
	cfg := Config{Devices: 2}
	files := bundleFiles(Bundle(r, run, BundleOptions{Dir: BundleDir("out/sim", seed), Config: cfg, Commit: "c0ffee"}))
	for _, name := range []string{"options.json", "faults.txt", "violation.txt", "trace.txt", "fingerprint",
		"shrunk.json", "replay.txt"} {
		if files[name] == "" {
			t.Errorf("bundle lacks %s", name)
		}
	}
	if _, ok := files["lin.html"]; ok {
		t.Error("lin.html without an Illegal history")
	}
	sum := sha256.Sum256([]byte(files["trace.txt"]))
	if hex.EncodeToString(sum[:]) != run.Report.Fingerprint || files["fingerprint"] != run.Report.Fingerprint+"\n" {
		t.Fatal("trace.txt must hash to the fingerprint")
	}
	if !strings.Contains(files["violation.txt"], "first violated check: applied_once") {
		t.Fatalf("violation.txt:\n%s", files["violation.txt"])
	}
	if !strings.Contains(files["faults.txt"], "enabled kinds") || !strings.Contains(files["faults.txt"], "scheduled faults") {
		t.Fatalf("faults.txt:\n%s", files["faults.txt"])
	}
	dir := BundleDir("out/sim", seed)
	wantReplay := ReplayCommand(seed, cfg) + "\n" + ReplayScheduleCommand(dir+"/shrunk.json") + "\n"
	if files["replay.txt"] != wantReplay || !strings.Contains(wantReplay, "-seed ") ||
		!strings.Contains(wantReplay, " -devices 2") {
		t.Fatalf("replay.txt %q", files["replay.txt"])
	}

	opts, err := ParseCase([]byte(files["options.json"]))
	if err != nil || opts.Seed != seed || opts.Commit != "c0ffee" || opts.Config.Devices != 2 {
		t.Fatalf("options.json: %v %+v", err, opts)
	}
	if got := r.Replay(opts.Schedule).Result.Fingerprint; got != run.Report.Fingerprint {
		t.Fatalf("options.json replays to %s, want %s", got, run.Report.Fingerprint)
	}
	shrunk, err := ParseCase([]byte(files["shrunk.json"]))
	if err != nil || shrunk.Check != "applied_once" || !strings.Contains(shrunk.Note, "shrunk in") ||
		!strings.Contains(shrunk.Note, "; enabled kinds: ") {
		t.Fatalf("shrunk.json: %v %+v", err, shrunk)
	}
	if len(shrunk.Schedule.Faults) > 0 && !strings.Contains(shrunk.Note, "enabled kinds: only those its faults use (") {
		t.Fatalf("the shrunk case's note must say its enabled kinds are only those it uses: %s", shrunk.Note)
	}
	again := r.Replay(shrunk.Schedule).Result
	if again.FailedCheck() != "applied_once" || again.Fingerprint != shrunk.Fingerprint {
		t.Fatalf("shrunk schedule replays to %q %s", again.FailedCheck(), again.Fingerprint)
	}
	if len(shrunk.Schedule.Faults) > len(opts.Schedule.Faults) {
		t.Fatal("shrinking grew the schedule")
	}
}

func TestBundleIncludesLinHTMLAndRerunsForTrace(t *testing.T) {
	r := htmlRunner{toyRunner{}}
	run := RunSeed(r, 3, SeedOptions{AuditEvery: -1})
	if !run.Failed() || run.Report.Audit == nil || run.Trace == nil {
		t.Fatalf("an Illegal history fails the seed and is audited: %+v", run.Report)
	}
	want := strings.Join(run.Trace, "\n") + "\n"
	run.Trace = nil // as if loaded from a report: the bundle reruns for the trace
	files := bundleFiles(Bundle(r, run, BundleOptions{Dir: "d"}))
	if files["lin.html"] != "<html>" || files["trace.txt"] != want {
		t.Fatalf("files %v", files)
	}
	if _, ok := files["shrunk.json"]; ok {
		t.Fatal("no violation, nothing to shrink")
	}
	if !strings.Contains(files["violation.txt"], "linearizability: illegal (turn s1/t1)") {
		t.Fatalf("violation.txt:\n%s", files["violation.txt"])
	}
}

// htmlRunner reports every history as Illegal with a visualization.
type htmlRunner struct{ toyRunner }

func (h htmlRunner) Run(seed uint64) Outcome {
	o := h.toyRunner.Run(seed)
	o.Lin.Result, o.Lin.Illegal, o.HTML = "Illegal", []string{"turn s1/t1"}, []byte("<html>")
	return o
}

func TestCaseRoundTrip(t *testing.T) {
	res := sim.Run(9, toyRunner{}.options())
	c := Case{Seed: 9, Config: Config{Turns: 4}, Commit: "abc", Fingerprint: res.Fingerprint, Schedule: res.Schedule}
	back, err := ParseCase(c.Marshal())
	if err != nil || back.Fingerprint != c.Fingerprint || back.Config.Turns != 4 ||
		string(back.Schedule.MarshalIndent()) != string(res.Schedule.MarshalIndent()) {
		t.Fatalf("%v %+v", err, back)
	}
	bare, err := ParseCase(res.Schedule.MarshalIndent())
	if err != nil || bare.Seed != 9 || !bare.Bare || back.Bare || bare.Schedule.Workload != res.Schedule.Workload {
		t.Fatalf("bare schedule: %v %+v", err, bare)
	}
	c.Seed = 10
	if _, err := ParseCase(c.Marshal()); err == nil {
		t.Fatal("seed mismatch must fail")
	}
	if _, err := ParseCase([]byte(`{"seed":1,"schedule":{"seed":1},"surprise":true}`)); err == nil {
		t.Fatal("unknown field must fail")
	}
	c.Seed, c.Schedule = 9, res.Schedule
	c.Schedule.Faults = append(c.Schedule.Faults[:0:0], res.Schedule.Faults...)
	c.Schedule.Faults = append(c.Schedule.Faults, sim.Fault{At: res.Schedule.Heal + time.Second, Kind: sim.FaultConnLoss})
	if _, err := ParseCase(c.Marshal()); !errors.Is(err, sim.ErrScheduleFaultAfterHeal) {
		t.Fatalf("a fault after heal must be refused by name, got %v", err)
	}
}

func TestCaseKeepsEachFaultOnOneLine(t *testing.T) {
	res := sim.Run(11, toyRunner{}.options())
	if len(res.Schedule.Faults) < 2 {
		t.Fatalf("seed 11 should schedule faults: %s", res.Schedule)
	}
	c := Case{Seed: 11, Note: `quote " and \ and <tag>`, Schedule: res.Schedule}
	text := string(c.Marshal())
	if !strings.HasPrefix(text, "{\n  \"seed\": 11,\n  \"config\": {\n    \"devices\": 0,") ||
		!strings.Contains(text, `"note": "quote \" and \\ and <tag>",`) {
		t.Fatalf("layout:\n%s", text)
	}
	for _, f := range res.Schedule.Faults {
		if !strings.Contains(text, "\n      {\"at\":\""+f.At.String()+"\",\"kind\":\""+string(f.Kind)+"\"") {
			t.Fatalf("fault %v not on its own line:\n%s", f, text)
		}
	}
	back, err := ParseCase([]byte(text))
	if err != nil || back.Note != c.Note || string(back.Marshal()) != text {
		t.Fatalf("round trip: %v", err)
	}
}

// flakyRunner fails a check on its campaign run that its replays do not.
type flakyRunner struct {
	toyRunner
	panicShrink bool
}

func (f flakyRunner) Run(seed uint64) Outcome {
	o := f.toyRunner.Run(seed)
	o.Result.Violations = append(o.Result.Violations, sim.Violation{Check: "flaky", Message: "once"})
	o.Derived = map[string]int{"devices": 2}
	return o
}

func (f flakyRunner) Replay(s sim.Schedule) Outcome {
	o := f.toyRunner.Replay(s)
	if f.panicShrink {
		o.Result.Violations = append(o.Result.Violations, sim.Violation{Check: "flaky", Message: "again"})
	}
	return o
}

func (f flakyRunner) Shrink(o Outcome) sim.ShrinkResult {
	if f.panicShrink {
		panic("shrunk schedule no longer fails")
	}
	return f.toyRunner.Shrink(o)
}

// Regression: a failure its replay did not reproduce was still shrunk; the
// bundle says why the shrink was skipped (not flaky, or the shrinker
// panicked), and options.json carries the derived section.
func TestBundleSkipsAShrinkThatDoesNotReproduce(t *testing.T) {
	for _, tc := range []struct {
		r    flakyRunner
		want string
	}{
		{flakyRunner{}, "shrink skipped: the replay of the failing schedule failed no check, not flaky"},
		{flakyRunner{panicShrink: true}, "shrink skipped: the shrinker panicked: shrunk schedule no longer fails"},
	} {
		run := RunSeed(tc.r, 4, SeedOptions{AuditEvery: -1})
		files := Bundle(tc.r, run, BundleOptions{Dir: "out/seed-4"})
		got := bundleFiles(files)
		if _, ok := got["shrunk.json"]; ok || !strings.HasPrefix(got["shrink.txt"], tc.want) {
			t.Errorf("shrink.txt %q, want %q", got["shrink.txt"], tc.want)
		}
		if BundleShrinkNote(files) != strings.TrimSpace(got["shrink.txt"]) || strings.Contains(got["replay.txt"], "shrunk.json") {
			t.Errorf("note %q replay %q", BundleShrinkNote(files), got["replay.txt"])
		}
		if !strings.Contains(got["options.json"], "\"derived\": {\n    \"devices\": 2") {
			t.Errorf("options.json lacks the derived section:\n%s", got["options.json"])
		}
		if _, err := ParseCase([]byte(got["options.json"])); err != nil {
			t.Errorf("options.json must stay a readable case: %v", err)
		}
	}
}

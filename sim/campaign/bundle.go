package campaign

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/sim"
)

// File is one file of a failure bundle.
type File struct {
	Name string
	Data []byte
}

// BundleOptions say where a bundle goes and what produced it.
type BundleOptions struct {
	// Dir is the bundle's folder as the user will type it (for example
	// "out/sim/seed-17"); it appears in replay.txt. Files are named
	// relative to it.
	Dir    string
	Config Config
	Commit string
}

// BundleDir is the folder of seed's bundle under out.
func BundleDir(out string, seed uint64) string {
	return path.Join(out, fmt.Sprintf("seed-%d", seed))
}

// Bundle builds the report folder of a failing seed: options.json (the
// configuration and everything derived from the seed, as a replayable Case),
// faults.txt, violation.txt, trace.txt, fingerprint, lin.html (when the
// history was Illegal), shrunk.json (when a check failed) and replay.txt.
// It reruns the seed for the trace unless run already holds it, and shrinks.
func Bundle(r Runner, run SeedRun, o BundleOptions) []File {
	rep, res := run.Report, run.Outcome.Result
	c := Case{Seed: rep.Seed, Config: o.Config, Commit: o.Commit, Check: rep.FirstCheck(),
		Fingerprint: rep.Fingerprint, Schedule: res.Schedule, Derived: derivedJSON(run.Outcome.Derived),
		Note: "the failing run's schedule as drawn from the seed"}
	trace := run.Trace
	if trace == nil {
		trace = r.Trace(rep.Seed, nil).Trace
	}
	files := []File{
		{"options.json", c.Marshal()},
		{"faults.txt", faultsText(run)},
		{"violation.txt", violationText(rep, res.Dump)},
		{"trace.txt", traceText(trace, res.Dump)},
		{"fingerprint", []byte(rep.Fingerprint + "\n")},
	}
	if len(run.Outcome.HTML) > 0 {
		files = append(files, File{"lin.html", run.Outcome.HTML})
	}
	replay := ReplayCommand(rep.Seed, o.Config) + "\n"
	if len(res.Violations) > 0 {
		if data, skipped := shrunk(r, run, o); skipped == "" {
			files = append(files, File{"shrunk.json", data})
			replay += ReplayScheduleCommand(path.Join(o.Dir, "shrunk.json")) + "\n"
		} else {
			files = append(files, File{"shrink.txt", []byte(ShrinkSkipped + skipped + "\n")})
		}
	}
	return append(files, File{"replay.txt", []byte(replay)})
}

// ShrinkSkipped starts the note a bundle carries (in shrink.txt) instead of
// shrunk.json when the failure could not be shrunk.
const ShrinkSkipped = "shrink skipped: "

// BundleShrinkNote is the reason a bundle's shrink was skipped ("" when
// shrunk.json was written or no shrink was due).
func BundleShrinkNote(files []File) string {
	for _, f := range files {
		if f.Name == "shrink.txt" {
			return strings.TrimSpace(string(f.Data))
		}
	}
	return ""
}

// shrunk shrinks a failing run, or says why it did not: the failing
// schedule must fail the same check again on replay (the shrinker asserts
// that it does), and a shrinker that panics all the same is reported, not
// propagated.
func shrunk(r Runner, run SeedRun, o BundleOptions) (data []byte, skipped string) {
	want := run.Outcome.Result.FailedCheck()
	again := r.Replay(run.Outcome.Result.Schedule)
	if got := again.Result.FailedCheck(); got != want {
		if got == "" {
			got = "no check"
		}
		why := fmt.Sprintf("the replay of the failing schedule failed %s, not %s", got, want)
		if again.Lin.Result != "" && again.Lin.Result != run.Outcome.Lin.Result {
			why += fmt.Sprintf(" (linearizability %s on replay)", again.Lin.Result)
		}
		return nil, why
	}
	defer func() {
		if p := recover(); p != nil {
			data, skipped = nil, fmt.Sprintf("the shrinker panicked: %v", p)
		}
	}()
	c, _, _ := ShrinkCase(r, run.Outcome, o.Config, o.Commit)
	return c.Marshal(), ""
}

// derivedJSON renders a world's derived description for options.json.
func derivedJSON(d any) json.RawMessage {
	if d == nil {
		return nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return json.RawMessage(strconv.Quote("unrenderable: " + err.Error()))
	}
	return b
}

// ShrinkCase shrinks a failing outcome and returns the shrunk schedule as a
// Case, with the shrink statistics and the replay of the shrunk schedule.
// The case records the replay's check and fingerprint: the world may shrink
// with a differently instrumented setup, so the shrinker's own fingerprint
// need not be what Runner.Replay reproduces.
func ShrinkCase(r Runner, o Outcome, cfg Config, commit string) (Case, sim.ShrinkResult, Outcome) {
	s := r.Shrink(o)
	again := r.Replay(s.Schedule)
	check := again.Result.FailedCheck()
	if check == "" {
		check = s.Check
	}
	c := Case{Seed: o.Result.Seed, Config: cfg, Commit: commit, Check: check,
		Fingerprint: again.Result.Fingerprint, Schedule: s.Schedule,
		Note: fmt.Sprintf("shrunk in %d replays: faults %d to %d, workload %d to %d; enabled kinds: %s",
			s.Runs, s.FaultsBefore, s.FaultsAfter, s.WorkBefore, s.WorkAfter, enabledNote(s.Schedule))}
	return c, s, again
}

// enabledNote names the enabled kinds of a shrunk schedule (only those its
// faults still use).
func enabledNote(s sim.Schedule) string {
	if len(s.Enabled) == 0 {
		return "none (no fault left)"
	}
	names := make([]string, len(s.Enabled))
	for i, k := range s.Enabled {
		names[i] = string(k.Kind)
	}
	return "only those its faults use (" + strings.Join(names, ", ") + ")"
}

func faultsText(run SeedRun) []byte {
	var b strings.Builder
	s := run.Outcome.Result.Schedule
	fmt.Fprintf(&b, "schedule: %s\n", s)
	fmt.Fprintf(&b, "enabled kinds (mean gap):\n")
	for _, k := range s.Enabled {
		n, skipped := run.Outcome.Result.Stats.Faults[k.Kind], run.Outcome.Skipped[k.Kind]
		fmt.Fprintf(&b, "  %-30s gap=%s injected=%d", k.Kind, k.Gap, n-skipped)
		if skipped > 0 {
			fmt.Fprintf(&b, " no-victim=%d", skipped)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "scheduled faults (%d, heal at %s):\n", len(s.Faults), sim.FormatTime(sim.Epoch.Add(s.Heal)))
	for _, f := range s.Faults {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	fmt.Fprintf(&b, "applied timeline (%d):\n", len(run.Outcome.Timeline))
	for _, line := range run.Outcome.Timeline {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	return []byte(b.String())
}

// traceText is the trace, ending with the state dump: the kernel traces it
// at an in-run violation; a violation found after the run (linearizability)
// gets it appended here, marked as not part of the fingerprinted trace.
func traceText(trace, dump []string) []byte {
	text := strings.Join(trace, "\n") + "\n"
	if len(dump) > 0 && !strings.Contains(text, " dump :: "+dump[0]) {
		text += "# state at the end of the run (not part of the fingerprinted trace):\n"
		for _, l := range dump {
			text += "# dump :: " + l + "\n"
		}
	}
	return []byte(text)
}

func violationText(rep SeedReport, dump []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "SEED=%d fingerprint=%s\n", rep.Seed, rep.Fingerprint)
	if len(rep.Violations) > 0 {
		v := rep.Violations[0]
		fmt.Fprintf(&b, "first violated check: %s at step %d, %s\n  %s\n", v.Check, v.Step, v.Time, v.Message)
	}
	for _, v := range rep.Violations[min(1, len(rep.Violations)):] {
		fmt.Fprintf(&b, "also: %s at step %d, %s: %s\n", v.Check, v.Step, v.Time, v.Message)
	}
	if rep.Pending != "" {
		fmt.Fprintf(&b, "pending after heal: %s\n", rep.Pending)
	}
	fmt.Fprintf(&b, "linearizability: %s", rep.Lin.Result)
	if len(rep.Lin.Illegal) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(rep.Lin.Illegal, ", "))
	}
	b.WriteString("\n")
	if rep.Audit != nil {
		fmt.Fprintf(&b, "determinism audit: %s\n", rep.Audit)
	}
	if len(dump) > 0 {
		b.WriteString("\n")
		for _, l := range dump {
			fmt.Fprintf(&b, "dump :: %s\n", l)
		}
	}
	return []byte(b.String())
}

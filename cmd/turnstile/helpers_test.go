package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/world"
)

// cli runs one command line in-process with a fixed clock, so that wall
// times are zero and outputs of equal campaigns are byte-identical.
type cli struct {
	t         *testing.T
	newRunner func(campaign.Config) campaign.Runner
	// fresh is the first seed a campaign without -first draws (1 when
	// zero), so outputs stay comparable; TestSimFreshSeeds draws for real.
	fresh uint64
	// now, when set, is the wall clock (default: fixed at the Unix epoch).
	now func() time.Time
	// markNeeds, when set, replaces the world's map of marks to kinds.
	markNeeds func(check.Mark) ([]sim.FaultKind, bool)
}

func (c cli) run(args ...string) (int, string, string) {
	c.t.Helper()
	var out, errOut bytes.Buffer
	sh := newShell(&out, &errOut)
	sh.now = func() time.Time { return time.Unix(0, 0) }
	if c.now != nil {
		sh.now = c.now
	}
	if c.markNeeds != nil {
		sh.markNeeds = c.markNeeds
	}
	sh.commit = func() string { return "test-commit" }
	sh.fresh = func() uint64 { return max(c.fresh, 1) }
	sh.commandLine = append([]string{"turnstile"}, args...)
	if c.newRunner != nil {
		sh.newRunner = c.newRunner
	}
	code := sh.main(args)
	return code, out.String(), errOut.String()
}

// summaryBlock returns the summary of a command's output: from the line
// "summary" to the end.
func summaryBlock(t *testing.T, s string) string {
	t.Helper()
	i := strings.Index(s, "summary\n")
	if i < 0 {
		t.Fatalf("no summary in:\n%s", s)
	}
	return s[i:]
}

// jsonLines parses a sim -json stdout.
func jsonLines(t *testing.T, out string) (campaign.Header, []campaign.SeedReport) {
	t.Helper()
	var hdr *campaign.Header
	var reps []campaign.SeedReport
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		h, rep, err := campaign.ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		if (i == 0) != (h != nil) {
			t.Fatalf("line %d: the header must come first and only first: %s", i+1, line)
		}
		if h != nil {
			hdr = h
			continue
		}
		reps = append(reps, *rep)
	}
	return *hdr, reps
}

// plantedCheck fails whenever Core starts a second incarnation: with only
// core_crash faults enabled it fails exactly the seeds whose swarm enabled
// them, and shrinking must keep one crash.
const plantedCheck = "core_restarted"

// plantedRunner is the real world plus the planted check, run through the
// kernel (without the linearizability pass).
type plantedRunner struct{ opts sim.Options }

func newPlantedRunner(c campaign.Config) campaign.Runner {
	opts := world.Options(world.Config{Devices: c.Devices, Turns: c.Turns, Faults: c.Faults})
	setup := opts.Setup
	opts.Setup = func(w *sim.Kernel) {
		setup(w)
		w.AddCheck(sim.Check{Name: plantedCheck, AfterStep: func(v *sim.View) error {
			id, ev, _ := v.Last()
			if st, ok := ev.(sim.Start); ok && id == "core" && st.Incarnation > 1 {
				return fmt.Errorf("core restarted (incarnation %d)", st.Incarnation)
			}
			return nil
		}})
	}
	return plantedRunner{opts: opts}
}

func (p plantedRunner) Run(seed uint64) campaign.Outcome {
	return campaign.Outcome{Result: sim.Run(seed, p.opts)}
}

func (p plantedRunner) Replay(s sim.Schedule) campaign.Outcome {
	o := p.opts
	o.Schedule = &s
	return campaign.Outcome{Result: sim.Run(s.Seed, o)}
}

func (p plantedRunner) Trace(seed uint64, s *sim.Schedule) sim.Result {
	o := p.opts
	o.KeepTrace = true
	o.Schedule = s
	return sim.Run(seed, o)
}

func (p plantedRunner) Shrink(o campaign.Outcome) sim.ShrinkResult {
	return sim.Shrink(o.Result, p.opts)
}

// plantedFailingSeed returns the first seed the planted check fails with
// only core crashes enabled.
func plantedFailingSeed(t *testing.T) uint64 {
	t.Helper()
	r := newPlantedRunner(campaign.Config{Faults: []sim.FaultKind{"core_crash"}})
	for s := uint64(1); s <= 40; s++ {
		if r.Run(s).Result.FailedCheck() == plantedCheck {
			return s
		}
	}
	t.Fatal("no seed in 1..40 restarts Core")
	return 0
}

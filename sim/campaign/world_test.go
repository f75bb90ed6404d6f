package campaign

import (
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/world"
)

// worldRunner runs the full-stack world, as cmd/turnstile does.
type worldRunner struct{ cfg world.Config }

func newWorldRunner(c Config) worldRunner {
	return worldRunner{cfg: world.Config{Devices: c.Devices, Turns: c.Turns, Faults: c.Faults}}
}

func fromWorld(o world.Outcome) Outcome {
	return Outcome{Result: o.Result, Lin: o.Lin, HTML: o.HTML, Timeline: o.Timeline, Turns: o.Turns, Inputs: o.Inputs}
}

func (r worldRunner) Run(seed uint64) Outcome { return fromWorld(world.Run(seed, r.cfg)) }

func (r worldRunner) Replay(s sim.Schedule) Outcome { return fromWorld(world.Replay(s, r.cfg)) }

func (r worldRunner) Trace(seed uint64, s *sim.Schedule) sim.Result {
	opts := world.Options(r.cfg)
	opts.KeepTrace = true
	opts.Schedule = s
	return sim.Run(seed, opts)
}

func (r worldRunner) Shrink(o Outcome) sim.ShrinkResult {
	return world.Shrink(world.Outcome{Result: o.Result, Lin: o.Lin, HTML: o.HTML, Timeline: o.Timeline,
		Turns: o.Turns, Inputs: o.Inputs}, r.cfg)
}

// TestWorldCampaignIsDeterministic runs a short campaign of the full world
// with every seed audited: each traced rerun must match the campaign run.
// (sim/world's own tests run the longer campaign that hunts for bugs.)
func TestWorldCampaignIsDeterministic(t *testing.T) {
	testgate.Long(t) // 50 seeds, each audited
	r := newWorldRunner(Config{})
	s := RunPlan(r, Plan{First: 1, Count: 50, Shard: Whole}, SeedOptions{AuditEvery: 1}, func(run SeedRun) {
		a := run.Report.Audit
		if a == nil || a.Diverged {
			t.Errorf("seed %d: %v", run.Report.Seed, a)
		}
		if run.Report.Lin.Result == LinNone || run.Report.Events == 0 {
			t.Errorf("seed %d: report %+v", run.Report.Seed, run.Report)
		}
	})
	if s.Seeds != 50 || s.Audited != 50 || s.Diverged != 0 || len(s.FaultsApplied) == 0 {
		t.Fatalf("summary %+v", s)
	}
}

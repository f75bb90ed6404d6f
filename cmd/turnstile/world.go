package main

import (
	"github.com/turnstile-sim/turnstile/internal/freelist"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/world"
)

// worldRunner adapts sim/world to campaign.Runner.
type worldRunner struct{ cfg world.Config }

// padsKept is how many padded-frame buffers (4 MiB each) a campaign keeps
// for its workers' next seeds.
const padsKept = 8

// newWorldRunner builds the world of c; its workers share one list of
// padded-frame buffers.
func newWorldRunner(c campaign.Config) campaign.Runner {
	return worldRunner{cfg: world.Config{Devices: c.Devices, Turns: c.Turns, Faults: c.Faults, Pads: &freelist.List{Max: padsKept}}}
}

func worldKinds() []sim.FaultKind { return world.FaultKinds() }

func (r worldRunner) Run(seed uint64) campaign.Outcome { return outcome(world.Run(seed, r.cfg)) }

// RunKeepTrace keeps the campaign run's trace for the determinism auditor.
func (r worldRunner) RunKeepTrace(seed uint64) campaign.Outcome {
	return outcome(world.RunKeepTrace(seed, r.cfg))
}

func (r worldRunner) Replay(s sim.Schedule) campaign.Outcome {
	return outcome(world.Replay(s, r.cfg))
}

// Trace reruns through the kernel with the world's options: the same trace
// as world.Run, without the linearizability check that follows it.
func (r worldRunner) Trace(seed uint64, s *sim.Schedule) sim.Result {
	opts := world.Options(r.cfg)
	opts.KeepTrace = true
	if s != nil {
		opts.LivenessTimeout = world.LivenessTimeout(s.Workload)
		return sim.Replay(*s, opts)
	}
	return sim.Run(seed, opts)
}

func (r worldRunner) Shrink(o campaign.Outcome) sim.ShrinkResult {
	return world.Shrink(world.Outcome{Result: o.Result, Lin: o.Lin, HTML: o.HTML, Timeline: o.Timeline,
		Turns: o.Turns, Inputs: o.Inputs}, r.cfg)
}

func outcome(o world.Outcome) campaign.Outcome {
	return campaign.Outcome{Result: o.Result, Lin: o.Lin, HTML: o.HTML, Timeline: o.Timeline,
		Turns: o.Turns, Inputs: o.Inputs, Derived: o.Derived, Skipped: o.Skipped,
		TimersDecided: o.TimersDecided}
}

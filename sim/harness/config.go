package harness

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
)

// Faults holds one integer ratio per fault kind. A zero Ratio never fires.
// Faults stop at the world's heal time.
type Faults struct {
	PrepareFailure        sim.Ratio // Prepare fails; no executor is created
	StartBeforeInput      sim.Ratio // StartTurn fails with no Turn (no input submitted)
	StartAfterInput       sim.Ratio // StartTurn returns a Turn and an error (input submitted)
	WriteFailure          sim.Ratio // DurableWrite definitely not written
	WriteUncertain        sim.Ratio // DurableWrite outcome unknown (written or not, drawn)
	WriteOverBudget       sim.Ratio // DurableWrite completes after the daemon's 10 s budget
	LateAccepted          sim.Ratio // native consumption confirmed seconds after the write
	CancelFailure         sim.Ratio // the Cancel request fails
	SettleLate            sim.Ratio // a cancelled Turn settles after the daemon's 10 s wait
	SettleNever           sim.Ratio // a cancelled Turn settles only after heal
	SettleError           sim.Ratio // AwaitSettlement returns unconfirmed
	LateEventsAfterCancel sim.Ratio // native events keep coming after Cancel
	NotReusable           sim.Ratio // settlement says Reusable=false
	CloseFailure          sim.Ratio // CloseExecutor fails (the next try may succeed)
	Hang                  sim.Ratio // any reply is held until heal
}

// Fields lists the fault kinds by name, in a fixed order.
func (f *Faults) Fields() []struct {
	Name  string
	Ratio *sim.Ratio
} {
	return []struct {
		Name  string
		Ratio *sim.Ratio
	}{
		{"prepare_failure", &f.PrepareFailure},
		{"start_before_input", &f.StartBeforeInput},
		{"start_after_input", &f.StartAfterInput},
		{"write_failure", &f.WriteFailure},
		{"write_uncertain", &f.WriteUncertain},
		{"write_over_budget", &f.WriteOverBudget},
		{"late_accepted", &f.LateAccepted},
		{"cancel_failure", &f.CancelFailure},
		{"settle_late", &f.SettleLate},
		{"settle_never", &f.SettleNever},
		{"settle_error", &f.SettleError},
		{"late_events_after_cancel", &f.LateEventsAfterCancel},
		{"not_reusable", &f.NotReusable},
		{"close_failure", &f.CloseFailure},
		{"hang", &f.Hang},
	}
}

// String renders the enabled kinds on one line.
func (f Faults) String() string {
	var parts []string
	for _, k := range f.Fields() {
		if k.Ratio.Num != 0 {
			parts = append(parts, k.Name+"="+k.Ratio.String())
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// DrawFaults enables a random subset of kinds (each with chance enable)
// with rates between 1/10 and 1/2, from r alone.
func DrawFaults(r *rand.Rand, enable sim.Ratio) Faults {
	var f Faults
	for _, k := range f.Fields() {
		on := enable.Chance(r)
		num := 1 + r.Uint64N(5)
		if on {
			*k.Ratio = sim.Ratio{Num: num, Den: 10}
		}
	}
	return f
}

// Config shapes the simulated Harness. Zero durations take defaults.
type Config struct {
	LatencyMin, LatencyMax time.Duration // native call latency (default 1ms..40ms)
	DeltasMax              int           // deltas per Turn (default 4)
	LongTurn               sim.Ratio     // a Turn that runs until cancelled (or TurnMax)
	TurnMax                time.Duration // longest natural Turn (default 30s)
	Faults                 Faults
}

func (c Config) withDefaults() Config {
	if c.LatencyMax == 0 {
		c.LatencyMin, c.LatencyMax = time.Millisecond, 40*time.Millisecond
	}
	if c.DeltasMax == 0 {
		c.DeltasMax = 4
	}
	if c.TurnMax == 0 {
		c.TurnMax = 30 * time.Second
	}
	return c
}

func (c Config) String() string {
	return fmt.Sprintf("latency=[%s,%s] deltas<=%d long=%s faults=%s",
		c.LatencyMin, c.LatencyMax, c.DeltasMax, c.LongTurn, c.Faults)
}

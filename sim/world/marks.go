package world

import (
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
)

// markNeeds maps each expected mark to the fault kinds that lead to it in
// this world: any one of them enabled is enough for a campaign of
// check.CampaignSeedsMin seeds to be expected to hit it; an empty list
// means the workload reaches it without faults. Measured with 1,000-seed
// campaigns restricted to one kind each (TestMarkNeedsAreReached keeps it
// true). A mark missing here is judged only under the full swarm.
var markNeeds = map[check.Mark][]sim.FaultKind{
	check.MarkAdmissionExpiredBeforeStart:  {},
	check.MarkCancelRacedDone:              {},
	check.MarkCapacityRejectionThenSuccess: {},
	check.MarkStaleRevisionIgnored:         {kStatusRepublish.kind},
	check.MarkCleanupRetried:               {harness.CloseFailure},
	check.MarkCoreRestartMidTurn:           {kCoreCrash.kind},
	check.MarkReconnectDuringSteer:         {sim.FaultConnLoss, kDeviceReplace.kind, kDaemonCrash.kind},
	check.MarkCancelUnconfirmed:            {harness.CancelNever, harness.CancelLate, harness.WriteOverBudget},
	check.MarkSteerUnknownAfter30s:         {harness.WriteOverBudget},
	// limits the workload shapes reach
	check.MarkAdmissionRecordsFull:    {},
	check.MarkSteerInputLimit:         {},
	check.MarkUsageFromSnapshot:       {},
	check.MarkCapacityFullOfExecutors: {},
	check.MarkKindAvailabilityChanged: {},
	check.MarkIdleEvictionJudged:      {},
	check.MarkSteerAfterUnknown:       {harness.WriteOverBudget},
	check.MarkReceiptBudgetClosed:     {sim.FaultStall},
}

// MarkNeeds returns the fault kinds that lead to expected mark m (any one
// suffices; none: the workload alone reaches it), and whether the world
// knows them.
func MarkNeeds(m check.Mark) ([]sim.FaultKind, bool) {
	kinds, ok := markNeeds[m]
	return kinds, ok
}

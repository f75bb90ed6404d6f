package adaptertest

import "github.com/turnstile-sim/turnstile/sim/check"

// Checks of this package's own (the campaign's checkers, from package
// sim/check, keep their names).
const (
	CheckDeclaredOnWire   = "declared_on_wire"
	CheckOutputAfterDone  = "output_after_done"
	CheckTurnEnds         = "liveness"
	CheckNothingOwned     = "orphaned_resource"
	CheckShutdownComplete = "shutdown_complete"
)

// clauseTable names each judged check's contract clause, in report order.
// The campaign checkers listed need only what the adapter shows: frames on
// the wire, Turns it returned, settlements, receipts and confirmed closes.
// Checkers that need the instant a machine stepped on a frame it received
// (done_before_receipt) are left out: in a real shell that instant is not
// on the wire, so a frame crossing one in flight would be misjudged.
var clauseTable = []struct{ check, clause string }{
	{CheckDeclaredOnWire, "the heartbeat declares what was installed"},
	{check.CheckRunStartedTwice, "a Run becomes one native Turn"},
	{check.CheckInputDeliveredTwice, "an input is applied once"},
	{check.CheckAcceptedWithoutTruth, "accepted only after the adapter reported application"},
	{check.CheckPublishedBeforeSettled, "done and applied cancel only after settlement and a confirmed retire Close"},
	{CheckOutputAfterDone, "no Run output after its done"},
	{check.CheckRefusalCode, "documented codes and states only"},
	{CheckTurnEnds, "every Turn reaches a terminal state"},
	{check.CheckShutdownReport, "a shutdown report claims completeness only when the adapter holds nothing"},
	{CheckShutdownComplete, "shutdown releases everything"},
	{CheckNothingOwned, "nothing owned after shutdown"},
}

func clauseOf(c string) string {
	for _, e := range clauseTable {
		if e.check == c {
			return e.clause
		}
	}
	return c
}

// judged reports whether a sim/check violation belongs to this run.
func judged(c string) bool {
	for _, e := range clauseTable {
		if e.check == c {
			return true
		}
	}
	return false
}

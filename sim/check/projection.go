package check

// projectionState is what the oracles of Core's projection of a
// Runtime's reports keep; its maps are looked up, never ranged.
type projectionState struct {
	engineErrors map[string]engineFailure // run → its latest error frame delivered to Core, classified
	prepsPerConn map[uint64]*prepCount    // Core's open preparation streams (preparations_per_conn.go)
	prepsFullAt  int64                    // the last instant a connection held the limit of streams (kept past its end)
}

// projectionExpectedMarks are the marks the projection workload must reach.
var projectionExpectedMarks = []Mark{
	MarkEngineCodeUnclassified, MarkEngineStatusDropped, MarkEngineStatusKept,
	MarkSameRevisionOtherState,
	MarkToolObservationsLacking, MarkRecoveryLacking, MarkReadyNoLongerAdmitted,
	MarkMessageItemsLacking, MarkMCPCapabilityLacking, MarkFunctionToolsLacking, MarkOutputExportLacking,
	MarkPreparationsPerConnFull, MarkEarlierReceiptReplayed, MarkCancelFailedAfterDone,
}

// Projection marks: a forged cancel_failed right behind the Run's done (the
// cancel owns the result if it reaches Core first: cancel_unconfirmed,
// timing_cancel_confirmation); an earlier accepting receipt replayed right
// behind the written receipt of the input at Core's cursor
// (accepted_without_receipt); a status at the revision that counted last,
// in another state (stale_status.go).
const (
	MarkCancelFailedAfterDone  = Mark("cancel_failed_after_done")
	MarkEarlierReceiptReplayed = Mark("earlier_receipt_replayed")
	MarkSameRevisionOtherState = Mark("same_revision_other_state")
)

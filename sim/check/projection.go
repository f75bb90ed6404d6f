package check

// projectionState is what the oracles of Core's projection of a
// Runtime's reports keep (engine_errors.go, ...).
type projectionState struct {
	// engineErrors is the classification of the latest error frame of
	// each Run delivered to Core; looked up, never ranged.
	engineErrors map[string]engineFailure
	// prepsPerConn counts Core's open preparation streams per connection
	// (preparations_per_conn.go); looked up, never ranged.
	prepsPerConn map[uint64]*prepCount
	// prepsFullAt: the last instant any connection held the limit of
	// preparation streams (kept past the connection's end)
	prepsFullAt int64
}

func (p *projectionState) init() { p.prepsPerConn = map[uint64]*prepCount{} }

// projectionExpectedMarks are the marks the projection workload must reach.
var projectionExpectedMarks = []Mark{
	MarkEngineCodeUnclassified, MarkEngineStatusDropped, MarkEngineStatusKept,
	MarkSameRevisionOtherState,
	MarkToolObservationsLacking, MarkRecoveryLacking, MarkReadyNoLongerAdmitted,
	MarkPreparationsPerConnFull, MarkEarlierReceiptReplayed, MarkCancelFailedAfterDone,
}

// MarkCancelFailedAfterDone: a cancel_failed receipt for the cancel Core
// awaited was forged right behind the Run's done. Core must let the
// cancel own the result (cancel_unconfirmed) if it reaches Core first, and
// ignore it if the daemon's receipt did (timing_cancel_confirmation).
const MarkCancelFailedAfterDone = Mark("cancel_failed_after_done")

// MarkEarlierReceiptReplayed: a Run's earlier accepting receipt was
// replayed right behind the `written` receipt of the input now at Core's
// cursor. Core must not take it for that input (accepted_without_receipt
// and accepted_without_ground_truth judge the cursor and the outcomes).
const MarkEarlierReceiptReplayed = Mark("earlier_receipt_replayed")

// MarkSameRevisionOtherState: a status at the revision that counted last,
// in another state, reached Core on the stream (a hostile proxy forges it;
// stale_status.go judges that Core ignores it).
const MarkSameRevisionOtherState = Mark("same_revision_other_state")

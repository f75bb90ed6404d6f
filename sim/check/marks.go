package check

import (
	"maps"
	"slices"
)

// Mark names a rare state the world reached. Marks are coverage, not
// correctness: a campaign fails only when an expected mark is never hit.
type Mark string

// Rare-state marks; the constants beside a checker are its own.
const (
	MarkAdmissionExpiredBeforeStart Mark = "admission_expired_before_start"
	// an execution_start past its admission's deadline, before the late
	// expiry timer fired, answered expired at once (timing_admission.go)
	MarkStartPastDeadlineRefused     Mark = "start_past_deadline_refused"
	MarkCancelRacedDone              Mark = "cancel_raced_done"
	MarkSteerUnknownAfter30s         Mark = "steer_unknown_after_30s"
	MarkCancelUnconfirmed            Mark = "cancel_unconfirmed"
	MarkCleanupRetried               Mark = "cleanup_retried"
	MarkCapacityRejectionThenSuccess Mark = "capacity_rejection_then_success"
	MarkStaleRevisionIgnored         Mark = "stale_revision_ignored"
	MarkReconnectDuringSteer         Mark = "reconnect_during_steer"
	MarkCoreRestartMidTurn           Mark = "core_restart_mid_turn"

	// Environment preparation and suspension fencing (transfer_wire.go,
	// fencing_wire.go, fencing_busy.go, transfer_install.go).
	MarkTransferCompleted           Mark = "transfer_completed"
	MarkTransferDigestRejected      Mark = "transfer_digest_rejected"
	MarkTransferSetupFailed         Mark = "transfer_setup_failed"
	MarkTransferLostWithConnection  Mark = "transfer_lost_with_connection"
	MarkQuiesceAccepted             Mark = "quiesce_accepted"
	MarkQuiesceRefused              Mark = "quiesce_refused"
	MarkResumeAccepted              Mark = "resume_accepted"
	MarkMCPBearerDelivered          Mark = "mcp_bearer_delivered"           // an execution_prepare with a bearer token reached a daemon
	MarkQuiesceReplyLost            Mark = "quiesce_reply_lost"             // a connection closed with Core's quiesce unanswered
	MarkStrayResumeRefused          Mark = "stray_resume_refused"           // a fenced daemon refused a forged resume of another suspension
	MarkQuiescedWorkRefused         Mark = "quiesced_work_refused"          // a fenced daemon refused a runtime_prepare begin racing its resume
	MarkQuiescedWriteRefused        Mark = "quiesced_write_refused"         // a fenced daemon refused a workspace_write begin racing its resume
	MarkTransferEarlyCommitRefused  Mark = "transfer_early_commit_refused"  // a commit ahead of the last chunk refused invalid_request
	MarkPrepareHeldForInstall       Mark = "prepare_held_for_install"       // a new preparation answered preparing while an installation ran
	MarkTransferExchangeExpired     Mark = "transfer_exchange_expired"      // Core recorded a step unknown at the end of its 195 s exchange (a hung setup)
	MarkQuiesceBusyRefused          Mark = "quiesce_busy_refused"           // a quiesce refused while the wire showed work active
	MarkTransferChunkStaged         Mark = "transfer_chunk_staged"          // the installer staged a chunk at the bytes already staged
	MarkPreparationEndedByRejection Mark = "preparation_ended_by_rejection" // Core recorded a step rejected with steps after it
	MarkSecondSuspensionRefused     Mark = "second_suspension_refused"      // Core refused to open a second suspension of an Environment
	MarkLateTransferResult          Mark = "late_transfer_result"           // a ready or received result reached Core after it recorded the transfer unknown
	MarkTransferHeldAfterInvalid    Mark = "transfer_held_after_invalid"    // a forged non-terminal result reached Core while its transfer held the connection
	MarkTransferInstallUnconfirmed  Mark = "transfer_install_unconfirmed"   // a commit answered unknown because the installer could not confirm it

	// Hostile peers (the refusals themselves are HostileMark(action)).
	MarkHostileDuplicate Mark = "hostile_duplicate_frame"
	MarkHostileReplay    Mark = "hostile_replayed_frame"
	MarkHostileNearLimit Mark = "hostile_near_limit_frame"
	MarkHostileOversize  Mark = "hostile_oversized_frame"

	// a prepare naming agent_session_id replaced the Session's idle
	// executor without native identity (not expected: it needs a prepare
	// delayed past another device's first Turn)
	MarkResumeReplacedExecutor Mark = "resume_replaced_executor"
	// a not_ready cancel receipt reached Core in time for a retry
	MarkCancelNotReadyRetried Mark = "cancel_not_ready_retried"
	// a Turn failed event_persistence_failed at its run-event limit
	MarkRunEventLimit Mark = "run_event_limit_reached"
)

// Limit marks: a documented limit reached (limit_marks.go; the README
// gives the rates).
const (
	MarkAdmissionRecordsFull    Mark = "admission_records_full"     // a 65th admission granted on one connection
	MarkSteerInputLimit         Mark = "steer_input_limit"          // a steer refused: its Run holds 256 inputs
	MarkSteerAfterUnknown       Mark = "steer_after_unknown"        // a steer call after an earlier input of its Turn became unknown at Core
	MarkUsageFromSnapshot       Mark = "usage_from_snapshot"        // a native done without usage after usage snapshots
	MarkCancelOutcomeUsageNewer Mark = "cancel_outcome_usage_newer" // an applied cancel's outcome reached Core after its Run's done, with other usage
	MarkCapacityFullOfExecutors Mark = "capacity_full_of_executors" // preparation_capacity while the Harness holds executors_max executors
	MarkKindAvailabilityChanged Mark = "kind_availability_changed"  // a heartbeat changed a kind's availability
	MarkReceiptBudgetClosed     Mark = "receipt_budget_closed"      // a daemon closed a connection on a send over budget
	MarkIdleEvictionJudged      Mark = "idle_eviction_judged"       // a prepare evicted an idle executor, order judged
	// a prepare evicted an idle executor while another was idle since the
	// same instant: the tie judged by age
	MarkIdleEvictionTie Mark = "idle_eviction_tie"
	// a new executor answered a prepare requiring existing history that
	// named none (a done lost with its connection): the Runtime resumes
	// the identity it kept (the Harness refuses a new root)
	MarkHistoryRecoveredOnNewExecutor Mark = "history_recovered_on_new_executor"
	// an idle or ready executor's connection was lost: its close judged
	MarkExecutorRetiredWithConnection Mark = "executor_retired_with_connection"
)

// ExpectedMarks lists the marks a campaign of 1,000 or more seeds
// (campaign.CampaignSeedsMin) must hit at least once, sorted by name. A mark reached in under
// 0.3 % of swarm seeds is recorded, not expected (an export cancelled, a
// write settled late, a read of a kind serving no workspace).
func ExpectedMarks() []Mark {
	out := slices.Concat([]Mark{
		MarkAdmissionExpiredBeforeStart, MarkAdmissionRecordsFull, MarkCancelNotReadyRetried, MarkCancelRacedDone,
		MarkCancelUnconfirmed, MarkCapacityFullOfExecutors, MarkSubagentRecorded, MarkSubagentUnaskedDropped, MarkSubagentStaleForged, MarkSubagentAfterDoneForged, MarkCapacityRejectionThenSuccess, MarkCleanupRetried,
		MarkCoreRestartMidTurn, MarkCoreRestartCancelPending, MarkDecisionChangedWhileLive, MarkIdleEvictionJudged, MarkIdleEvictionTie, MarkExecutorRetiredWithConnection, MarkHistoryRecoveredOnNewExecutor,
		MarkKindAvailabilityChanged, MarkReceiptBudgetClosed, MarkReconnectDuringSteer, MarkStaleRevisionIgnored,
		MarkSteerAfterUnknown, MarkSteerInputLimit, MarkSteerUnknownAfter30s, MarkUsageFromSnapshot,
		MarkCancelOutcomeUsageNewer, MarkReadWhileWriteUnsettled, MarkCleanupUnconfirmedRelease, MarkDirectoryTruncated, MarkReadTruncated,
		// the workload draws preparations and suspension episodes
		MarkQuiesceAccepted, MarkQuiesceRefused, MarkResumeAccepted, MarkQuiesceReplyLost, MarkStrayResumeRefused,
		MarkQuiescedWorkRefused, MarkQuiescedWriteRefused, MarkTransferEarlyCommitRefused, MarkQuiesceBusyRefused, MarkPrepareHeldForInstall,
		MarkTransferExchangeExpired, MarkTransferCompleted, MarkTransferDigestRejected, MarkTransferLostWithConnection,
		MarkTransferSetupFailed, MarkTransferChunkStaged, MarkPreparationEndedByRejection, MarkSecondSuspensionRefused,
		MarkLateTransferResult, MarkTransferHeldAfterInvalid, MarkTransferInstallUnconfirmed,
		// the interaction_heavy workload shape reaches the first two; a
		// client submitting function results right after its own cancel
		// the third
		MarkDecisionRepeatedAfterUnknown, MarkDecisionRacedPermissionCancel, MarkFunctionResultAfterCancel,
		// repeats and answers beyond a declaration a peer in the middle
		// sends, answers a client sends (decision_answers.go)
		MarkDecisionRepeatIdentical, MarkDecisionRepeatRemembered, MarkDecisionRepeatAfterTenMinutes, MarkDecisionRepeatChanged, MarkResultSuccessChanged,
		MarkDecisionChangedApplying, MarkDecisionBeyondDeclaration, MarkChoiceInvalidDelivered, MarkDecisionAfterCancel, MarkDecisionAdapterRefused,
		MarkExportChunked, MarkExportCompleted, MarkExportConnBusyRefused, MarkWriteCommitRefused, MarkWriteLostMidTransfer,
		MarkWriteRefusedDuringRun, MarkReadForeignEnvRefused, MarkReadBlockedAfterUnknown,
		MarkWriteBlockedAfterUnknown, MarkWriteInstallRefused, MarkReadResultOutOfBounds,
		MarkPrepareRefusedDuringWrite, MarkWriteReceiptSizeForged, MarkExportStaleNextRefused,
		MarkPrepareRefusedDuringEnvPrep, MarkExecutorCapacityRefused,
		// the streaming client going away with a stalled link behind the cancel (export_cancel_stall.go)
		MarkExportCancelDropped, MarkExportCancelHeldInTime,
	}, hostileExpectedMarks(), failoverExpectedMarks, projectionExpectedMarks, engineExpectedMarks)
	slices.Sort(out)
	return out
}

// MarkCount is a mark with a count.
type MarkCount struct {
	Mark  Mark
	Count int
}

func sortedMarkCounts(m map[Mark]int) []MarkCount {
	out := make([]MarkCount, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, MarkCount{Mark: k, Count: m[k]})
	}
	return out
}

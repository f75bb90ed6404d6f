package world

import (
	"strings"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
)

// markNeeds maps each expected mark to the fault kinds that lead to it in
// this world: any one of them enabled is enough for a campaign of
// campaign.CampaignSeedsMin seeds to be expected to hit it; an empty list
// means the workload reaches it without faults. Measured with 1,000-seed
// campaigns restricted to one kind each (TestMarkNeedsAreReached keeps it
// true). A mark missing here is judged only under the full swarm.
var markNeeds = map[check.Mark][]sim.FaultKind{
	check.MarkAdmissionExpiredBeforeStart:  {},
	check.MarkCancelRacedDone:              {},
	check.MarkSubagentRecorded:             {},               // sim/harness/subagents.go
	check.MarkSubagentUnaskedDropped:       {},               // sim/harness/subagents.go (planUnasked)
	check.MarkSubagentStaleForged:          {sim.FaultStall}, // any fault kind enables it (hostile_subagent.go)
	check.MarkSubagentAfterDoneForged:      {sim.FaultStall}, // likewise
	check.MarkCancelNotReadyRetried:        {},               // cancel_starting.go
	check.MarkCapacityRejectionThenSuccess: {},
	check.MarkStaleRevisionIgnored:         {kStatusRepublish.kind},
	check.MarkCleanupRetried:               {harness.CloseFailure},
	check.MarkCoreRestartMidTurn:           {kCoreCrash.kind},
	check.MarkFailoverTakeover:             {kCoreZombie.kind},
	check.MarkZombieCommitRefused:          {kCoreZombie.kind},
	check.MarkZombieFrameSent:              {kCoreZombie.kind},
	check.MarkCoreRestartCancelPending:     {kCoreCrash.kind}, // the crash waits for a scheduled core_crash (cancel_crash.go)
	check.MarkDecisionChangedWhileLive:     {sim.FaultStall},  // any fault kind enables it (hostile_decision_applied.go)
	check.MarkReconnectDuringSteer:         {sim.FaultConnLoss, kDeviceReplace.kind, kDaemonCrash.kind},
	check.MarkCancelUnconfirmed:            {harness.CancelNever, harness.CancelLate, harness.WriteOverBudget},
	check.MarkSteerUnknownAfter30s:         {harness.WriteOverBudget},
	// interactions
	// interaction_heavy (workload_shapes.go) reaches the first two
	check.MarkDecisionRepeatedAfterUnknown:  {},
	check.MarkDecisionRacedPermissionCancel: {},
	check.MarkFunctionResultAfterCancel:     {},
	// the middle's repeats and answers beyond a declaration need faults
	// enabled (hostile_decision_repeat.go); the workload's answers not
	check.MarkDecisionRepeatIdentical:       {sim.FaultStall},
	check.MarkDecisionRepeatRemembered:      {sim.FaultStall},
	check.MarkDecisionRepeatAfterTenMinutes: {sim.FaultStall},
	check.MarkDecisionRepeatChanged:         {sim.FaultStall},
	check.MarkResultSuccessChanged:          {sim.FaultStall},
	check.MarkDecisionChangedApplying:       {harness.DecisionSlow, sim.FaultStall},
	check.MarkDecisionBeyondDeclaration:     {sim.FaultStall},
	check.MarkChoiceInvalidDelivered:        {sim.FaultStall}, // the middle answers in half the seeds with faults
	check.MarkDecisionAfterCancel:           {},
	check.MarkDecisionAdapterRefused:        {}, // the adapter's own draw (sim/harness)
	// limits the workload shapes reach
	check.MarkAdmissionRecordsFull:    {},
	check.MarkSteerInputLimit:         {},
	check.MarkUsageFromSnapshot:       {},
	check.MarkCancelOutcomeUsageNewer: {}, // cancelled native turns account their interruption (sim/harness)
	check.MarkCapacityFullOfExecutors: {},
	check.MarkExecutorCapacityRefused: {}, // drawExecutorTable (universe.go)
	check.MarkKindAvailabilityChanged: {},
	check.MarkSteerAfterUnknown:       {harness.WriteOverBudget},
	check.MarkReceiptBudgetClosed:     {sim.FaultStall},
	// workspace operations
	check.MarkReadWhileWriteUnsettled:   {harness.WriteReceiptLost}, // an unknown install stays unsettled
	check.MarkDirectoryTruncated:        {},
	check.MarkReadTruncated:             {},
	check.MarkCleanupUnconfirmedRelease: {harness.ReaderCloseFailure},
	check.MarkExportCompleted:           {},
	check.MarkExportConnBusyRefused:     {}, // the workload's paired exports (workload_workspace.go)
	check.MarkExportChunked:             {},
	check.MarkWriteCommitRefused:        {harness.WriteDigestMismatch},
	check.MarkWriteLostMidTransfer:      {harness.WriteTransferLost},
	check.MarkWriteRefusedDuringRun:     {kWriteRace.kind},
	check.MarkReadForeignEnvRefused:     {kReadForged.kind},
	check.MarkReadBlockedAfterUnknown:   {kReadForged.kind},
	check.MarkWriteBlockedAfterUnknown:  {harness.WriteReceiptLost},
	check.MarkWriteInstallRefused:       {},
	check.MarkPrepareRefusedDuringWrite: {},               // raceWritePrepare (faults_workspace.go)
	check.MarkWriteReceiptSizeForged:    {},               // forgeSizeReceipt (faults_workspace.go)
	check.MarkExportStaleNextRefused:    {},               // forgeStaleNext (faults_workspace.go)
	check.MarkExportCancelDropped:       {sim.FaultStall}, // any fault kind enables the abandoning client and its stalls (export_cancel_stall.go)
	check.MarkExportCancelHeldInTime:    {sim.FaultStall},
	check.MarkReadResultOutOfBounds:     {harness.ReadOutOfBounds, kReadForged.kind},
	// workload_environment.go draws the preparations and suspensions.
	check.MarkQuiesceAccepted:               {},
	check.MarkQuiesceRefused:                {},
	check.MarkResumeAccepted:                {},
	check.MarkTransferCompleted:             {},
	check.MarkTransferDigestRejected:        {},
	check.MarkTransferSetupFailed:           {},
	check.MarkTransferLostWithConnection:    {sim.FaultConnLoss, harness.PrepareReceiptLost, harness.PrepareConnLost},
	check.MarkExecutorRetiredWithConnection: {sim.FaultConnLoss},
	check.MarkHistoryRecoveredOnNewExecutor: {sim.FaultConnLoss},
	// faults_environment.go and harness/prepare_faults.go
	check.MarkQuiesceReplyLost:           {harness.QuiesceReplyLost},
	check.MarkStrayResumeRefused:         {kStrayResume.kind},
	check.MarkQuiescedWorkRefused:        {kWorkRacesResume.kind},
	check.MarkQuiescedWriteRefused:       {kWorkRacesResume.kind},
	check.MarkTransferEarlyCommitRefused: {kEarlyCommit.kind},
	check.MarkQuiesceBusyRefused:         {},
	check.MarkPrepareHeldForInstall:      {},
	check.MarkTransferExchangeExpired:    {}, // the operator's "sleep 200" setup outlasts Core's 195 s; the client waits for its outcome
	// hostile_environment.go and workload_environment.go
	check.MarkTransferChunkStaged:         {},
	check.MarkPrepareRefusedDuringEnvPrep: {sim.FaultStall}, // any fault kind enables the environment probes
	check.MarkPreparationEndedByRejection: {},
	check.MarkSecondSuspensionRefused:     {},
	check.MarkLateTransferResult:          {kCoreZombie.kind}, // a zombie's unknown; without faults the run may end before a "sleep 200" setup does
	check.MarkTransferHeldAfterInvalid:    {sim.FaultStall},   // any fault kind enables the environment probes
	check.MarkTransferInstallUnconfirmed:  {harness.InstallUnconfirmed},
	check.MarkMCPBearerDelivered:          {}, // workload_mcp.go draws the servers
	// the simulated engine's failures (harness/engine_errors.go)
	check.MarkEngineCodeUnclassified: {}, check.MarkEngineStatusDropped: {}, check.MarkEngineStatusKept: {},
	check.MarkSameRevisionOtherState: {kHostileProxy.kind},
	// the capability profiles (capability_profiles.go)
	check.MarkToolObservationsLacking: {}, check.MarkRecoveryLacking: {}, check.MarkReadyNoLongerAdmitted: {},
	// the capability swarm (capability_swarm.go)
	check.MarkMessageItemsLacking: {}, check.MarkMCPCapabilityLacking: {}, check.MarkFunctionToolsLacking: {},
	check.MarkOutputExportLacking: {},
	// the engine profile draws (engine_profile.go); a restarted Core may
	// come up with a narrowed catalog
	check.MarkEngineConfigurationRefused: {}, check.MarkEngineUnqualifiedRefused: {}, check.MarkEngineToolsRefused: {},
	check.MarkCatalogDeclarationRefused: {}, check.MarkEngineUnqualifiedAtDispatch: {kCoreCrash.kind},
	check.MarkResultImagesUnqualified: {},               // the workload's function results with images (interaction.go)
	check.MarkPreparationsPerConnFull: {sim.FaultStall}, // any fault kind enables the flood (workload_prep_flood.go)
	check.MarkEarlierReceiptReplayed:  {sim.FaultStall}, // any fault kind enables the replay (hostile_receipt_replay.go)
	check.MarkCancelFailedAfterDone:   {sim.FaultStall}, // any fault kind enables the forgery (hostile_cancel_failed.go)
}

// swarmOnlyMarks are expected marks no single kind leads to, with the
// reason: only the full swarm judges them.
var swarmOnlyMarks = map[check.Mark]string{
	check.HostileMark("start_stale_handle"): "a forged start with an older connection's handle needs a reconnect too",
	// capacity_pressure reaches it without faults in 0–5 of 200 seeds
	// (fewer since Sessions prepare their Environment first): too rare
	// for a restricted campaign, hit in every swarm campaign
	check.MarkIdleEvictionJudged: "too rare without faults to judge in a restricted campaign",
	// a polling Harness (drawPollPeriod) settles Turns together; a full
	// table then evicts among them in about 6 of 1,000 swarm seeds
	check.MarkIdleEvictionTie: "too rare to judge in a restricted campaign",
}

// MarkNeeds returns the fault kinds that lead to expected mark m (any one
// suffices; none: the workload alone reaches it), and whether the world
// knows them.
func MarkNeeds(m check.Mark) ([]sim.FaultKind, bool) {
	if kinds, ok := markNeeds[m]; ok {
		return kinds, ok
	}
	// the hostile peers' marks: what the proxy does to frames, what a
	// rogue daemon's connection gets refused, what the Core-side injector
	// gets refused
	name := string(m)
	switch {
	case swarmOnlyMarks[m] != "":
		return nil, false
	case m == check.HostileMark("long_id"),
		name == "hostile_duplicate_frame", name == "hostile_near_limit_frame", name == "hostile_oversized_frame",
		name == "hostile_replayed_frame":
		return []sim.FaultKind{kHostileProxy.kind}, true
	case strings.HasPrefix(name, string(check.HostileMark("rcore_"))):
		return []sim.FaultKind{kRogueCore.kind}, true
	case strings.HasPrefix(name, string(check.HostileMark("rogue_"))):
		return []sim.FaultKind{kRogueDaemon.kind}, true
	case strings.HasPrefix(name, string(check.HostileMark(""))):
		return []sim.FaultKind{kHostileFrames.kind}, true
	}
	return nil, false
}

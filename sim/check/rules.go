package check

import (
	"slices"
	"strings"
)

// A Rule is one rule of the seeds an oracle judges, stated here and only
// here: a checker file's header names its rule and tells how it is
// judged, doc.go and ARCHITECTURE.md index the registry.
type Rule struct {
	Name     string   // the check name its violations carry
	Seed     string   // where the documents state it (seed document and section, wire-reference.md section, DESIGN.md)
	Text     string   // the rule
	Facts    Fact     // what the checker consumes
	Verdict  Verdict  // when a violation is reported
	Decided  []string // the machine files that decide it, from the repository root
	Checker  string   // the file that judges it: a name in sim/check, or a path from the repository root
	Scenario string   // a scenario in scenarios/testdata that shows it; "" where none does
}

// Fact is a set of the kinds of record a checker consumes.
type Fact uint8

// The facts, by who knows them.
const (
	FromWire    Fact = 1 << iota // frames on the simulated network (Wire)
	FromCore                     // Core's records: effects and durable store
	FromDaemon                   // daemons' effects and reports
	FromHarness                  // the simulated Harness's ground truth
	FromAPI                      // the API client's calls and answers
	FromStore                    // the durable store's ground truth (epochs, refused commits)
	FromWorld                    // the world's own observations (setup, shells, machines)
)

var factNames = []string{"wire", "core", "daemon", "harness", "api", "store", "world"}

// String lists the facts, "+"-separated.
func (f Fact) String() string {
	var out []string
	for i, n := range factNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, "+")
}

// Verdict says when a rule's violations are reported.
type Verdict uint8

const (
	// AfterStep: found by a record method, reported after the step that
	// broke the rule, in registry order when one step breaks several.
	AfterStep Verdict = 1 << iota
	// AtEnd: judged once the run is over (Final, the linearizability
	// check); with AfterStep, a deadline still open at the end.
	AtEnd
)

// String names the verdict.
func (v Verdict) String() string {
	switch v {
	case AfterStep:
		return "after step"
	case AtEnd:
		return "at end"
	case AfterStep | AtEnd:
		return "after step, at end"
	}
	return "none"
}

// Rules returns the registry, in report order: when one step breaks
// several rules, the world reports the first in this order.
func Rules() []Rule { return slices.Clone(rules) }

// Registered reports whether name is a registered rule's check name.
func Registered(name string) bool {
	_, ok := ruleIndex[name]
	return ok
}

var ruleIndex = func() map[string]int {
	m := make(map[string]int, len(rules))
	for i, r := range rules {
		m[r.Name] = i
	}
	return m
}()

// Often cited documents and sections.
const (
	crProtocol = "core-runtime: "    // seeds/core-runtime-protocol.zh.txt
	rhProtocol = "runtime-harness: " // seeds/runtime-harness-protocol.zh.txt
	wireRef    = "wire-reference "   // wire-reference.md
	coreDoc    = "core/doc.go"
	daemonDoc  = "daemon/doc.go"
)

var (
	wc, wh, wa, hs = FromWire | FromCore, FromWire | FromHarness, FromWire | FromAPI, FromHarness | FromStore
	step, both     = AfterStep, AfterStep | AtEnd
)

var rules = []Rule{
	{Name: CheckFailoverStaleCommit, Seed: "DESIGN.md §7 (Stores)", Facts: FromStore, Verdict: step,
		Decided: []string{"core/store/pgstore/lease.go", "core/server/server.go"}, Checker: "failover.go",
		Text: "the store makes a write durable only under the lease's current epoch: a commit carrying another epoch (a fenced Core's) is refused"},
	{Name: CheckFailoverZombieFrame, Seed: "DESIGN.md §7 (Stores)", Facts: FromWire | FromStore, Verdict: step,
		Decided: []string{"core/server/server.go"}, Checker: "failover.go",
		Text: "Core's end of a connection a zombie kept puts no frame on the wire after the store refused that zombie's commit or after the zombie stopped"},
	{Name: CheckRunStartedTwice, Seed: crProtocol + "准备与执行顺序; " + wireRef + "§3.3", Facts: wh, Verdict: step,
		Decided: []string{"core/run.go", "daemon/turn.go"}, Checker: "core_records.go", Scenario: "release_before_start.txt",
		Text: "Core sends execution_start for a Run ID once, across reconnects, restarts and takeovers, and the Harness creates one native turn per Run"},
	{Name: CheckInputDeliveredTwice, Seed: crProtocol + "故障、重试与清理; " + wireRef + "§3.7", Facts: FromCore | FromHarness, Verdict: step,
		Decided: []string{"core/steer.go", "daemon/steer.go"}, Checker: "core_records.go", Scenario: "disconnect_is_unknown_and_reconnect_does_not_replay.txt",
		Text: "Core delivers an input of a Run once (also across reconnects and restarts), and the Harness applies it once"},
	{Name: CheckAcceptedWithoutTruth, Seed: crProtocol + "每类确认所证明的事实", Facts: FromWire | FromCore | FromHarness | FromAPI, Verdict: both,
		Decided: []string{"daemon/steer.go", "core/steer.go"}, Checker: "core_records.go", Scenario: "steer_written_then_accepted.txt",
		Text: "an accepted receipt, an accepted outcome at Core, a cursor moved past an input and an accepted steer call all come after the Harness applied the input; at the end, no accepted steer call returned before the native apply or without one"},
	{Name: CheckAcceptedWithoutReceipt, Seed: wireRef + "§3.7", Facts: wc, Verdict: step,
		Decided: []string{"core/steer.go"}, Checker: "accepted_receipt.go", Scenario: "steer_written_then_accepted.txt",
		Text: "Core records an input accepted, or moves its cursor past it, only once a prompt_steer_ack naming that Run and input with accepted=true reached it; a receipt of another input proves nothing about this one"},
	{Name: CheckFabricatedTerminal, Seed: crProtocol + "每类确认所证明的事实", Facts: wc, Verdict: step,
		Decided: []string{"core/run.go", "core/cancel.go"}, Checker: "core_records.go", Scenario: "run_completes_with_done.txt",
		Text: "Core sees done or error (on the wire or in its store), or an applied cancel receipt, only for a Run a daemon sent it for, and persists only the done or error it decoded from the wire"},
	{Name: CheckCancelOverridden, Seed: wireRef + "§3.5", Facts: FromCore, Verdict: step,
		Decided: []string{"core/cancel.go"}, Checker: "core_records.go", Scenario: "cancel_racing_done.txt",
		Text: "once Core received an applied cancel receipt, the Turn's terminal state is cancelled"},
	{Name: CheckHandleReuse, Seed: wireRef + "§3.3", Facts: FromDaemon, Verdict: step,
		Decided: []string{"daemon/admission.go"}, Checker: "daemon_records.go", Scenario: "start_with_released_handle_rejected.txt",
		Text: "a handle starts once, before its release or expiry (the deadline given at grant, whether or not the daemon noticed), on the connection that granted it"},
	{Name: CheckStaleRevision, Seed: wireRef + "§3.3", Facts: wc, Verdict: step,
		Decided: []string{"core/prepare.go"}, Checker: "stale_status.go", Scenario: "stale_and_duplicate_revisions_ignored.txt",
		Text: "Core ignores a preparation status its stream rule discards (a revision not above the last one that counted, another handle than the stream's first, no handle or revision): in that step it sends no frame for the request and writes nothing durable"},
	{Name: CheckCapability, Seed: crProtocol + "能力声明; " + wireRef + "§4", Facts: wa | FromHarness, Verdict: step,
		Decided: []string{"core/capability.go", "wire/capability_check.go"}, Checker: "frames_core.go", Scenario: "capability_missing_no_dispatch.txt",
		Text: "Core sends execution_prepare (selection) or execution_start (final check) only to a connection whose latest heartbeat declares the Session's kind available with every capability RequiredCapabilities gives for the Session as the client asked for it (recovery when history exists or is required, images from the input and accepted steers), and a start only for a request Core prepared on that connection"},
	{Name: CheckCapabilityRefusal, Seed: crProtocol + "能力声明; " + wireRef + "§4.2", Facts: FromWire | FromCore | FromAPI, Verdict: step,
		Decided: []string{"core/capability.go", "core/schedule.go"}, Checker: "capability_refusal.go",
		Text: "Core fails a Turn capability_unsupported at device selection only when no connection it holds (open, its latest heartbeat valid, never quiesced) declares the Session's kind available with every capability the admission table requires for it at its widest (images and recovery counted): an explicit empty MCP server list requires no MCP capability, a server mcp_http_tools, a required one mcp_http_required, a bearer token mcp_http_bearer_auth"},
	{Name: CheckEngineAdmission, Seed: rhProtocol + "显式服务资格认定; MCP 来源和原生限制", Facts: FromAPI | FromWorld, Verdict: step,
		Decided: []string{"core/engine/policy.go", "core/engine_policy.go"}, Checker: "engine_admission.go",
		Text: "Core creates a Session exactly when the engine catalog it runs qualifies it, and refuses it by the documented priority: an unknown kind fails closed; a profile's additional configuration limits come first; then the placement, each requested operation, each MCP server's frozen origin against MCPOrigins, a required server against MCPRequired and a bearer token against MCPBearer; the profile's additional tool limits last"},
	{Name: CheckEngineResultImages, Seed: rhProtocol + "显式服务资格认定; 必需操作和扩展操作 (图像); " + crProtocol + "能力声明", Facts: FromAPI | FromWire | FromWorld, Verdict: step,
		Decided: []string{"core/engine_policy.go", "core/interaction.go"}, Checker: "engine_result_images.go", Scenario: "function_result_images_need_the_engine_profile.txt",
		Text: "Core accepts and sends a function result carrying images only when the engine catalog it runs qualifies function_result_images for the Session's kind, whatever the Runtime declares, and never refuses one as unqualified for function_result_images when the profile qualifies them"},
	{Name: CheckEngineDispatch, Seed: rhProtocol + "服务 profile 目录; 显式服务资格认定", Facts: FromWire | FromWorld, Verdict: step,
		Decided: []string{"core/engine/policy.go", "core/engine_policy.go", "core/schedule.go"}, Checker: "engine_admission.go",
		Text: "Core sends no execution_prepare or execution_start for a Session whose kind the catalog it runs now has no profile for (an unknown kind is never qualified) or whose placement that profile does not list"},
	{Name: CheckEngineCatalog, Seed: rhProtocol + "显式服务资格认定", Facts: FromWorld, Verdict: step,
		Decided: []string{"core/engine/catalog.go"}, Checker: "engine_admission.go",
		Text: "the engine catalog accepts a profile declaration only with at least one placement, a non-nil MCP origin list whose every origin has a placement serving it, bearer support only with an origin, and each validation policy matching its callback (AdditionalValidation with one, CommonValidationOnly without)"},
	{Name: CheckCapacity, Seed: crProtocol + "故障、重试与清理; " + wireRef + "§3.3", Facts: wh | FromWorld, Verdict: step,
		Decided: []string{"daemon/admission.go", "daemon/executor.go"}, Checker: "capacity_wire.go", Scenario: "preparation_capacity_rejection_then_retry.txt",
		Text: "a daemon grants an admission only while fewer than its active limit are active (an admission counts from its grant to a terminal status or the loss of its connection and, once it started a Run, until the native turn settles; a retired executor until its close is confirmed), and its Harness holds at most executors_max executors not confirmed closed (being created, open, closing or uncertain) and at most active_max unsettled native turns"},
	{Name: CheckDurableFacts, Seed: crProtocol + "故障、重试与清理", Facts: FromCore, Verdict: step,
		Decided: []string{"core/store.go", "core/restart.go"}, Checker: "core_records.go",
		Text: "a Turn's state never regresses along queued < preparing < running < terminal, a terminal state never changes, a Run's cursor never moves back, and a restart loses no Turn, state or cursor"},
	{Name: CheckRestartOutcome, Seed: wireRef + "§6.4", Facts: wc, Verdict: step,
		Decided: []string{"core/restart.go"}, Checker: "restart_outcome.go",
		Text: "a Turn Core finishes while it restarts is failed with cancel_unconfirmed, delivery_unknown or event_stream_incomplete, and cancel_unconfirmed exactly when a prompt_cancel of its Run awaited a deciding receipt at the crash (whatever its stream did)"},
	{Name: CheckUsageAdded, Seed: wireRef + "§3.4", Facts: wc, Verdict: step,
		Decided: []string{"core/store.go"}, Checker: "core_records.go", Scenario: "usage_snapshots_replace.txt",
		Text: "Core stores only usage snapshots a daemon sent: usage replaces, it never adds"},
	{Name: CheckUsageLatest, Seed: wireRef + "§3.4", Facts: wc, Verdict: step,
		Decided: []string{"core/run.go"}, Checker: "usage_latest.go", Scenario: "usage_snapshots_replace.txt",
		Text: "when a Turn ends, the usage Core keeps for its Run is the latest snapshot that reached Core before the end (a usage event before the Run's done closed its stream on that connection, done's usage, an applied cancel's outcome); a Turn failed event_persistence_failed is not judged"},
	{Name: CheckDecisionConflictAfterApply, Seed: wireRef + "§3.6", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/interaction.go"}, Checker: "decision_conflict.go",
		Text: "a decision with other content for a permission request the daemon applied on the connection, delivered before it sent the Run's done, is answered decision_conflict (neither applied nor not_pending)"},
	{Name: CheckHostileRefusal, Seed: wireRef + "§3.3, §3.5, §3.7", Facts: wh, Verdict: step,
		Decided: []string{"daemon/admission.go", "daemon/steer.go", "daemon/cancel.go"}, Checker: "hostile.go", Scenario: "conflicting_prepare_is_request_conflict.txt",
		Text: "the attacked machine answers a forgery with the documented code or state (§3.3 rejections such as unknown_preparation, invalid_start, run_conflict, request_conflict, history_unavailable; released or expired for its own admission; §3.5 and §3.7 acks run_inactive, not_ready, input_limit, invalid_input with the input_id not echoed, input_conflict), answers every one it received on a connection still open, and never republishes a revision of a handle with other content or a lower revision after a higher one"},
	{Name: CheckHostileEffect, Seed: wireRef + "§1.1", Facts: wh | FromCore, Verdict: step,
		Decided: []string{"core/device.go", "daemon/machine.go"}, Checker: "hostile.go",
		Text: "a refused forgery changes nothing: no native Turn for a forged Run, no durable write at Core while it steps a rogue's frame or a forgery it must ignore (but a rogue claiming a device of the pool is that device, and its heartbeat may fail a queued Turn capability_unsupported, judged by reconnect_window), no frame naming a forged identity, nothing sent on a rogue connection, no ID over 128 bytes sent or partly echoed"},
	{Name: CheckHostileConnection, Seed: crProtocol + "所有权与连接; " + wireRef + "§2.3", Facts: FromWire, Verdict: step,
		Decided: []string{"core/device.go", "wire/message.go"}, Checker: "hostile_conns.go", Scenario: "incompatible_version.txt",
		Text: "Core closes a connection it must close (an invalid heartbeat, an incompatible version, a silent peer past its idle timeout) and keeps one it must keep (a valid near-limit heartbeat, an undecodable non-heartbeat or foreign frame); once Core stepped a device's new connection at most that one is open, unless it was refused incompatible_version (a zombie Core's connection is not Core's)"},
	{Name: "wire_encode", Seed: wireRef + "§1", Facts: FromWorld, Verdict: step,
		Decided: []string{"wire/codec.go"}, Checker: "sim/world/world.go",
		Text: "every frame a machine produces encodes (the world's shells report a frame wire refuses)"},
	{Name: CheckPrepareConfiguration, Seed: wireRef + "§3.14; " + crProtocol + "能力声明", Facts: wa, Verdict: step,
		Decided: []string{"core/prepare.go", "core/config.go"}, Checker: "prepare_rules.go", Scenario: "conflicting_prepare_is_request_conflict.txt",
		Text: "an execution_prepare's configuration is the seed's table for its Session: agent_kind, no Run input, agent_state_key, strict_resume, exactly one environment binding with the exact Environment ID, agent_options exactly model and system_prompt (plus model_provider and harness_config when set), execution_controls (web search disabled, text verbosity defaulting to medium, programmatic tool calling, json_schema output), observe_messages as the declaration's message_items, subagent flags, function tools, tool search, MCP servers with frozen origins (none when the Agent declared no list, [] for its explicit empty list); no require_existing_native_session or agent_session_id for a Session that never started a Run, never both, and only an agent_session_id Core received for the Session"},
	{Name: CheckNativeHistory, Seed: rhProtocol + "原生进程所有权", Facts: wh, Verdict: step,
		Decided: []string{"core/prepare.go"}, Checker: "prepare_rules.go",
		Text: "a prepare for a Session the Harness holds a native turn of names its native session or requires existing history: a new native root never replaces that history"},
	{Name: CheckRefusalCode, Seed: wireRef + "§3.3, §3.5, §3.7, §6.4", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/admission.go", "daemon/codes.go", "wire/codes.go"}, Checker: "refusal_codes.go", Scenario: "start_with_foreign_handle_rejected.txt",
		Text: "preparation states and codes stay in the documented sets (rejected with a code and a known operation, expired without one); a prepare the table refuses is answered with that content code, one it passes never with a content code, history_unavailable only when history is required; a start naming a handle never granted for the request is refused unknown_preparation; steering and cancel receipt codes stay in their sets, accepted or applied carry none, not_ready never follows the Run's started status, run_inactive never answers a Run live on the connection (one its daemon was asked to shut down is being cancelled)"},
	{Name: CheckDoneBeforeReceipt, Seed: wireRef + "§3.7", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/turn.go", "daemon/steer.go"}, Checker: "teardown_order.go",
		Text: "a daemon sends done for a Run only after it sent a prompt_steer_ack for every prompt_steer of that Run it received on the connection"},
	{Name: CheckPublishedBeforeSettled, Seed: rhProtocol + "原生进程所有权; " + crProtocol + "故障、重试与清理", Facts: wh, Verdict: step,
		Decided: []string{"daemon/turn.go", "daemon/cancel.go"}, Checker: "teardown_order.go", Scenario: "cancellation_waits_for_settlement.txt",
		Text: "done, or an applied cancel receipt, leaves only after the Harness settled the Run's native turn and, when that settlement retired its executor (Reusable=false), confirmed the executor's close"},
	{Name: CheckHeartbeatSnapshot, Seed: crProtocol + "能力声明; " + wireRef + "§3.1, §4.4", Facts: FromWire, Verdict: step,
		Decided: []string{"core/device.go", "wire/validate_run.go"}, Checker: "heartbeat_snapshot.go", Scenario: "invalid_heartbeat_closes_transport.txt",
		Text: "capabilities are unknown before a connection's first valid heartbeat, so Core sends no execution_prepare before one (a new connection inherits nothing); an invalid heartbeat (undecodable, a kind twice or blank, an incomplete capability set) closes the transport: Core closes the connection in that step and sends nothing more on it"},
	{Name: CheckShutdownReport, Seed: rhProtocol + "原生进程所有权", Facts: FromDaemon | FromHarness, Verdict: step,
		Decided: []string{"daemon/shutdown.go"}, Checker: "shutdown_report.go", Scenario: "shutdown_close_failure_serial_retry.txt",
		Text: "a daemon's shutdown report claims completeness only when it lists no owned resource and its Harness holds no executor not confirmed closed (a close pending or failed) and no unsettled native turn"},
	{Name: CheckReceiptBudget, Seed: crProtocol + "活动输入回执; " + wireRef + "§6.2", Facts: FromWire | FromWorld, Verdict: step,
		Decided: []string{"daemon/steer.go", "daemon/transport/client.go"}, Checker: "wire_send_budget.go",
		Text: "each receipt or status send (prompt_steer_ack, interaction_decision_ack, preparation_status) has its budget (the device's, 5 s by default); a send that cannot finish within it closes the transport, so one reaching Core after t + budget + the one-way latency finds the connection closed by t + budget"},
	{Name: CheckIdleEviction, Seed: daemonDoc + "; " + rhProtocol + "原生进程所有权", Facts: wh, Verdict: step,
		Decided: []string{"daemon/executor.go", "daemon/admission.go"}, Checker: "idle_eviction.go",
		Text: "a prepare that finds the executor table full closes the executor idle longest (ties: created first) and is refused preparation_capacity; replacing an idle executor without native identity for a prepare naming agent_session_id is no eviction"},
	{Name: CheckExecutorReuse, Seed: rhProtocol + "执行器复用; " + wireRef + "§3.3", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/executor.go", "daemon/admission.go"}, Checker: "executor_reuse.go", Scenario: "executor_reuse_across_two_turns.txt",
		Text: "a prepare is answered by a reused idle executor only when it serves the same Session with the same configuration (apart from agent_session_id and require_existing_native_session) and its native history fits them; a reuse does no native work (ready at revision 1, reused=true) and an executor an earlier prepare created is never announced new"},
	{Name: CheckExecutorConnection, Seed: rhProtocol + "Executor 和 Turn 生命周期 (绑定)", Facts: wh, Verdict: step,
		Decided: []string{"daemon/executor.go", "daemon/machine.go", "daemon/admission.go", "daemon/continuity.go"}, Checker: "executor_connection.go", Scenario: "executor_retired_with_connection.txt",
		Text: "an executor is bound to the connection it was prepared on: no admission or Turn of another connection is ever served by it (a later connection's prepare of its Session gets a new executor), and once that connection is lost its close is called as soon as it is no longer busy: in that instant when idle or ready and unstarted, else in the instant its Run is over for the daemon (settlement answered settled, native writes and decision calls of the Run answered, a write past its budget with its input unconsumed counting as over); the native session one idle then held is kept for its Session, so that daemon process never refuses a later prepare requiring existing history and naming no agent_session_id history_unavailable, unless a prepare of the Session since took it to a new executor or executors_max other Sessions kept since forgot it (oldest first)"},
	{Name: CheckValidRequestRefused, Seed: wireRef + "§3.14", Facts: FromAPI, Verdict: step,
		Decided: []string{"core/config.go"}, Checker: "api_records.go",
		Text: "Core creates every Session whose configuration the workload drew within the seeds' rules"},
	{Name: CheckRunEventLimit, Seed: coreDoc + " (RunEventsPerTurnMax)", Facts: FromCore | FromWorld, Verdict: step,
		Decided: []string{"core/run.go"}, Checker: "run_event_limit.go",
		Text: "Core persists at most the configured number of run events for a Turn, and fails a Turn event_persistence_failed only once that many are persisted"},
	{Name: CheckSubscriberStream, Seed: crProtocol + "故障、重试与清理 (SubscribeDurable)", Facts: FromCore | FromWorld, Verdict: step,
		Decided: []string{"core/subscribe.go"}, Checker: "subscribers.go",
		Text: "a subscriber gets every persisted event of its Turn in order, then one closing observation; an overflowed subscriber's stream, and only that one, ends with the overflow error in the same step, with nothing durable written for it"},
	{Name: CheckSteerInputsPerRun, Seed: wireRef + "§3.7; DESIGN.md §5", Facts: FromAPI, Verdict: step,
		Decided: []string{"core/steer.go"}, Checker: "steer_admission.go",
		Text: "a Run takes at most 256 steering inputs: Core admits no 257th steer and refuses none for that limit before 256 were admitted (or may have been)"},
	{Name: CheckSteerAfterCancel, Seed: coreDoc + " (ErrCancelPending)", Facts: FromAPI, Verdict: step,
		Decided: []string{"core/steer.go"}, Checker: "steer_admission.go",
		Text: "once Core answered a cancel of a Turn without an error, it admits no steer made after it"},
	{Name: CheckDoneUsage, Seed: wireRef + "§3.4", Facts: wh, Verdict: step,
		Decided: []string{"daemon/turn.go"}, Checker: "done_usage.go", Scenario: "usage_snapshots_replace.txt",
		Text: "a daemon's done for a Run whose native done carried usage carries exactly that usage; the last running snapshot stands in only when the native done has none"},
	{Name: CheckWireCodeSets, Seed: wireRef + "§3.5, §6.4", Facts: FromWire, Verdict: step,
		Decided: []string{"wire/validate_run.go"}, Checker: "wire_cancel_codes.go",
		Text: "a cancel receipt with a code of the cancel set (run_inactive, not_ready, cancel_failed), or applied without a code, passes wire's validator"},
	{Name: CheckPrepareCleanup, Seed: crProtocol + "故障、重试与清理", Facts: wh, Verdict: step,
		Decided: []string{"daemon/admission.go"}, Checker: "prepare_cleanup.go", Scenario: "preparation_failure_cleans_up_without_run_completion.txt",
		Text: "a preparation that fails while its Harness still holds the executor created for it fails executor_cleanup_unconfirmed, never preparation_failed"},
	{Name: CheckCapacityProbe, Seed: coreDoc, Facts: FromWire, Verdict: step,
		Decided: []string{"core/schedule.go"}, Checker: "capacity_gate.go", Scenario: "preparation_capacity_rejection_then_retry.txt",
		Text: "once a connection's capacity wait is over, Core sends one preparation of a Turn there (the probe) and no other until the probe's stream answers"},
	{Name: CheckReconnectWindow, Seed: crProtocol + "能力声明; " + coreDoc, Facts: wc, Verdict: step,
		Decided: []string{"core/schedule.go", "core/device.go"}, Checker: "reconnect_window.go",
		Text: "Core fails a queued Turn capability_unsupported at device selection only when no device of the pool is still reconnecting (away, without a heartbeat on its new connection, or not yet declaring a kind it declared available before) within the reconnect window"},
	{Name: CheckFencedSelection, Seed: crProtocol + "暂停 fencing; " + wireRef + "§3.12", Facts: FromWire, Verdict: step,
		Decided: []string{"core/fencing.go", "core/schedule.go", "core/runtime_prepare.go", "core/workspace_read.go", "core/workspace_write.go", "core/workspace_export.go"}, Checker: "fencing_selection.go", Scenario: "quiesce_fences_new_work_until_resume.txt",
		Text: "Core sends no Turn's execution_prepare, no read-only execution_prepare of a workspace read or export, no workspace_write begin and no Environment preparation's runtime_prepare begin to a device with an unresolved suspension (quiesce sent, quiesced, or either outcome unknown)"},
	{Name: CheckFencingRollback, Seed: wireRef + "§3.12", Facts: FromWire, Verdict: step,
		Decided: []string{"core/fencing.go"}, Checker: "fencing_rollback.go", Scenario: "quiesce_reply_lost_then_resume_with_rollback.txt",
		Text: "a resume that follows a quiesce or resume no reply of which reached Core carries rollback:true"},
	{Name: CheckTimingAdmission, Seed: wireRef + "§3.3, §6.2", Facts: FromWire, Verdict: both,
		Decided: []string{"daemon/admission.go"}, Checker: "timing_admission.go", Scenario: "admission_expiry_at_5_minutes.txt",
		Text: "a handle granted at g (its first status) is published expired at g + 5 min if still live, never before, and never started at or after it; retries do not move it; a device whose timers come late publishes expired within the lag and still never starts past the deadline"},
	{Name: CheckTimingCancelConfirm, Seed: crProtocol + "活动输入回执; " + wireRef + "§6.2", Facts: wc, Verdict: both,
		Decided: []string{"core/cancel.go"}, Checker: "timing_cancel.go", Scenario: "cancel_unconfirmed_after_15s.txt",
		Text: "no deciding cancel receipt 15 s after the first prompt_cancel (not_ready retries do not move it) finishes the Turn cancel_unconfirmed exactly then; earlier only after a cancel_failed receipt or a connection loss"},
	{Name: CheckTimingCancelRetry, Seed: wireRef + "§3.5; " + coreDoc, Facts: FromWire, Verdict: both,
		Decided: []string{"core/cancel.go"}, Checker: "timing_retry.go",
		Text: "a not_ready receipt for the cancel Core awaits is followed by the next prompt_cancel exactly 1 s later when that is before the confirmation deadline (a cancel call meanwhile sends it at once)"},
	{Name: CheckTimingConnIdle, Seed: crProtocol + "所有权与连接; " + wireRef + "§2.3, §6.2", Facts: FromWire, Verdict: both,
		Decided: []string{"core/device.go"}, Checker: "timing_conn.go",
		Text: "Core closes a connection exactly 60 s after its last inbound frame, and never early without a reason on the wire"},
	{Name: CheckTimingDecisionAck, Seed: wireRef + "§3.6, §6.2", Facts: wc, Verdict: both,
		Decided: []string{"core/interaction.go"}, Checker: "timing_decision_ack.go", Scenario: "permission_ack_lost_then_redelivered.txt",
		Text: "a decision or function result without a receipt 15 s after Core sent it is recorded unknown exactly then; earlier only once the Turn finished, the connection closed or Core crashed"},
	{Name: CheckTimingSuspensionReply, Seed: wireRef + "§3.12", Facts: wc, Verdict: both,
		Decided: []string{"core/fencing.go"}, Checker: "timing_suspension.go", Scenario: "quiesce_reply_lost_then_resume_with_rollback.txt",
		Text: "a quiesce or resume with no reply reaching Core 30 s after Core sent it is recorded quiesce_unknown or resume_unknown exactly then; earlier only once its connection closed or Core restarted"},
	{Name: CheckTimingExecutorCloseRetry, Seed: rhProtocol + "原生进程所有权; " + daemonDoc, Facts: FromHarness, Verdict: both,
		Decided: []string{"daemon/executor.go"}, Checker: "timing_close_retry.go", Scenario: "shutdown_close_failure_serial_retry.txt",
		Text: "after the n-th failed close of an executor, the Harness receives the next close exactly 1 s doubling per failure, at most 30 s, later"},
	{Name: CheckTimingHeartbeat, Seed: crProtocol + "能力声明; " + wireRef + "§3.1, §6.2", Facts: FromWire, Verdict: both,
		Decided: []string{"daemon/machine.go"}, Checker: "timing_conn.go", Scenario: "heartbeat_before_anything_else.txt",
		Text: "a daemon sends a heartbeat when its connection opens and then every interval, never early or late"},
	{Name: CheckTimingIdleExecutor, Seed: rhProtocol + "原生进程所有权; " + daemonDoc, Facts: wh, Verdict: both,
		Decided: []string{"daemon/executor.go"}, Checker: "timing_idle.go", Scenario: "idle_expiry.txt",
		Text: "an idle executor's close is called exactly at its idle bound: not earlier (except shutdown, or eviction in the step that parks another or prepares), not later"},
	{Name: CheckShutdownClosesIdle, Seed: crProtocol + "准备与执行顺序; " + rhProtocol + "原生进程所有权", Facts: wh | FromWorld, Verdict: step,
		Decided: []string{"daemon/shutdown.go", "daemon/executor.go"}, Checker: "timing_idle.go", Scenario: "shutdown_close_failure_serial_retry.txt",
		Text: "a daemon asked to shut down calls the close of every idle executor in that step, and closes an executor its Run or admission leaves idle afterwards in the step that frees it, instead of parking it for its idle bound"},
	{Name: CheckTimingNativeWrite, Seed: crProtocol + "活动输入回执; " + wireRef + "§6.2", Facts: wh, Verdict: both,
		Decided: []string{"daemon/steer.go"}, Checker: "timing_write.go", Scenario: "steer_write_over_budget_is_unknown.txt",
		Text: "a native write that had not returned 10 s after the Harness received it gets an outcome_unknown receipt exactly then and never a written one later; no outcome_unknown earlier unless the write itself returned unknown"},
	{Name: CheckTimingPrepareRetry, Seed: crProtocol + "故障、重试与清理; " + coreDoc, Facts: FromWire, Verdict: both,
		Decided: []string{"core/schedule.go"}, Checker: "timing_retry.go", Scenario: "preparation_capacity_rejection_then_retry.txt",
		Text: "after a preparation_capacity refusal the Session's next execution_prepare leaves exactly 1 s later, not later unless the Turn is gone or waits for what Core's documents make it wait for (an Environment preparation, a workspace operation, a quiesce, a full stream table, a capacity gate); the refusal never fails the Turn"},
	{Name: CheckTimingCloseRetry, Seed: crProtocol + "工作区操作; " + daemonDoc, Facts: FromHarness, Verdict: both,
		Decided: []string{"daemon/workspace_readonly.go"}, Checker: "timing_workspace_daemon.go",
		Text: "after the n-th failed close of a read-only profile's reader, the next close reaches the Harness exactly 1 s doubling per failure, at most 30 s, later"},
	{Name: CheckTimingReceiptSend, Seed: crProtocol + "活动输入回执; " + wireRef + "§6.2", Facts: FromWire, Verdict: both,
		Decided: []string{"daemon/steer.go"}, Checker: "wire_send_budget.go",
		Text: "every receipt and status send carries the 5 s budget: a daemon closes the connection exactly 5 s after a receipt it sent that had not arrived"},
	{Name: CheckTimingSettleRetry, Seed: rhProtocol + "原生进程所有权; " + daemonDoc, Facts: FromHarness | FromWire, Verdict: both,
		Decided: []string{"daemon/turn.go"}, Checker: "timing_close_retry.go",
		Text: "after the n-th unconfirmed settlement answer of a Turn, the next settlement wait reaches the Harness exactly 1 s doubling per failure, at most 30 s, later; no done or applied cancel receipt leaves while the settlement is unconfirmed"},
	{Name: CheckTimingSettlementWait, Seed: wireRef + "§3.5, §6.2", Facts: wh, Verdict: both,
		Decided: []string{"daemon/cancel.go"}, Checker: "timing_settlement.go", Scenario: "cancel_settlement_timeout_is_cancel_failed.txt",
		Text: "every cancel waiter is answered by the wait's start + 10 s, cancel_failed exactly then, or earlier only after the Harness failed the cancel"},
	{Name: CheckTimingSteerRetry, Seed: wireRef + "§3.7; " + coreDoc, Facts: FromWire, Verdict: both,
		Decided: []string{"core/steer.go"}, Checker: "timing_retry.go",
		Text: "after a not_ready or busy refusal before written, the same input leaves again on the same Run exactly 1 s later unless a prompt_cancel was sent or its written window ended first; the refusal never fails the Turn"},
	{Name: CheckTimingWorkspaceExport, Seed: wireRef + "§3.11", Facts: FromCore, Verdict: both,
		Decided: []string{"core/workspace_export.go"}, Checker: "timing_workspace.go",
		Text: "an export call is answered within 180 s of Core admitting it, timeout exactly then"},
	{Name: CheckTimingWorkspaceRead, Seed: wireRef + "§3.9", Facts: FromCore, Verdict: both,
		Decided: []string{"core/workspace_read.go"}, Checker: "timing_workspace.go",
		Text: "a read call is answered within 17 s of Core admitting it, timeout exactly then"},
	{Name: CheckTimingTransferExpiry, Seed: crProtocol + "工作区操作; " + wireRef + "§3.10", Facts: FromWire, Verdict: both,
		Decided: []string{"daemon/workspace_write.go"}, Checker: "timing_workspace_daemon.go",
		Text: "a write transfer the daemon accepted without its commit by 195 s is dropped and refused invalid_request exactly then"},
	{Name: CheckTimingWorkspaceWrite, Seed: wireRef + "§3.10", Facts: FromCore, Verdict: both,
		Decided: []string{"core/workspace_write.go"}, Checker: "timing_workspace.go",
		Text: "a write call is answered within 195 s of Core admitting it, timeout exactly then"},
	{Name: CheckTimingWritten, Seed: crProtocol + "活动输入回执; " + wireRef + "§3.7, §6.2", Facts: wa | FromCore, Verdict: both,
		Decided: []string{"core/steer.go"}, Checker: "timing_written.go", Scenario: "steer_unknown_after_30s.txt",
		Text: "an input whose delivery Core started (first prompt_steer) without a written or accepted receipt 30 s later is recorded unknown exactly then; never earlier unless Core observed a reason (a refusal or outcome_unknown receipt, done or a cancel receipt, its connection closing, a restart, the Turn ending); never accepted afterwards, in the store or through a steer call"},
	{Name: CheckDecisionAppliedTwice, Seed: wireRef + "§3.6", Facts: FromHarness, Verdict: step,
		Decided: []string{"daemon/interaction_decide.go"}, Checker: "interaction_truth.go", Scenario: "permission_decision_applied_once.txt",
		Text: "one interaction's decision is applied natively at most once"},
	{Name: CheckDecisionMisrouted, Seed: wireRef + "§3.6", Facts: FromHarness, Verdict: step,
		Decided: []string{"daemon/interaction_decide.go"}, Checker: "interaction_truth.go", Scenario: "user_choice_answers_bind_to_question_ids.txt",
		Text: "a native decision call reaches the Turn that emitted the interaction"},
	{Name: CheckAppliedWithoutNative, Seed: wireRef + "§3.6", Facts: wh, Verdict: step,
		Decided: []string{"daemon/interaction.go"}, Checker: "interaction_wire.go",
		Text: "a daemon sends interaction_decision_ack applied=true only for a decision whose interaction the Harness applied"},
	{Name: CheckDoneBeforeDecision, Seed: wireRef + "§3.6", Facts: wh, Verdict: step,
		Decided: []string{"daemon/turn.go"}, Checker: "interaction_wire.go",
		Text: "a daemon sends done for a Run only once no native decision call of its Turn is unanswered"},
	{Name: CheckInteractionAfterDone, Seed: wireRef + "§3.6, §3.8", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/interaction.go"}, Checker: "interaction_wire.go",
		Text: "a daemon forwards no permission request, user-choice prompt or function call for a Run after it sent that Run's done on the connection"},
	{Name: CheckResolvedWithoutReceipt, Seed: wireRef + "§3.6", Facts: wc, Verdict: step,
		Decided: []string{"core/interaction_records.go"}, Checker: "interaction_truth.go", Scenario: "permission_ack_lost_then_redelivered.txt",
		Text: "Core records an interaction applied only once its latest delivery ID came back in an applied=true interaction_decision_ack"},
	{Name: CheckDecisionRepeatAnswer, Seed: wireRef + "§3.6, §3.8, §6.1", Facts: wh, Verdict: step,
		Decided: []string{"daemon/interaction_decide.go", "daemon/interaction.go"}, Checker: "decision_answers.go",
		Text: "a decision reaching a daemon that answered the same interaction applied:true earlier in its process (within 1024 applied decisions and an hour) is answered applied:true when identical but for delivery_id and decision_conflict when it differs (a function result's success included), whether or not its Run has ended; one differing from a decision whose native call is out is decision_conflict"},
	{Name: CheckDecisionRefusedBeforeNative, Seed: wireRef + "§3.6, §3.8, §4.2; " + crProtocol + "能力声明", Facts: wh, Verdict: step,
		Decided: []string{"daemon/interaction_decide.go", "wire/validate_interaction.go"}, Checker: "decision_answers.go",
		Text: "a daemon makes no native call for, and never answers applied:true, a decision its Turn's admitted declaration does not allow (permissions for permission and user-choice decisions, function_tools for function results, function_result_images for one carrying images: unsupported, or not_pending once gone), a user-choice decision cancelled with answers or answering a question its prompt did not ask, or one reaching it after a prompt_cancel of its started Run with no decision of that interaction applied or being applied (not_pending); a declared decision the adapter refuses as unsupported is answered contract_violation"},
	{Name: CheckDecisionSentLawful, Seed: wireRef + "§1.1, §3.6, §4.2", Facts: FromWire, Verdict: step,
		Decided: []string{"core/interaction.go"}, Checker: "decision_answers.go",
		Text: "Core sends every decision or function result under a delivery ID no earlier attempt carried, never a user-choice decision cancelled with answers or answering a question the prompt did not ask, and never one its Turn's admitted declaration does not allow (permissions; function_tools; function_result_images for images)"},
	{Name: CheckDecisionUnknownKept, Seed: wireRef + "§3.6, §6.2; " + crProtocol + "故障、重试与清理", Facts: wc, Verdict: step,
		Decided: []string{"core/interaction.go"}, Checker: "decision_answers.go",
		Text: "an interaction whose latest decision awaits its receipt leaves delivering only as applied (an applied receipt), refused (a receipt), withdrawn or unknown: a Turn ending or the wait ending leaves it unknown, never pending or expired"},
	{Name: CheckWorkspaceTruth, Seed: crProtocol + "工作区操作", Facts: FromAPI | FromHarness, Verdict: step,
		Decided: []string{"daemon/workspace_read.go", "daemon/workspace_write.go"}, Checker: "workspace_records.go", Scenario: "workspace_file_read_truncated_at_max_bytes.txt",
		Text: "a workspace answer is what the native facts explain: data some native read served after the read-only profile's close was confirmed; a mutation installed once, with its digest"},
	{Name: CheckWorkspaceMutationOrder, Seed: crProtocol + "工作区操作; " + wireRef + "§3.10", Facts: wc, Verdict: step,
		Decided: []string{"core/workspace_write.go"}, Checker: "workspace_wire.go",
		Text: "Core begins a workspace write only when every earlier write of its Session settled (the commit never left, or a completed or rejected receipt reached Core), and never begins one twice"},
	{Name: CheckWorkspaceOnePerConn, Seed: wireRef + "§3.10, §3.11, §6.1", Facts: FromWire, Verdict: step,
		Decided: []string{"core/workspace_write.go", "core/workspace_export.go"}, Checker: "workspace_wire.go", Scenario: "workspace_one_export_per_connection.txt",
		Text: "Core has at most one workspace write and one workspace export in flight on a connection: it begins no write there while its earlier write awaits a receipt (within its write wait), and no export while its earlier export is open (no completed, failed or rejected reached Core, no cancel sent, within its export wait)"},
	{Name: CheckReadOnlyStarted, Seed: wireRef + "§3.9", Facts: FromWire, Verdict: step,
		Decided: []string{"core/workspace_read.go"}, Checker: "workspace_wire.go", Scenario: "workspace_directory_read_on_the_read_only_profile.txt",
		Text: "no execution_start names a read-only profile's request"},
	{Name: CheckTimingWorkspace, Seed: wireRef + "§3.9, §3.10", Facts: FromAPI, Verdict: step,
		Decided: []string{"core/workspace.go"}, Checker: "workspace_records.go",
		Text: "Core answers a workspace call within its wait (17 s for a read, 195 s for a write, plus the API's latency) and calls it timed out only after it"},
	{Name: CheckWorkspaceExport, Seed: wireRef + "§3.11", Facts: FromWire | FromAPI | FromHarness, Verdict: step,
		Decided: []string{"core/workspace_export_stream.go", "daemon/workspace_export.go"}, Checker: "workspace_export.go", Scenario: "workspace_export_begin_chunk_next_completed.txt",
		Text: "an export answered completed streams the archive one native export of its Environment produced within the call, through a profile whose close was confirmed before the answer; Core asks for each chunk once and in order, the daemon sends them in order, and Core sends no next after its own cancel"},
	{Name: CheckExportStopped, Seed: wireRef + "§3.11, §6.2", Facts: FromWire, Verdict: step,
		Decided: []string{"core/workspace.go", "core/workspace_export.go"}, Checker: "workspace_export.go",
		Text: "Core never abandons an export silently: by its 180 s export wait after the begin (the wait runs from the call's admission, before it), the exchange has ended on the wire (completed, failed or rejected reached Core, or its connection ended) or Core sent cancel"},
	{Name: CheckExportCancelBudget, Seed: wireRef + "§3.11, §6.2", Facts: FromWire, Verdict: step,
		Decided: []string{"core/workspace_export.go", "core/gateway/ws.go"}, Checker: "workspace_export.go", Scenario: "workspace_export_cancel_best_effort_2s.txt",
		Text: "Core's export cancel is best effort within 2 s: Core sends it only for an export it began on that connection and stopped early (no completed it accepts reached it first), and it reaches the daemon within 2 s of being sent plus the connection's latency, or never (dropped unwritten, the connection left open)"},
	{Name: CheckReadEnvironment, Seed: crProtocol + "工作区操作; " + wireRef + "§3.9", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/workspace_read.go"}, Checker: "workspace_runtime.go",
		Text: "a read whose environment_id is not that of its owner's preparation is refused invalid_request before anything of it runs"},
	{Name: CheckReadAfterUnknown, Seed: crProtocol + "工作区操作; " + wireRef + "§3.9", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/workspace_read.go"}, Checker: "workspace_runtime.go",
		Text: "once the daemon answered a read of an owner unknown, a later read of that owner is refused resource_unavailable"},
	{Name: CheckReadUnsupported, Seed: wireRef + "§3.9, §4.2", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/workspace_read.go"}, Checker: "workspace_runtime.go", Scenario: "workspace_read_unsupported.txt",
		Text: "an owner whose kind declares workspace_read_preparation unsupported serves no workspace: its reads are refused read_unsupported"},
	{Name: CheckWriteExclusion, Seed: crProtocol + "工作区操作; " + wireRef + "§3.10", Facts: wh, Verdict: step,
		Decided: []string{"daemon/workspace_write.go", "daemon/admission.go"}, Checker: "workspace_runtime.go",
		Text: "the Runtime excludes execution while it receives or applies a write: a write begin for an Environment whose Turn runs on that daemon is never answered ready, and an execution_prepare bound to an Environment reaching a daemon between its ready for a write of it and that write's receipt, or while it streams an export of it, is refused resource_unavailable (before any native call; read-only profiles included), never granted"},
	{Name: CheckWriteSettlement, Seed: crProtocol + "工作区操作", Facts: wa, Verdict: step,
		Decided: []string{"core/workspace_settle.go", "wire/validate_results.go"}, Checker: "workspace_settlement.go",
		Text: "a write whose commit left Core with no exact receipt reaching Core before the answer is answered unknown (completed or rejected need that receipt: the daemon's own completed carrying the begin's size_bytes, or its rejected with a code; a forged or malformed one settles nothing, and nothing settles a commit the Runtime itself answered unknown, nor a receipt reaching a Core the lease moved away from); after a write answered unknown, later writes of the Session are refused until an exact receipt settles it"},
	{Name: CheckWriteReceipt, Seed: crProtocol + "工作区操作", Facts: wh, Verdict: step,
		Decided: []string{"daemon/workspace_write.go"}, Checker: "workspace_receipts.go", Scenario: "workspace_write_begin_chunk_commit_then_read_back.txt",
		Text: "a committed write's receipt says what the installer answered: completed after an install, rejected write_rejected with the installer's reason after a refusal, unknown write_unconfirmed when the outcome is unknown"},
	{Name: CheckWorkspaceResultFields, Seed: wireRef + "§3.9, §3.10, §3.11", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/workspace_read.go", "daemon/workspace_write.go", "daemon/workspace_export.go"}, Checker: "workspace_payloads.go",
		Text: "every bounded field of a daemon's workspace result agrees with the request it answers: a completed byte read holds at most max_bytes and is truncated only with exactly max_bytes (a listing likewise with max_entries); a received write chunk carries the new end offset; a completed write carries its begin's size_bytes; an export chunk carries the bytes sent before it and completed the total"},
	{Name: CheckTransferDropped, Seed: crProtocol + "工作区操作; " + wireRef + "§3.10", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/workspace_write.go"}, Checker: "workspace_payloads.go",
		Text: "a malformed, out-of-order, incomplete or expired write transfer never reaches the installer: once the daemon refused a transfer invalid_request, no later chunk or commit of that ID on the connection is answered received or completed until a new begin is answered ready"},
	{Name: CheckExportOrder, Seed: wireRef + "§3.11", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/workspace_export.go"}, Checker: "workspace_payloads.go",
		Text: "the export pull is ordered: a next whose offset is not the bytes the daemon sent of that export so far is refused invalid_request, never answered with a chunk or completed"},
	{Name: CheckWorkspaceDeclaration, Seed: crProtocol + "能力声明; " + wireRef + "§4.2", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/workspace_read.go", "daemon/workspace_export.go", "core/workspace_export.go"}, Checker: "workspace_runtime.go",
		Text: "each workspace operation is judged by the declaration of the device that got it, for its owner's kind: a read is refused read_unsupported only when workspace_read_preparation is unsupported; an export is served only with workspace_output_export and refused read_unsupported only without it; Core begins an export only on a connection declaring workspace_output_export"},
	{Name: "fencing_reply", Seed: crProtocol + "暂停 fencing; " + wireRef + "§3.12", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/fencing.go"}, Checker: "fencing_wire.go", Scenario: "quiesce_fences_new_work_until_resume.txt",
		Text: "a daemon's environment_quiesced or environment_resumed answers a request of the matching type that reached it on the same connection under the same Envelope ID, echoes both its IDs, and carries a code exactly when refused"},
	{Name: "fencing_in_flight", Seed: wireRef + "§3.12", Facts: FromWire, Verdict: step,
		Decided: []string{"core/fencing.go"}, Checker: "fencing_wire.go",
		Text: "Core has at most two fencing requests unanswered on one connection (one past its reply wait no longer counts) and sends none without both IDs"},
	{Name: "fencing_quiesced_work", Seed: crProtocol + "暂停 fencing; " + wireRef + "§3.12", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/fencing.go", "daemon/workspace_write.go"}, Checker: "fencing_wire.go", Scenario: "quiesce_fences_new_work_until_resume.txt",
		Text: "from an accepted quiesce until an accepted resume of the same suspension the device accepts no new work: no status but rejected for a request that reached it after the quiesce, no runtime_prepare ready and no workspace_write ready for a begin after it"},
	{Name: "fencing_double_resume", Seed: wireRef + "§3.12", Facts: FromWire, Verdict: step,
		Decided: []string{"core/fencing.go"}, Checker: "fencing_wire.go",
		Text: "Core sends no environment_resume for a suspension after an accepted environment_resumed for it reached Core within the reply wait"},
	{Name: "fencing_quiesce_busy", Seed: crProtocol + "暂停 fencing; " + wireRef + "§3.12", Facts: wh, Verdict: step,
		Decided: []string{"daemon/fencing.go"}, Checker: "fencing_busy.go", Scenario: "quiesce_refused_while_a_turn_runs.txt",
		Text: "a daemon accepts a quiesce (other than a repeat of the one that fenced it) only with nothing active: no open transfer, no live admission, no live native turn; active work is refused resource_busy"},
	{Name: "fencing_resume_other", Seed: wireRef + "§3.12", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/fencing.go"}, Checker: "fencing_busy.go",
		Text: "only the quiescing suspend_id lifts a fence: a fenced daemon accepts no environment_resume naming another"},
	{Name: "fencing_quiesce_closes", Seed: wireRef + "§3.12", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/fencing.go"}, Checker: "fencing_busy.go",
		Text: "a successful quiesce closes the connection: the daemon sends nothing more on it after its accepted environment_quiesced"},
	{Name: "fencing_one_suspension", Seed: wireRef + "§1.1, §3.12", Facts: FromWire, Verdict: step,
		Decided: []string{"core/fencing.go"}, Checker: "fencing_once.go",
		Text: "Core opens a suspension of an Environment (its first quiesce) only while no other suspension of that Environment is unresolved for it (quiesce sent, no refused quiesce or accepted resume of it reached Core)"},
	{Name: "transfer_in_flight", Seed: crProtocol + "准备与执行顺序; " + wireRef + "§3.2", Facts: FromWire, Verdict: step,
		Decided: []string{"core/runtime_prepare.go"}, Checker: "transfer_wire.go", Scenario: "runtime_prepare_initialize_then_file_completed.txt",
		Text: "Core sends a runtime_prepare step on a connection only when no earlier step there awaits its result (one frame in flight, one transfer per connection)"},
	{Name: "transfer_connection_held", Seed: crProtocol + "故障、重试与清理; " + wireRef + "§3.2", Facts: FromWire, Verdict: step,
		Decided: []string{"core/runtime_prepare.go"}, Checker: "transfer_wire.go",
		Text: "Core begins no transfer on a connection whose last transfer has no terminal result back from the Runtime there (its exchange timed out or Core refused a result): the Runtime may still hold it; that result, or the connection's end, frees the connection"},
	{Name: "transfer_replayed", Seed: crProtocol + "故障、重试与清理; " + wireRef + "§3.2", Facts: FromWire, Verdict: step,
		Decided: []string{"core/runtime_prepare.go"}, Checker: "transfer_wire.go",
		Text: "a transfer ID Core used on one connection never appears on another (never replayed on reconnect)"},
	{Name: "transfer_result", Seed: wireRef + "§3.2", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/runtime_prepare.go", "wire/validate_transfer.go"}, Checker: "transfer_wire.go", Scenario: "runtime_prepare_commit_without_begin_is_rejected.txt",
		Text: "a daemon's runtime_prepare_result is the expected answer to the step that reached it (ready, received with the new end offset, completed with the total size) or a terminal refusal with a code of its set"},
	{Name: "transfer_installed_without_digest", Seed: rhProtocol + "原生安装器参与; " + wireRef + "§3.2", Facts: wh, Verdict: step,
		Decided: []string{"daemon/runtime_prepare.go"}, Checker: "transfer_wire.go", Scenario: "runtime_prepare_initialize_then_file_completed.txt",
		Text: "a completed result for a skill, plugin or file transfer follows its installation (size and SHA-256 matched)"},
	{Name: "transfer_incomplete_installed", Seed: rhProtocol + "原生安装器参与; " + wireRef + "§3.2", Facts: FromHarness, Verdict: step,
		Decided: []string{"daemon/runtime_prepare.go"}, Checker: "transfer_install.go",
		Text: "the installer is never handed a transfer whose staged bytes differ from its declared size"},
	{Name: "transfer_install_outcome", Seed: rhProtocol + "原生安装器参与; " + wireRef + "§3.2", Facts: wh, Verdict: step,
		Decided: []string{"daemon/runtime_prepare.go"}, Checker: "transfer_install.go", Scenario: "runtime_prepare_file_then_digest_mismatch.txt",
		Text: "a commit's answer says what the installer found: completed after an installation, rejected runtime_preparation_rejected after a size or digest mismatch, failed runtime_preparation_failed with the setup command's exit code"},
	{Name: "transfer_staged_in_order", Seed: rhProtocol + "原生安装器参与; " + wireRef + "§3.2", Facts: FromHarness, Verdict: step,
		Decided: []string{"daemon/runtime_prepare.go"}, Checker: "transfer_outcome.go",
		Text: "the installer's staging is handed only a chunk that starts at the bytes already staged for its transfer and holds 1 to 64 KiB, and never runs past the size_bytes its begin declared: a chunk out of order, oversized or past the declared size is refused before any native call"},
	{Name: "preparation_outcome", Seed: crProtocol + "故障、重试与清理; " + wireRef + "§3.2", Facts: wc, Verdict: step,
		Decided: []string{"core/runtime_prepare.go"}, Checker: "transfer_outcome.go",
		Text: "Core records a step rejected or failed only after that result with that code (and, failed, that exit code) reached it for the step's transfer, and a step that ended without completing ends its preparation: no later step begins and the preparation is not recorded completed"},
	{Name: CheckPrepareDuringEnvPrep, Seed: wireRef + "§3.3, §3.2", Facts: FromWire, Verdict: step,
		Decided: []string{"daemon/admission.go", "daemon/runtime_prepare.go"}, Checker: "prepare_during_environment_preparation.go",
		Scenario: "prepare_during_environment_preparation.txt",
		Text:     "an execution_prepare bound to an Environment reaching a daemon between its ready for a runtime_prepare begin of that Environment and that transfer's terminal result, on that connection, is refused resource_unavailable before any native call (read-only profiles included), never granted or held preparing"},
	{Name: CheckExecutorCapacity, Seed: wireRef + "§3.3, §6.1; " + crProtocol + "准备与执行顺序", Facts: FromWire | FromHarness, Verdict: step,
		Decided: []string{"daemon/admission.go"}, Checker: "executor_capacity.go", Scenario: "executor_capacity_when_table_full.txt",
		Text: "a prepare needing a new executor while the table holds executors_max executors, all idle or in use, is refused executor_capacity (the executor limit); while closing or uncertain executors hold slots cleanup occupies the capacity and the refusal is preparation_capacity, the code Core retries: never executor_capacity below the limit or with a close outstanding, never preparation_capacity when only the executor limit can refuse"},
	{Name: "prepare_during_install", Seed: rhProtocol + "原生安装器参与", Facts: FromHarness, Verdict: step,
		Decided: []string{"daemon/prepare_hold.go"}, Checker: "transfer_install.go",
		Text: "the Harness receives no native Prepare while an installation it was handed on that device is unanswered"},
	{Name: CheckTimingTransfer, Seed: wireRef + "§3.2", Facts: wc, Verdict: step,
		Decided: []string{"core/runtime_prepare.go"}, Checker: "timing_transfer.go",
		Text: "a transfer without a terminal result delivered to Core within 195 s of its begin is recorded unknown exactly then; earlier only after a reason Core observed (its connection ended, Core restarted, an invalid result); one running when Core crashed is recorded unknown by the restart, in its instant"},
	{Name: CheckTimingPrepareExpiry, Seed: wireRef + "§3.2, §6.2", Facts: FromWire, Verdict: both,
		Decided: []string{"daemon/runtime_prepare.go"}, Checker: "timing_prepare_expiry.go", Scenario: "runtime_prepare_expires_without_commit.txt",
		Text: "a runtime_prepare transfer the daemon made ready without its commit by 195 s (Core's whole exchange) is dropped and refused invalid_request exactly then, so a transfer Core gave up on never holds its connection forever"},
	{Name: CheckEngineErrorProjection, Seed: crProtocol + "原生故障分类; " + wireRef + "§6.3", Facts: wc, Verdict: step,
		Decided: []string{"core/run.go", "core/engine_policy.go"}, Checker: "engine_errors.go", Scenario: "error_then_done_engine_code_projection.txt",
		Text: "the engine failure Core records for a Turn is the §6.3 classification of the latest error frame of its Run that reached Core: an unknown code is unclassified and drops the status; a status is kept only with connection_failed and in 100..599"},
	{Name: CheckSubagentRecord, Seed: rhProtocol + "Subagent 观察; " + crProtocol + "能力声明; " + wireRef + "§3.13, §3.14", Facts: FromHarness | FromCore | FromWire, Verdict: step,
		Decided: []string{"core/subagent.go", "daemon/turn.go", "daemon/admission.go"}, Checker: "subagents.go", Scenario: "subagent_observations_on_turn_view.txt",
		Text: "Core's record of a Turn's subagent observations is what the Harness reported for that Run, in order and frame for frame (never one it did not report, reordered or rewritten); once Core persists the Run's done it holds every report the Harness made before it (a multi-agent Session's Run is prepared with observe_subagent_identities and forwarded), and nothing is recorded for the Run after its done; a daemon forwards no subagent observation of a Run whose executor was not prepared with observe_subagent_identities"},
	{Name: CheckPreparationsPerConn, Seed: "DESIGN.md §5; " + wireRef + "§3.3", Facts: FromWire, Verdict: step,
		Decided: []string{"core/schedule.go", "core/device.go"}, Checker: "preparations_per_conn.go",
		Text: "Core holds at most 64 preparation streams open on one connection"},
	{Name: CheckCapacityGate, Seed: crProtocol + "故障、重试与清理; " + coreDoc, Facts: FromWire, Verdict: step,
		Decided: []string{"core/schedule.go"}, Checker: "capacity_gate.go", Scenario: "preparation_capacity_rejection_then_retry.txt",
		Text: "after a preparation_capacity refusal, no Turn preparation leaves on that connection before its wait ends (1 s doubling per consecutive refusal, at most 30 s; a heartbeat of the connection ends it)"},
	{Name: "panic", Seed: "DESIGN.md §1", Facts: FromWorld, Verdict: both,
		Decided: []string{"core/invariants.go", "daemon/invariants.go"}, Checker: "sim/world/machine_panic.go",
		Text: "no machine assertion fails; reported last in a step, so a rule the machine broke in it reports first"},
	{Name: "harness_contract", Seed: rhProtocol + "必需的适配器接口; " + rhProtocol + "原生进程所有权", Facts: FromHarness, Verdict: step,
		Decided: []string{"daemon/executor.go", "daemon/steer.go"}, Checker: "sim/world/world.go",
		Text: "a daemon keeps the Harness contract: no start on a retired executor, no close under a live Turn, no input written twice or while another durable write of the Run is out, no Run started twice, no preparation with an agent option or feature the declaration does not cover, none requiring history without naming a native session or resuming another Session's, no Turn on a new native root while the Session has native history"},
	{Name: CheckLiveness, Seed: crProtocol + "故障、重试与清理", Facts: FromCore, Verdict: AtEnd,
		Decided: []string{"core/run.go"}, Checker: "harness_records.go", Scenario: "run_completes_with_done.txt",
		Text: "every Turn is terminal by the liveness deadline, after heal"},
	{Name: CheckOrphan, Seed: rhProtocol + "原生进程所有权", Facts: FromHarness, Verdict: AtEnd,
		Decided: []string{"daemon/shutdown.go", "daemon/executor.go"}, Checker: "harness_records.go", Scenario: "not_reusable_then_close.txt",
		Text: "after shutdown no native turn is unsettled and no executor open"},
	{Name: CheckLinearizability, Seed: crProtocol + "每类确认所证明的事实", Facts: FromAPI | FromHarness, Verdict: AtEnd,
		Decided: []string{"core/view.go", "core/steer.go"}, Checker: "sim/linearize/check.go",
		Text: "the API's Turn reads and steer answers, with the Harness's settlements and applied inputs, have a linearization (History, linearize.Model); an interaction's decisions have one under linearize.DecisionModel (DecisionHistory)"},
}

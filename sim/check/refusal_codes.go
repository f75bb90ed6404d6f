package check

import (
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: refusal_code (rules.go). The finite code sets of the seeds
// (wire reference §3.3, §3.5 to §3.8, §6.4), written out again.
var (
	preparationCodes = codeSet("invalid_configuration resource_unavailable unsupported_preparation " +
		"unsupported_configuration unsupported_read_preparation request_conflict preparation_capacity " +
		"session_binding_conflict configuration_conflict executor_cleanup_unconfirmed native_session_conflict " +
		"history_unavailable executor_capacity preparation_failed cleanup_unconfirmed status_delivery_failed " +
		"connection_closed invalid_request invalid_start unknown_preparation read_only_preparation " +
		"unknown_executor start_conflict preparation_not_ready run_conflict executor_unavailable " +
		"start_cancelled invalid_release")
	steerCodes = codeSet("invalid_input run_inactive input_conflict input_limit not_ready unsupported " +
		"busy in_flight contract_violation rejected outcome_unknown")
	cancelCodes       = codeSet("run_inactive not_ready cancel_failed")
	preparationStates = codeSet("preparing ready starting started released expired failed rejected")
	controlOperations = codeSet("execution_prepare execution_start execution_release")
	// Codes a prepare's own content decides, by the table's first rows.
	contentCodes = codeSet("invalid_configuration unsupported_preparation unsupported_configuration unsupported_read_preparation")
	// invalid_result names invalid function-result content only: a
	// decision failing validation gets runtime_error, contract_violation
	// being a declared operation the adapter returned unsupported.
	decisionAckCodes = codeSet("not_pending not_ready unsupported contract_violation runtime_error decision_conflict")
	resultAckCodes   = codeSet("invalid_result decision_conflict not_ready unsupported contract_violation not_pending runtime_error")
)

func codeSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// expectation: code is the documented refusal of the control operation
// op, or "" for no refusal its content decides.
type expectation struct {
	op, code string
	handle   string // for a start: the ungranted handle it named
	require  bool   // for a prepare: require_existing_native_session
}

// observeDeviceFrames judges what a daemon answers against the documented
// code for the situation, as the wire shows it.
func (l *Ledger) observeDeviceFrames(ev WireEvent) {
	switch {
	case ev.Kind == WireClosed:
		// Either end learning of the close retires the connection's
		// admissions (a crashed daemon learns nothing): counting them no
		// longer can only undercount.
		l.admissionsRetired(func(a *admissionRec) bool { return a.conn == ev.Conn })
		return
	case ev.Kind == WireOpened && ev.To == CoreNode:
		// A device's new connection replaces the old one, or follows a
		// restart of its process: earlier admissions are gone.
		l.admissionsRetired(func(a *admissionRec) bool { return a.device == ev.From && a.conn != ev.Conn })
		return
	}
	if !ev.HasFrame() {
		return
	}
	switch c := l.conn(ev.Conn); {
	case ev.Kind == WireDelivered && ev.From == CoreNode:
		l.expectAnswer(c, ev)
	case ev.Kind == WireSent && ev.To == CoreNode:
		switch p := ev.Frame.Payload.(type) {
		case wire.PreparationStatus:
			l.statusSent(c, ev, p)
		case wire.PromptSteerAck:
			l.steerAckSent(c, ev, p)
		case wire.InteractionDecisionAck:
			l.cancelAckSent(c, ev, p)
		}
	}
}

// expectAnswer notes the answer a prepare or a start with an ungranted
// handle that reached the daemon must get.
func (l *Ledger) expectAnswer(c *devConn, ev WireEvent) {
	expect := inner(made(&l.frames.expect), ev.Conn)
	switch p := ev.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		expect[ev.Frame.ID] = expectation{op: wire.TypeExecutionPrepare, code: prepareRefusal(p, c.declared),
			require: p.Configuration.RequireExistingNativeSession}
	case wire.ExecutionStart:
		if h, ok := c.granted[ev.Frame.ID]; !ok || h != p.Handle {
			expect[ev.Frame.ID] = expectation{op: wire.TypeExecutionStart, code: "unknown_preparation", handle: p.Handle}
		}
	}
}

func (l *Ledger) statusSent(c *devConn, ev WireEvent, st wire.PreparationStatus) {
	id, what := ev.Frame.ID, "preparation_status "+ev.Frame.ID+" from "+c.device
	switch {
	case !preparationStates[st.State]:
		l.violate(ev.At, CheckRefusalCode, "%s: state %q is not a preparation state", what, st.State)
	case st.ErrorCode != "" && !preparationCodes[st.ErrorCode]:
		l.violate(ev.At, CheckRefusalCode, "%s %s: code %q is not a preparation code", what, st.State, st.ErrorCode)
	case st.State == wire.StateRejected && (st.ErrorCode == "" || (st.Operation != "" && !controlOperations[st.Operation])):
		l.violate(ev.At, CheckRefusalCode, "%s: rejected with code %q, operation %q", what, st.ErrorCode, st.Operation)
	case st.State == wire.StateExpired && st.ErrorCode != "":
		l.violate(ev.At, CheckRefusalCode, "%s: expired carries code %q", what, st.ErrorCode)
	}
	if st.State != wire.StateRejected && st.Handle != "" {
		l.admissionStatus(ev.At, c, ev.Conn, id, st)
	}
	expect := l.frames.expect[ev.Conn]
	x, ok := expect[id]
	got := ""
	if st.State == wire.StateRejected {
		got = st.ErrorCode
	}
	switch {
	case !ok:
	case x.op == wire.TypeExecutionPrepare:
		delete(expect, id)
		switch {
		case got == "history_unavailable" && !x.require:
			l.violate(ev.At, CheckRefusalCode, "%s refuses with history_unavailable a prepare that requires no existing history", what)
		case x.code != "" && got != x.code:
			l.violate(ev.At, CheckRefusalCode, "%s answers the prepare with %s %q, want rejected %q", what, st.State, got, x.code)
		case x.code == "" && contentCodes[got]:
			l.violate(ev.At, CheckRefusalCode, "%s refuses a prepare whose content passes the table with %q", what, got)
		}
	case st.State == wire.StateRejected && (st.Operation == "" || st.Operation == wire.TypeExecutionStart):
		delete(expect, id)
		if got != x.code {
			l.violate(ev.At, CheckRefusalCode, "%s refuses a start with ungranted handle %s with %q, want %q", what, x.handle, got, x.code)
		}
	case st.State != wire.StateRejected && st.Handle == x.handle:
		l.violate(ev.At, CheckRefusalCode, "%s answers a start with ungranted handle %s with %s", what, x.handle, st.State)
	}
}

func (l *Ledger) steerAckSent(c *devConn, ev WireEvent, a wire.PromptSteerAck) {
	run, what := ev.Frame.ID, "prompt_steer_ack of run "+ev.Frame.ID+" input "+a.InputID+" from "+c.device
	delivered, seen := c.steered[pairKey(run, a.InputID)]
	switch {
	case a.ErrorCode != "" && !steerCodes[a.ErrorCode]:
		l.violate(ev.At, CheckRefusalCode, "%s: code %q is not a steering code", what, a.ErrorCode)
	case a.Accepted && a.ErrorCode != "":
		l.violate(ev.At, CheckRefusalCode, "%s: accepted with code %q", what, a.ErrorCode)
	case seen:
		l.judgeRunCode(ev.At, what+": "+a.ErrorCode, "input", a.ErrorCode, c, run, delivered, !c.run(run).cancelled)
	}
}

func (l *Ledger) cancelAckSent(c *devConn, ev WireEvent, a wire.InteractionDecisionAck) {
	delivered, isCancel := c.cancelled[a.DeliveryID]
	if !isCancel {
		return // a decision or function-result receipt
	}
	l.cancelReceiptValidates(ev, a)
	run, what := ev.Frame.ID, "cancel receipt of run "+ev.Frame.ID+" from "+c.device
	if l.receiptCode(ev.At, what, "cancel", cancelCodes, a) {
		l.judgeRunCode(ev.At, what+": "+a.ErrorCode, "cancel", a.ErrorCode, c, run, delivered, true)
	}
}

// receiptCode judges a receipt's code against its family's set: applied
// carries none, a refusal one of the set. It reports whether both hold.
func (l *Ledger) receiptCode(at int64, what, family string, codes map[string]bool, a wire.InteractionDecisionAck) bool {
	switch {
	case a.Applied && a.ErrorCode != "":
		l.violate(at, CheckRefusalCode, "%s: applied with code %q", what, a.ErrorCode)
	case !a.Applied && !codes[a.ErrorCode]:
		l.violate(at, CheckRefusalCode, "%s: refused with %q, not a %s code", what, a.ErrorCode, family)
	default:
		return true
	}
	return false
}

// judgeRunCode: a Run that started here before the frame arrived is live
// while no done, error or (when uncancelled) cancel passed, the Harness
// has not settled it and its daemon was not asked to shut down by then
// (shutdown cancels every Turn, daemon/doc.go).
func (l *Ledger) judgeRunCode(at int64, what, frame, code string, c *devConn, run string, delivered int64, uncancelled bool) {
	r := c.run(run)
	if !r.started || r.startedAt >= delivered {
		return
	}
	t := l.harness.turns[run]
	if sd, asked := l.hostile.shutdownAt[c.device]; asked && sd <= delivered {
		uncancelled = false
	}
	switch {
	case code == "not_ready":
		l.violate(at, CheckRefusalCode, "%s, but the run started before the %s arrived", what, frame)
	case code == "run_inactive" && uncancelled && !r.ended && t != nil && t.settled == "":
		l.violate(at, CheckRefusalCode, "%s for a live run", what)
	}
}

// ixAckCode judges the receipt of a decision or function result Core sent.
func (l *Ledger) ixAckCode(ev WireEvent, a wire.InteractionDecisionAck, att *ixAttempt) {
	family, codes := "decision", decisionAckCodes
	if att.result {
		family, codes = "function result", resultAckCodes
	}
	l.receiptCode(ev.At, family+" receipt "+a.DeliveryID+" from "+ev.From, family, codes, a)
}

// prepareRefusal is the refusal the table's content rows give a prepare
// on a device with this declaration, in the table's order, or "".
func prepareRefusal(p wire.ExecutionPrepare, kinds map[string]wire.SupportedAgentKind) string {
	c := p.Configuration
	if strings.TrimSpace(p.SessionID) == "" || c.RunID != "" || len(c.Input) > 0 || c.ConversationID != "" ||
		c.WorkspaceAuthoring || c.AgentStateKey != stateKeyPrefix+p.SessionID || !c.StrictResume {
		return "invalid_configuration"
	}
	k, ok := kinds[c.AgentKind]
	if !ok || !k.Available {
		return "" // resource_unavailable, decided by the device's state too
	}
	caps := k.Capabilities
	switch {
	case c.WorkspaceReadOnly:
		return readOnlyRefusal(c, caps)
	case !caps.Preparation.IsSupported():
		return "unsupported_preparation"
	}
	local := c.LocalEnvironment != nil
	if local == c.DisableExecutionEnvironment || (local && !caps.LocalEnvironment.IsSupported()) ||
		(c.DisableExecutionEnvironment && !caps.EnvironmentNone.IsSupported()) ||
		(len(c.FunctionTools) > 0 && !caps.FunctionTools.IsSupported()) {
		return "unsupported_configuration"
	}
	if code := mcpExpected(c, caps); code != "" {
		return code
	}
	for key := range c.AgentOptions { //tidy:sorted any order gives the same answer
		switch key {
		case wire.AgentOptionModel, wire.AgentOptionSystemPrompt, wire.AgentOptionModelProvider, wire.AgentOptionHarnessConfig:
		default:
			return "unsupported_configuration"
		}
	}
	return ""
}

// readOnlyRefusal is the read-only profile's refusal (wire reference
// §3.14): only the bound local Environment and resource identity, with
// release_on_completion; none of the execution members; the kind declares
// workspace_read_preparation.
func readOnlyRefusal(c wire.ExecutionConfiguration, caps wire.AgentKindCapabilities) string {
	switch {
	case c.LocalEnvironment == nil || !c.ReleaseOnCompletion || c.AgentSessionID != "" ||
		c.RequireExistingNativeSession || c.DisableExecutionEnvironment || c.AgentOptions != nil ||
		c.ExecutionControls != nil || c.MCPHTTPServers != nil || c.FunctionTools != nil || c.ToolSearch ||
		c.ObserveMessages || c.ObserveToolObservations || c.ObserveSubagentIdentities:
		return "unsupported_read_preparation"
	case strings.TrimSpace(c.AgentKind) == "" || strings.TrimSpace(c.LocalEnvironment.ID) == "":
		return "invalid_configuration"
	case !caps.WorkspaceReadPreparation.IsSupported():
		return "unsupported_read_preparation"
	}
	return ""
}

// tableAnswer is the answer the configuration table gives a forged
// prepare (the one of ReplyID that reached the daemon) on the daemon's
// declaration of the probe's connection, or nil when the table refuses
// nothing (or no prepare of ReplyID reached it).
func (l *Ledger) tableAnswer(p *HostileProbe) []string {
	c := l.conn(p.Conn)
	if prep, ok := c.prepared[p.ReplyID]; ok {
		if code := prepareRefusal(prep, c.declared); code != "" {
			return []string{"rejected/" + code}
		}
	}
	return nil
}

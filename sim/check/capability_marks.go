package check

import "github.com/turnstile-sim/turnstile/wire"

// Capability situation marks: the states in which Core must choose
// against a device (the capability rule judges the choice, frames_core.go).
const (
	// a prepare went out while another connection declared the kind
	// available without tool_observations (always required)
	MarkToolObservationsLacking = Mark("tool_observations_lacking")
	// a prepare needing native_session_recovery went out while another
	// connection declared the kind available without it
	MarkRecoveryLacking = Mark("native_session_recovery_lacking")
	// a ready status reached Core for a preparation whose connection's
	// latest declaration no longer admits the Session (the start must be refused)
	MarkReadyNoLongerAdmitted = Mark("ready_no_longer_admitted")
	// a prepare went to a connection declaring the kind without
	// message_items but with tool_observations (observe_messages false)
	MarkMessageItemsLacking = Mark("message_items_lacking")
	// a prepare of a Session with MCP servers, function tools or a hosted
	// placement went out while another connection declared the kind
	// available without a capability of that family the Session needs
	// (one of mcp_http_tools, mcp_http_required, mcp_http_bearer_auth;
	// function_tools; workspace_output_export)
	MarkMCPCapabilityLacking = Mark("mcp_capability_lacking")
	MarkFunctionToolsLacking = Mark("function_tools_lacking")
	MarkOutputExportLacking  = Mark("workspace_output_export_lacking")
)

// observeCapabilitySituations runs after observeCoreFrames has updated the
// declarations and preparations. A frame that did not decode has no
// payload.
func (l *Ledger) observeCapabilitySituations(ev WireEvent) {
	switch p := ev.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		if ev.Kind == WireSent && ev.From == CoreNode && !p.Configuration.WorkspaceReadOnly {
			l.markPrepareChoice(ev.Conn, ev.Frame.ID, p)
		}
	case wire.PreparationStatus:
		if ev.Kind == WireDelivered && ev.To == CoreNode && p.State == wire.StateReady {
			l.markReadyNoLongerAdmitted(ev.Conn, ev.Frame.ID)
		}
	}
}

func (l *Ledger) markPrepareChoice(conn uint64, reqID string, p wire.ExecutionPrepare) {
	f := &l.frames
	s, pr := f.sessions[p.SessionID], f.preps[reqID]
	if s == nil || pr == nil {
		return
	}
	if c := f.conns[conn]; c != nil && c.known && !c.opaque {
		caps := c.kinds[s.spec.Kind].Capabilities
		if !caps.MessageItems.IsSupported() && caps.ToolObservations.IsSupported() {
			l.reach(MarkMessageItemsLacking)
		}
	}
	req := RequiredCapabilities(s.spec, pr.recovery, false)
	for _, id := range f.connIDs { // ascending
		c := f.conns[id]
		k, ok := c.kinds[s.spec.Kind]
		if id == conn || !c.known || c.opaque || !ok || !k.Available {
			continue
		}
		for _, name := range missingCapabilities(req, k.Capabilities) {
			switch name {
			case "mcp_http_tools", "mcp_http_required", "mcp_http_bearer_auth":
				l.reach(MarkMCPCapabilityLacking)
			case "function_tools":
				l.reach(MarkFunctionToolsLacking)
			case "workspace_output_export":
				l.reach(MarkOutputExportLacking)
			case capNativeSessionRecovery: // required only for a recovery
				l.reach(MarkRecoveryLacking)
			case capToolObservations:
				l.reach(MarkToolObservationsLacking)
			}
		}
	}
}

func (l *Ledger) markReadyNoLongerAdmitted(conn uint64, req string) {
	f := &l.frames
	pr := f.preps[req]
	if pr == nil || pr.conn != conn {
		return
	}
	s, c := f.sessions[pr.session], f.conns[conn]
	if s == nil || c == nil || !c.known || c.opaque {
		return
	}
	k, ok := c.kinds[s.spec.Kind]
	if !ok || !k.Available || len(missingCapabilities(RequiredCapabilities(s.spec, pr.recovery, false), k.Capabilities)) > 0 {
		l.reach(MarkReadyNoLongerAdmitted)
	}
}

// observeForgedHeartbeats: a heartbeat a hostile middle replays or
// duplicates is Core's latest snapshot too (it cannot tell it from the
// daemon's own), so the capability rule judges Core's choices against it.
func (l *Ledger) observeForgedHeartbeats(ev WireEvent) {
	hb, ok := ev.Frame.Payload.(wire.Heartbeat) // none when the frame did not decode
	if c := l.frames.conns[ev.Conn]; ok && c != nil && ev.Forged && ev.Kind == WireDelivered && ev.To == CoreNode {
		c.known, c.kinds = true, kindsOf(hb)
	}
}

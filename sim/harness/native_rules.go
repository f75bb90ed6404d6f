package harness

import (
	"strings"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// NativeHistory is the native side's memory of Sessions: which Sessions
// have native history (a native turn was created for one of their Runs)
// and under which native session ID. Devices of one world share it, as
// native sessions outlive a daemon process and a device; nil on a Device
// keeps one per Harness.
type NativeHistory struct {
	sessions map[string]string // Session → native session ID
}

// NewNativeHistory returns an empty native memory.
func NewNativeHistory() *NativeHistory { return &NativeHistory{sessions: map[string]string{}} }

// nativeSessionID is the native session the Harness keeps for a Session.
func nativeSessionID(session string) string { return "native-" + session }

func (n *NativeHistory) record(session string) { n.sessions[session] = nativeSessionID(session) }

func (n *NativeHistory) has(session string) bool { _, ok := n.sessions[session]; return ok }

func (h *Harness) history() *NativeHistory {
	if h.dev.Native != nil {
		return h.dev.Native
	}
	if h.native == nil {
		h.native = NewNativeHistory()
	}
	return h.native
}

// nativeRefusal is what a native engine refuses when asked to prepare an
// executor: an agent option or a feature it was not configured for (the
// device's declaration of the kind), a new root where existing history is
// required, or a native session that is not the Session's. Each refusal
// is also a breach of the daemon's contract in Truth: the daemon admits
// only what it declared and answers history_unavailable itself.
func (h *Harness) nativeRefusal(op daemon.Prepare) string {
	c := op.Configuration
	if why := h.unconfigured(op.Kind, c); why != "" {
		h.truth.violate("prepare of executor %s for session %s with %s", op.Executor, op.Session, why)
		return "native engine not configured for " + why
	}
	switch {
	case c.RequireExistingNativeSession && c.AgentSessionID == "":
		h.truth.violate("prepare of executor %s for session %s requires existing history but names no native session: a new root", op.Executor, op.Session)
		return "existing native history required; refusing a new root"
	case strings.HasPrefix(c.AgentSessionID, check.HostileIDPrefix):
		// a native session only a hostile peer names (a rogue Core's, for a
		// Session whose executor is gone): the engine refuses it, and the
		// daemon, holding no native identity for the Session, could not
		// know it was foreign
		return "native session " + c.AgentSessionID + " is unknown"
	case c.AgentSessionID != "" && c.AgentSessionID != nativeSessionID(op.Session):
		h.truth.violate("prepare of executor %s for session %s resumes native session %s, not the session's", op.Executor, op.Session, c.AgentSessionID)
		return "native session " + c.AgentSessionID + " is not this session's"
	}
	return ""
}

// forksHistory: a preparation that names no native session and requires
// none starts a new native root; when the Session already has native
// history, a turn on that executor forks it (recorded at the start).
// It is judged only where the world shares its native sessions (a client
// that keeps Session continuity drives every device).
func (h *Harness) forksHistory(op daemon.Prepare) bool {
	c := op.Configuration
	return h.dev.Native != nil && c.AgentSessionID == "" && !c.RequireExistingNativeSession && h.history().has(op.Session)
}

// unconfigured names an agent option or configured feature the device's
// declaration of kind does not cover, or "".
func (h *Harness) unconfigured(kind string, c wire.ExecutionConfiguration) string {
	for _, key := range sortedKeys(c.AgentOptions) {
		switch key {
		case wire.AgentOptionModel, wire.AgentOptionSystemPrompt, wire.AgentOptionModelProvider, wire.AgentOptionHarnessConfig:
		default:
			return "agent option " + key
		}
	}
	var caps *wire.AgentKindCapabilities
	for i := range h.dev.Daemon.Kinds {
		if k := &h.dev.Daemon.Kinds[i]; k.Kind == kind {
			caps = &k.Capabilities
		}
	}
	if caps == nil {
		return "" // a Harness without a declaration of kind judges only options
	}
	ctl := c.ExecutionControls
	checks := []struct {
		used bool
		cap  wire.CapabilitySupport
		what string
	}{
		{c.LocalEnvironment != nil, caps.LocalEnvironment, "local_environment"},
		{c.DisableExecutionEnvironment, caps.EnvironmentNone, "disable_execution_environment"},
		{len(c.FunctionTools) > 0, caps.FunctionTools, "function_tools"},
		{c.ToolSearch, caps.ToolSearch, "tool_search"},
		{c.ObserveMessages, caps.MessageItems, "observe_messages"},
		{c.ObserveSubagentIdentities, caps.SubagentObservations, "observe_subagent_identities"},
		{c.DisableSubagents, caps.SubagentControl, "disable_subagents"},
		{ctl != nil && ctl.OutputFormat != nil, caps.StructuredOutput, "output_format"},
		{ctl != nil && ctl.DisableProgrammaticToolCalling, caps.ProgrammaticToolCallingDisable, "disable_programmatic_tool_calling"},
		{c.MCPHTTPServers != nil && len(*c.MCPHTTPServers) > 0, caps.MCPHTTPTools, "mcp_http_servers"},
	}
	for _, k := range checks {
		if k.used && !k.cap.IsSupported() {
			return k.what
		}
	}
	return ""
}

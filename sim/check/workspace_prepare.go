package check

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// readOnlyPrepareSent judges a read-only profile Core sent (the seed's
// 工作区操作 rules): to a device declaring the Session's kind available
// with workspace_read_preparation; the Session's exact Environment and
// resource identity, release_on_completion, and nothing of an execution:
// no options, controls, credentials, tools, native continuation or input.
func (l *Ledger) readOnlyPrepareSent(ev WireEvent, p wire.ExecutionPrepare, s *sessionFacts) {
	what := "read-only execution_prepare " + ev.Frame.ID + " of session " + p.SessionID
	l.checkDeclaration(ev.At, ev.Conn, what, s.spec.Kind, []string{capWorkspaceReadPreparation})
	c := p.Configuration
	var bad []string
	want := func(ok bool, format string, args ...any) {
		if !ok {
			bad = append(bad, fmt.Sprintf(format, args...))
		}
	}
	want(s.spec.Environment != EnvNone, "a Session without an Environment")
	want(c.AgentKind == s.spec.Kind, "agent_kind %q, want %q", c.AgentKind, s.spec.Kind)
	want(c.LocalEnvironment != nil && c.LocalEnvironment.ID == s.spec.EnvironmentID, "not the Session's Environment")
	want(c.AgentStateKey == stateKeyPrefix+p.SessionID && c.StrictResume && c.ReleaseOnCompletion,
		"state key, strict_resume or release_on_completion")
	want(c.RunID == "" && c.ConversationID == "" && c.Input == nil && c.AgentSessionID == "" &&
		!c.RequireExistingNativeSession, "carries Run input or native continuation")
	want(c.AgentOptions == nil && c.ExecutionControls == nil && c.MCPHTTPServers == nil && c.FunctionTools == nil &&
		!c.ToolSearch && !c.DisableExecutionEnvironment && !c.WorkspaceAuthoring, "carries execution options")
	want(!c.ObserveMessages && !c.ObserveToolObservations && !c.ObserveSubagentIdentities, "asks for observations")
	for _, b := range bad {
		l.violate(ev.At, CheckPrepareConfiguration, "%s: %s", what, b)
	}
}

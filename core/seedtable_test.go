package core_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// seedRequired is the seed's admission table (能力声明), written out here
// independently of core.Requirements: the capabilities a Turn of Session s
// needs on the selected device. images: the Turn's input or an active
// input queued before the claim carries an image. profile: the engine
// profile's declared controls.
func seedRequired(s core.SessionRecord, profile core.EngineProfile, images bool) []string {
	a := s.Agent
	// 始终要求 (every execution on the Harness)
	need := []string{"streaming", "steering", "durable_turns", "durable_input_receipts",
		"preparation", "execution_controls", "tool_observations"}
	add := func(cond bool, names ...string) {
		if cond {
			need = append(need, names...)
		}
	}
	add(a.Environment == core.EnvNone, "environment_none")
	add(a.Environment == core.EnvSelfHosted || a.Environment == core.EnvOpenAIHosted,
		"local_environment", "workspace_read_preparation", "workspace_output_export")
	add(s.StartedTurns > 0 && s.NativeSessionID == "", "native_session_recovery")
	add(profile.WebSearchControl, "web_search_control")
	add(profile.TextVerbosity, "text_verbosity")
	add(a.OutputSchema != nil, "structured_output", "message_items")
	add(a.MultiAgent, "subagent_observations")
	add(!a.MultiAgent, "subagent_control")
	deferred := false
	for _, f := range a.FunctionTools {
		deferred = deferred || f.DeferLoading
	}
	add(a.ToolSearch || deferred, "tool_search")
	add(a.DisableProgrammaticToolCalling, "programmatic_tool_calling_disable")
	add(len(a.FunctionTools) > 0, "function_tools")
	add(images, "message_images")
	add(a.FunctionResultImages, "function_result_images")
	required, vault := false, false
	for _, m := range a.MCPServers {
		required = required || m.Required
		vault = vault || m.BearerToken != ""
	}
	add(len(a.MCPServers) > 0, "mcp_http_tools")
	add(required, "mcp_http_required")
	add(vault, "mcp_http_bearer_auth")
	return need
}

// seedMissing is the first name of need the declaration does not support.
func seedMissing(caps wire.AgentKindCapabilities, need []string) string {
	supported := map[string]bool{}
	for _, f := range caps.Fields() {
		supported[f.Name] = *f.Value == wire.CapabilitySupported
	}
	for _, n := range need {
		if !supported[n] {
			return n
		}
	}
	return ""
}

// TestRequirementsMatchSeedTable compares core.Requirements with the
// independent table over every row's Agent and Session history.
func TestRequirementsMatchSeedTable(t *testing.T) {
	for _, row := range admissionRows() {
		a := defaultAgent()
		row.agent(&a)
		for _, hist := range []core.SessionRecord{{}, {StartedTurns: 2}, {StartedTurns: 1, NativeSessionID: "n"}} {
			s := hist
			s.Agent = a
			images := row.input.HasImages()
			got := core.Requirements(s, row.profile, images)
			want := seedRequired(s, row.profile, images)
			slices.Sort(got)
			slices.Sort(want)
			require.Equal(t, want, got, "%s %+v", row.name, hist)
		}
	}
}

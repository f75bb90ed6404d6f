package engine_test

import (
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/acp"
	"github.com/turnstile-sim/turnstile/adapters/claude"
	"github.com/turnstile-sim/turnstile/adapters/codex"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestBuiltinCatalogCoversEveryShippedHarness: every Harness kind this
// repository ships has a built-in profile, and a profile never qualifies
// an operation its adapter's own declaration does not support. (A local
// placement is not compared: a Session bound to an Environment is served
// workspace operations by the Runtime's workspace owner, whatever the
// Harness declares for Turns.)
func TestBuiltinCatalogCoversEveryShippedHarness(t *testing.T) {
	shipped := map[string]wire.AgentKindCapabilities{
		claude.Kind:    claude.Capabilities(),
		codex.Kind:     codex.Capabilities(),
		synthetic.Kind: synthetic.Capabilities(),
	}
	for _, p := range acp.Profiles() {
		shipped[p.Kind()] = acp.Capabilities(p)
	}
	if got := len(engine.Builtin().Kinds()); got != len(shipped) {
		t.Fatalf("built-in catalog has %d kinds, %d Harnesses ship", got, len(shipped))
	}
	for kind, caps := range shipped {
		p, ok := engine.Builtin().Lookup(kind)
		if !ok {
			t.Fatalf("no built-in profile for shipped kind %s", kind)
		}
		pc := p.Capabilities
		pairs := []struct {
			name      string
			qualified bool
			declared  wire.CapabilitySupport
		}{
			{"web_search_control", pc.WebSearchControl.IsSupported(), caps.WebSearchControl},
			{"text_verbosity", pc.TextVerbosity.IsSupported(), caps.TextVerbosity},
			{"structured_output", pc.StructuredOutput.IsSupported(), caps.StructuredOutput},
			{"message_images", pc.MessageImages.IsSupported(), caps.MessageImages},
			{"function_tools", pc.FunctionTools.IsSupported(), caps.FunctionTools},
			{"tool_search", pc.ToolSearch.IsSupported(), caps.ToolSearch},
			{"function_result_images", pc.FunctionResultImages.IsSupported(), caps.FunctionResultImages},
			{"programmatic_tool_calling_disable", pc.ProgrammaticToolCallingDisable.IsSupported(), caps.ProgrammaticToolCallingDisable},
			{"subagent_observations", pc.Subagents.IsSupported(), caps.SubagentObservations},
			{"mcp_http_required", pc.MCPRequired.IsSupported(), caps.MCPHTTPRequired},
			{"mcp_http_tools", len(p.MCPOrigins) > 0, caps.MCPHTTPTools},
			{"mcp_http_bearer_auth", p.MCPBearer.IsSupported(), caps.MCPHTTPBearerAuth},
			{"environment_none", p.Supports(engine.PlacementNone), caps.EnvironmentNone},
		}
		for _, c := range pairs {
			if c.qualified && !c.declared.IsSupported() {
				t.Errorf("%s: the profile qualifies %s, the adapter does not declare it", kind, c.name)
			}
		}
	}
}

// TestACPProfilesAgreeWithTheAdapter: every ACP vendor profile has a
// built-in profile of its kind, and the two agree both ways on what Core
// admits: no optional operation the adapter does not declare, and only the
// environment-none placement (the adapter serves no workspace operation,
// which a local placement needs). Every kind with a steering extension
// declares what Core always requires of active input, steering and durable
// input receipts, so Core's admission is decided by the declaration alone.
func TestACPProfilesAgreeWithTheAdapter(t *testing.T) {
	for _, ap := range acp.Profiles() {
		caps := acp.Capabilities(ap)
		p, ok := engine.Builtin().Lookup(ap.Kind())
		if !ok {
			t.Fatalf("no built-in profile for %s", ap.Kind())
		}
		for _, f := range p.Capabilities.Fields() {
			if f.Value.IsSupported() {
				t.Errorf("%s: the profile qualifies %s", ap.Kind(), f.Name)
			}
		}
		local := caps.LocalEnvironment.IsSupported() && caps.WorkspaceReadPreparation.IsSupported() && caps.WorkspaceOutputExport.IsSupported()
		if p.Supports(engine.PlacementSelfHosted) != local || !p.Supports(engine.PlacementNone) {
			t.Errorf("%s: placements %v", ap.Kind(), p.Placements)
		}
		if len(p.MCPOrigins) != 0 || p.MCPBearer.IsSupported() {
			t.Errorf("%s: MCP qualified", ap.Kind())
		}
		if ap.Steer != nil && (!caps.Steering.IsSupported() || !caps.DurableInputReceipts.IsSupported()) {
			t.Errorf("%s: a steering extension, steering %v, durable input receipts %v",
				ap.Kind(), caps.Steering, caps.DurableInputReceipts)
		}
	}
}

package engine_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/adapters/acp"
	"github.com/turnstile-sim/turnstile/adapters/claude"
	"github.com/turnstile-sim/turnstile/adapters/codex"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/wire"
)

// shippedDeclarations is the capability declaration of every Harness
// kind this repository ships, by kind.
func shippedDeclarations() map[string]wire.AgentKindCapabilities {
	shipped := map[string]wire.AgentKindCapabilities{
		claude.Kind:    claude.Capabilities(),
		codex.Kind:     codex.Capabilities(),
		synthetic.Kind: synthetic.Capabilities(),
	}
	for _, p := range acp.Profiles() {
		shipped[p.Kind()] = acp.Capabilities(p)
	}
	return shipped
}

// beyondDeclaration lists what profile p qualifies that declaration caps
// does not support: an optional operation, an MCP origin or bearer, or a
// placement. Environment none needs environment_none; a local placement
// (self-hosted or OpenAI-hosted) needs what Core requires of a device for
// it: local_environment, workspace_read_preparation and
// workspace_output_export.
func beyondDeclaration(p engine.Profile, caps wire.AgentKindCapabilities) []string {
	pc := p.Capabilities
	local := p.Supports(engine.PlacementSelfHosted) || p.Supports(engine.PlacementOpenAIHosted)
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
		{"environment_none (placement none)", p.Supports(engine.PlacementNone), caps.EnvironmentNone},
		{"local_environment (a local placement)", local, caps.LocalEnvironment},
		{"workspace_read_preparation (a local placement)", local, caps.WorkspaceReadPreparation},
		{"workspace_output_export (a local placement)", local, caps.WorkspaceOutputExport},
	}
	var out []string
	for _, c := range pairs {
		if c.qualified && !c.declared.IsSupported() {
			out = append(out, c.name)
		}
	}
	return out
}

// TestBuiltinCatalogCoversEveryShippedHarness: every Harness kind this
// repository ships has a built-in profile, and a profile never qualifies
// an operation or a placement its adapter's own declaration does not
// support, so Core never admits a Session no device of the kind can run.
func TestBuiltinCatalogCoversEveryShippedHarness(t *testing.T) {
	shipped := shippedDeclarations()
	if got := len(engine.Builtin().Kinds()); got != len(shipped) {
		require.Fail(t, fmt.Sprintf("built-in catalog has %d kinds, %d Harnesses ship", got, len(shipped)))
	}
	for kind, caps := range shipped {
		p, ok := engine.Builtin().Lookup(kind)
		require.Truef(t, ok, "no built-in profile for shipped kind %s", kind)
		for _, name := range beyondDeclaration(p, caps) {
			require.Fail(t, fmt.Sprintf("%s: the profile qualifies %s, the adapter does not declare it", kind, name))
		}
	}
}

// TestBeyondDeclarationNamesEachPlacement: the comparison above finds a
// local placement the declaration cannot serve (each of the three
// capabilities it needs) and a placement none without environment_none.
func TestBeyondDeclarationNamesEachPlacement(t *testing.T) {
	p := engine.SyntheticProfile()
	caps := synthetic.Capabilities()
	if got := beyondDeclaration(p, caps); len(got) != 0 {
		require.Fail(t, fmt.Sprintf("synthetic: %v", got))
	}
	caps.LocalEnvironment, caps.WorkspaceOutputExport, caps.EnvironmentNone = wire.CapabilityUnsupported, wire.CapabilityUnsupported, wire.CapabilityUnsupported
	want := []string{"environment_none (placement none)", "local_environment (a local placement)", "workspace_output_export (a local placement)"}
	if got := beyondDeclaration(p, caps); !slices.Equal(got, want) {
		require.Fail(t, fmt.Sprintf("got %v, want %v", got, want))
	}
	p.Placements = []engine.Placement{engine.PlacementOpenAIHosted}
	caps = synthetic.Capabilities()
	caps.WorkspaceReadPreparation = wire.CapabilityUnsupported
	if got := beyondDeclaration(p, caps); !slices.Equal(got, []string{"workspace_read_preparation (a local placement)"}) {
		require.Fail(t, fmt.Sprintf("openai_hosted alone: %v", got))
	}
}

// TestCodexProfileQualifiesLocalPlacements: Codex runs in the bound
// workspace and declares what a local placement needs, so its profile
// qualifies both local placements besides environment none.
func TestCodexProfileQualifiesLocalPlacements(t *testing.T) {
	p := engine.CodexProfile()
	for _, pl := range engine.Placements {
		require.Truef(t, p.Supports(pl), "codex profile does not qualify %s", pl)
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
			require.Fail(t, fmt.Sprintf("no built-in profile for %s", ap.Kind()))
		}
		for _, f := range p.Capabilities.Fields() {
			if f.Value.IsSupported() {
				require.Fail(t, fmt.Sprintf("%s: the profile qualifies %s", ap.Kind(), f.Name))
			}
		}
		local := caps.LocalEnvironment.IsSupported() && caps.WorkspaceReadPreparation.IsSupported() && caps.WorkspaceOutputExport.IsSupported()
		if p.Supports(engine.PlacementSelfHosted) != local || !p.Supports(engine.PlacementNone) {
			require.Fail(t, fmt.Sprintf("%s: placements %v", ap.Kind(), p.Placements))
		}
		if len(p.MCPOrigins) != 0 || p.MCPBearer.IsSupported() {
			require.Fail(t, fmt.Sprintf("%s: MCP qualified", ap.Kind()))
		}
		if ap.Steer != nil && (!caps.Steering.IsSupported() || !caps.DurableInputReceipts.IsSupported()) {
			require.Fail(t, fmt.Sprintf("%s: a steering extension, steering %v, durable input receipts %v", ap.Kind(), caps.Steering, caps.DurableInputReceipts))
		}
	}
}

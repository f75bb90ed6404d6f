package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/wire"
)

func textRequest(kind string) engine.Request {
	return engine.Request{Kind: kind, Placement: engine.PlacementNone, Model: "m"}
}

func TestExplicitEmptyCatalogAuthorisesNothing(t *testing.T) {
	p := engine.For(engine.NewCatalog())
	for _, kind := range []string{"synthetic", "k", ""} {
		require.ErrorIs(t, p.Admit(textRequest(kind)), engine.ErrUnknownEngine)
		require.Equal(t, false, p.Qualified(kind, engine.PlacementNone))
		require.Equal(t, engine.Controls{}, p.Controls(kind))
	}
}

func TestZeroPolicyUsesTheBuiltinCatalog(t *testing.T) {
	var p engine.Policy
	kind := engine.SyntheticProfile().Kind
	require.NoError(t, p.Admit(textRequest(kind)))
	require.Equal(t, true, p.Qualified(kind, engine.PlacementSelfHosted))
	require.ErrorIs(t, p.Admit(textRequest("unknown")), engine.ErrUnknownEngine)
	require.Equal(t, engine.Builtin(), p.Catalog())
}

func TestAdmitRefusesEachUnqualifiedOperation(t *testing.T) {
	p := engine.For(engine.NewCatalog(enginetest.TextOnly("t")))
	tools := []wire.FunctionTool{{Name: "f"}}
	allowed := []string{}
	rows := []struct {
		name, op string
		edit     func(*engine.Request)
	}{
		{"placement", "placement", func(r *engine.Request) { r.Placement = engine.PlacementSelfHosted }},
		{"structured output", "structured_output", func(r *engine.Request) { r.StructuredOutput = true }},
		{"images", "message_images", func(r *engine.Request) { r.MessageImages = true }},
		{"function tools", "function_tools", func(r *engine.Request) { r.FunctionTools = tools }},
		{"tool search", "tool_search", func(r *engine.Request) { r.ToolSearch = true }},
		{"function result images", "function_result_images", func(r *engine.Request) { r.FunctionResultImages = true }},
		{"programmatic", "programmatic_tool_calling_disable", func(r *engine.Request) { r.DisableProgrammaticToolCalling = true }},
		{"multi agent", "multi_agent", func(r *engine.Request) { r.MultiAgent = true }},
		{"mcp origin", "mcp_http_servers[0].connection_origin", func(r *engine.Request) {
			r.MCPServers = []wire.MCPHTTPServer{{ConnectionOrigin: wire.OriginService, ServerLabel: "l", ServerURL: "u", AllowedTools: &allowed}}
		}},
	}
	require.NoError(t, p.Admit(textRequest("t")))
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			r := textRequest("t")
			row.edit(&r)
			err := p.Admit(r)
			require.ErrorIs(t, err, engine.ErrUnqualified)
			require.Contains(t, err.Error(), row.op)
		})
	}
}

func TestAdmitMCPRequiredAndBearer(t *testing.T) {
	prof := enginetest.Full("f")
	prof.Capabilities.MCPRequired = wire.CapabilityUnsupported
	prof.MCPBearer = wire.CapabilityUnsupported
	prof.MCPOrigins = []string{wire.OriginService}
	p := engine.For(engine.NewCatalog(prof))
	server := wire.MCPHTTPServer{ConnectionOrigin: wire.OriginService, ServerLabel: "l", ServerURL: "u"}
	r := textRequest("f")
	r.MCPServers = []wire.MCPHTTPServer{server}
	require.NoError(t, p.Admit(r))

	env := server
	env.ConnectionOrigin = wire.OriginEnvironment
	r.MCPServers = []wire.MCPHTTPServer{server, env}
	require.Contains(t, p.Admit(r).Error(), "mcp_http_servers[1].connection_origin")

	req := server
	req.Required = true
	r.MCPServers = []wire.MCPHTTPServer{req}
	require.Contains(t, p.Admit(r).Error(), "mcp_http_servers[0].required")

	bearer := server
	bearer.BearerToken = "vault-token-never-echoed"
	r.MCPServers = []wire.MCPHTTPServer{bearer}
	err := p.Admit(r)
	require.Contains(t, err.Error(), "mcp_http_servers[0].bearer_token")
	require.NotContains(t, err.Error(), "vault-token-never-echoed")
}

// TestAdmitErrorPrecedence: configuration limits first, then
// qualification, then tool decoding before tool limits.
func TestAdmitErrorPrecedence(t *testing.T) {
	full := enginetest.Full("f")
	noTools := enginetest.Full("n")
	noTools.Capabilities.StructuredOutput = wire.CapabilityUnsupported
	p := engine.For(engine.NewCatalog(full, noTools))

	r := textRequest("n")
	r.Model = enginetest.RefusedModel
	r.StructuredOutput = true
	r.FunctionTools = []wire.FunctionTool{{Name: ""}}
	require.ErrorIs(t, p.Admit(r), enginetest.ErrModelRefused)

	r.Model = "m"
	require.ErrorIs(t, p.Admit(r), engine.ErrUnqualified)

	r.Kind = "f"
	r.FunctionTools = []wire.FunctionTool{{Name: enginetest.RefusedToolPrefix + "x"}, {Name: ""}}
	require.ErrorIs(t, p.Admit(r), engine.ErrInvalidTools)

	r.FunctionTools = []wire.FunctionTool{{Name: enginetest.RefusedToolPrefix + "x"}}
	err := p.Admit(r)
	require.ErrorIs(t, err, engine.ErrRejected)
	require.ErrorIs(t, err, enginetest.ErrToolRefused)

	r.FunctionTools = []wire.FunctionTool{{Name: "ok", Parameters: json.RawMessage(`{"type":"object"}`)}}
	require.NoError(t, p.Admit(r))
}

func TestCommonToolDecoding(t *testing.T) {
	p := engine.For(engine.NewCatalog(enginetest.Full("f")))
	rows := []struct {
		tools []wire.FunctionTool
		field string
	}{
		{[]wire.FunctionTool{{Name: " "}}, "function_tools[0].name: blank"},
		{[]wire.FunctionTool{{Name: "a"}, {Name: "a"}}, "function_tools[1].name: duplicate"},
		{[]wire.FunctionTool{{Name: "a", Parameters: json.RawMessage(`[1]`)}}, "function_tools[0].parameters"},
		{[]wire.FunctionTool{{Name: "a", Parameters: json.RawMessage(`null`)}}, "function_tools[0].parameters"},
	}
	for _, row := range rows {
		r := textRequest("f")
		r.FunctionTools = row.tools
		err := p.Admit(r)
		require.ErrorIs(t, err, engine.ErrInvalidTools)
		require.Contains(t, err.Error(), row.field)
	}
}

func TestCommonOnlyToolsSkipCallbacks(t *testing.T) {
	prof := enginetest.TextOnly("c")
	prof.Capabilities.FunctionTools = wire.CapabilitySupported
	p := engine.For(engine.NewCatalog(prof))
	r := textRequest("c")
	r.Model = enginetest.RefusedModel
	r.FunctionTools = []wire.FunctionTool{{Name: enginetest.RefusedToolPrefix + "x"}}
	require.NoError(t, p.Admit(r))
}

func TestFunctionResultPolicy(t *testing.T) {
	p := engine.For(engine.NewCatalog(enginetest.Full("f"), enginetest.TextOnly("c")))
	refused := wire.FunctionResult{DeliveryID: "d", CallID: "c", Content: []wire.InputContent{wire.TextPart(enginetest.RefusedResultMarker)}}
	require.ErrorIs(t, p.FunctionResult("f", refused), enginetest.ErrResultRefused)
	require.NoError(t, p.FunctionResult("c", refused))
	require.ErrorIs(t, p.FunctionResult("x", refused), engine.ErrUnknownEngine)
	fine := refused
	fine.Content = []wire.InputContent{wire.TextPart("fine")}
	require.NoError(t, p.FunctionResult("f", fine))
}

func TestControlsAndFinalCheck(t *testing.T) {
	p := engine.For(engine.NewCatalog(enginetest.Full("f"), enginetest.TextOnly("c")))
	require.Equal(t, engine.Controls{WebSearchControl: true, TextVerbosity: true}, p.Controls("f"))
	require.Equal(t, engine.Controls{}, p.Controls("c"))
	require.Equal(t, true, p.Qualified("c", engine.PlacementNone))
	require.Equal(t, false, p.Qualified("c", engine.PlacementOpenAIHosted))
	require.Equal(t, false, p.Qualified("x", engine.PlacementNone))
}

func TestCallbacksReceiveCopies(t *testing.T) {
	prof := enginetest.Full("f")
	prof.ValidateConfiguration = func(r engine.Request) error {
		r.FunctionTools[0].Name = "mutated"
		r.HarnessConfig[0] = 'X'
		return nil
	}
	p := engine.For(engine.NewCatalog(prof))
	r := textRequest("f")
	r.HarnessConfig = json.RawMessage(`{}`)
	r.FunctionTools = []wire.FunctionTool{{Name: "a"}}
	require.NoError(t, p.Admit(r))
	require.Equal(t, "a", r.FunctionTools[0].Name)
	require.Equal(t, "{}", string(r.HarnessConfig))
}

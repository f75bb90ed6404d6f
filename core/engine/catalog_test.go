package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// secretKind is a kind value no error may echo.
const secretKind = "kind-value-never-echoed"

func TestNewCatalogRejectsEachInvalidField(t *testing.T) {
	ok := func(p engine.Profile) engine.Profile { return p }
	rows := []struct {
		name  string
		field string
		edit  func(*engine.Profile)
	}{
		{"empty kind", "profiles[0].Kind: empty", func(p *engine.Profile) { p.Kind = "" }},
		{"leading space", "profiles[0].Kind: surrounding white space", func(p *engine.Profile) { p.Kind = " " + secretKind }},
		{"trailing tab", "profiles[0].Kind: surrounding white space", func(p *engine.Profile) { p.Kind = secretKind + "\t" }},
		{"blank label", "profiles[0].Label: blank", func(p *engine.Profile) { p.Label = "  " }},
		{"unspecified capability", "profiles[0].Capabilities.ToolSearch: unspecified", func(p *engine.Profile) { p.Capabilities.ToolSearch = wire.CapabilityUnspecified }},
		{"unknown capability value", "profiles[0].Capabilities.MCPRequired: unspecified", func(p *engine.Profile) { p.Capabilities.MCPRequired = 9 }},
		{"no placement", "profiles[0].Placements: no supported placement", func(p *engine.Profile) { p.Placements = nil }},
		{"empty placements", "profiles[0].Placements: no supported placement", func(p *engine.Profile) { p.Placements = []engine.Placement{} }},
		{"unknown placement", "profiles[0].Placements[1]: unknown placement", func(p *engine.Profile) { p.Placements = []engine.Placement{engine.PlacementNone, "moon"} }},
		{"duplicate placement", "profiles[0].Placements[1]: duplicate placement", func(p *engine.Profile) {
			p.Placements = []engine.Placement{engine.PlacementNone, engine.PlacementNone}
		}},
		{"nil origins", "profiles[0].MCPOrigins: nil", func(p *engine.Profile) { p.MCPOrigins = nil }},
		{"unknown origin", "profiles[0].MCPOrigins[0]: unknown origin", func(p *engine.Profile) { p.MCPOrigins = []string{"browser"} }},
		{"duplicate origin", "profiles[0].MCPOrigins[1]: duplicate origin", func(p *engine.Profile) {
			p.MCPOrigins = []string{wire.OriginService, wire.OriginService}
		}},
		{"service origin without placement none", "profiles[0].MCPOrigins[0]: no placement serves", func(p *engine.Profile) {
			p.Placements = []engine.Placement{engine.PlacementSelfHosted}
		}},
		{"environment origin without a local placement", "profiles[0].MCPOrigins[1]: no placement serves", func(p *engine.Profile) {
			p.Placements = []engine.Placement{engine.PlacementNone}
		}},
		{"unspecified bearer", "profiles[0].MCPBearer: unspecified", func(p *engine.Profile) { p.MCPBearer = wire.CapabilityUnspecified }},
		{"bearer without origins", "profiles[0].MCPBearer: bearer support without an MCP origin", func(p *engine.Profile) { p.MCPOrigins = []string{} }},
		{"unspecified configuration policy", "profiles[0].ConfigurationValidation: unspecified", func(p *engine.Profile) { p.ConfigurationValidation = 0 }},
		{"unknown tools policy", "profiles[0].ToolsValidation: unspecified", func(p *engine.Profile) { p.ToolsValidation = 7 }},
		{"additional without callback", "profiles[0].ValidateFunctionResult: required", func(p *engine.Profile) { p.ValidateFunctionResult = nil }},
		{"common with callback", "profiles[0].ValidateConfiguration: set with ConfigurationValidation CommonValidationOnly", func(p *engine.Profile) {
			p.ConfigurationValidation = engine.CommonValidationOnly
		}},
		{"common tools with callback", "profiles[0].ValidateTools: set with", func(p *engine.Profile) { p.ToolsValidation = engine.CommonValidationOnly }},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			p := ok(enginetest.Full(secretKind))
			row.edit(&p)
			err := engine.Check(p)
			require.ErrorIs(t, err, engine.ErrInvalidDeclaration)
			require.Contains(t, err.Error(), row.field)
			require.NotContains(t, err.Error(), strings.TrimSpace(secretKind))
			require.PanicsWithError(t, err.Error(), func() { engine.NewCatalog(p) })
		})
	}
}

func TestNewCatalogRejectsDuplicateKind(t *testing.T) {
	err := engine.Check(enginetest.TextOnly(secretKind), enginetest.Full("other"), enginetest.Full(secretKind))
	require.ErrorIs(t, err, engine.ErrInvalidDeclaration)
	require.Contains(t, err.Error(), "profiles[2].Kind: duplicates profiles[0]")
	require.NotContains(t, err.Error(), secretKind)
}

func TestNewCatalogNamesTheFirstInvalidEntry(t *testing.T) {
	bad := enginetest.TextOnly("b")
	bad.Label = ""
	err := engine.Check(enginetest.Full("a"), bad)
	require.Contains(t, err.Error(), "profiles[1].Label")
}

func TestCatalogSnapshotIsImmutable(t *testing.T) {
	p := enginetest.Full("k")
	c := engine.NewCatalog(p)
	p.Placements[0] = engine.PlacementSelfHosted
	p.MCPOrigins[0] = wire.OriginEnvironment
	got, ok := c.Lookup("k")
	require.Equal(t, true, ok)
	require.Equal(t, got.Placements[0], engine.PlacementNone)
	require.Equal(t, got.MCPOrigins[0], wire.OriginService)
	got.Placements[0] = "changed"
	again, _ := c.Lookup("k")
	require.Equal(t, again.Placements[0], engine.PlacementNone)
}

func TestCatalogLookupFailsClosed(t *testing.T) {
	c := engine.NewCatalog(enginetest.Full("b"), enginetest.TextOnly("a"))
	require.Equal(t, "a,b", strings.Join(c.Kinds(), ","))
	_, ok := c.Lookup("c")
	require.Equal(t, false, ok)
	_, ok = c.Lookup("")
	require.Equal(t, false, ok)
	var nilCat *engine.Catalog
	_, ok = nilCat.Lookup("a")
	require.Equal(t, false, ok)
}

func TestBuiltinProfilesAreValid(t *testing.T) {
	require.NoError(t, engine.Check(engine.SyntheticProfile(), engine.CodexProfile()))
	require.Equal(t, "acp:claude-agent-acp,acp:mcode,claude,codex,synthetic", strings.Join(engine.Builtin().Kinds(), ","))
}

func TestCheckErrorsAreTyped(t *testing.T) {
	p := enginetest.Full("k")
	p.Kind = ""
	require.Equal(t, true, errors.Is(engine.Check(p), engine.ErrInvalidDeclaration))
	require.NoError(t, engine.Check())
}

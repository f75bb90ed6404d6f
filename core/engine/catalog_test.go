package engine_test

import (
	"errors"
	"strings"
	"testing"

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
			mustErrorIs(t, err, engine.ErrInvalidDeclaration)
			mustContain(t, err.Error(), row.field)
			mustNotContain(t, err.Error(), strings.TrimSpace(secretKind))
			mustPanicWith(t, err.Error(), func() { engine.NewCatalog(p) })
		})
	}
}

func TestNewCatalogRejectsDuplicateKind(t *testing.T) {
	err := engine.Check(enginetest.TextOnly(secretKind), enginetest.Full("other"), enginetest.Full(secretKind))
	mustErrorIs(t, err, engine.ErrInvalidDeclaration)
	mustContain(t, err.Error(), "profiles[2].Kind: duplicates profiles[0]")
	mustNotContain(t, err.Error(), secretKind)
}

func TestNewCatalogNamesTheFirstInvalidEntry(t *testing.T) {
	bad := enginetest.TextOnly("b")
	bad.Label = ""
	err := engine.Check(enginetest.Full("a"), bad)
	mustContain(t, err.Error(), "profiles[1].Label")
}

func TestCatalogSnapshotIsImmutable(t *testing.T) {
	p := enginetest.Full("k")
	c := engine.NewCatalog(p)
	p.Placements[0] = engine.PlacementSelfHosted
	p.MCPOrigins[0] = wire.OriginEnvironment
	got, ok := c.Lookup("k")
	mustEqual(t, ok, true)
	mustEqual(t, engine.PlacementNone, got.Placements[0])
	mustEqual(t, wire.OriginService, got.MCPOrigins[0])
	got.Placements[0] = "changed"
	again, _ := c.Lookup("k")
	mustEqual(t, engine.PlacementNone, again.Placements[0])
}

func TestCatalogLookupFailsClosed(t *testing.T) {
	c := engine.NewCatalog(enginetest.Full("b"), enginetest.TextOnly("a"))
	mustEqual(t, strings.Join(c.Kinds(), ","), "a,b")
	_, ok := c.Lookup("c")
	mustEqual(t, ok, false)
	_, ok = c.Lookup("")
	mustEqual(t, ok, false)
	var nilCat *engine.Catalog
	_, ok = nilCat.Lookup("a")
	mustEqual(t, ok, false)
}

func TestBuiltinProfilesAreValid(t *testing.T) {
	mustNoError(t, engine.Check(engine.SyntheticProfile(), engine.CodexProfile()))
	mustEqual(t, strings.Join(engine.Builtin().Kinds(), ","), "codex,synthetic")
}

func TestCheckErrorsAreTyped(t *testing.T) {
	p := enginetest.Full("k")
	p.Kind = ""
	mustEqual(t, errors.Is(engine.Check(p), engine.ErrInvalidDeclaration), true)
	mustNoError(t, engine.Check())
}

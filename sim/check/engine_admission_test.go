package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// engineProfile qualifies the test kind without an execution environment,
// with the service origin and required servers but no bearer support.
func engineProfile() EngineProfileFacts {
	return EngineProfileFacts{Kind: testKind, Placements: []string{EnvNone}, FunctionTools: true,
		MCPRequired: true, MCPOrigins: []string{originService}}
}

func bearerSpec() SessionSpec {
	s := testSpec()
	s.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "a", ServerURL: "https://a", BearerToken: "tok"}}
	return s
}

func TestEngineAdmissionBearerWithoutSupportIsCaught(t *testing.T) {
	l := NewLedger()
	l.EnginePolicy(0, []EngineProfileFacts{engineProfile()})
	l.SessionAdmission(1, bearerSpec(), "")
	wantViolation(t, l, CheckEngineAdmission, "bearer_token")
	// the lawful refusal names the bearer token
	l = NewLedger()
	l.EnginePolicy(0, []EngineProfileFacts{engineProfile()})
	l.SessionAdmission(1, bearerSpec(), EngineUnqualified+"mcp_http_servers[0].bearer_token")
	l.SessionAdmission(2, testSpec(), "")
	wantClean(t, l)
}

func TestEngineAdmissionPriority(t *testing.T) {
	p := engineProfile()
	p.ConfigRefusesModelSuffix, p.ToolsLimited, p.ToolsMax = "m", true, 1
	spec := bearerSpec()
	spec.FunctionTools = []wire.FunctionTool{{Name: "a"}, {Name: "b"}}
	l := NewLedger()
	l.EnginePolicy(0, []EngineProfileFacts{p})
	l.SessionAdmission(1, spec, EngineUnqualified+"mcp_http_servers[0].bearer_token")
	wantViolation(t, l, CheckEngineAdmission, `want "configuration"`)
	// without the configuration limit, qualification comes before the tool limit
	p.ConfigRefusesModelSuffix = ""
	l = NewLedger()
	l.EnginePolicy(0, []EngineProfileFacts{p})
	l.SessionAdmission(1, spec, EngineToolsRejected)
	wantViolation(t, l, CheckEngineAdmission, "bearer_token")
	spec.MCPServers = nil
	l = NewLedger()
	l.EnginePolicy(0, []EngineProfileFacts{p})
	l.SessionAdmission(1, spec, EngineToolsRejected)
	wantClean(t, l)
}

func TestEngineAdmissionUnknownKindFailsClosed(t *testing.T) {
	l := NewLedger()
	l.EnginePolicy(0, nil)
	l.SessionAdmission(1, testSpec(), "")
	wantViolation(t, l, CheckEngineAdmission, "unknown_engine")
}

func TestEngineDispatchUnknownKindIsCaught(t *testing.T) {
	l, w := prepareWorld(testSpec(), allKind())
	l.EnginePolicy(*w.now, []EngineProfileFacts{engineProfile()})
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	if vs := violationsOf(l, CheckEngineDispatch); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
	l.EnginePolicy(*w.now, nil) // a Core restarted without the kind's profile
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	wantViolation(t, l, CheckEngineDispatch, "has no profile for kind")
}

func TestEngineCatalogDeclaration(t *testing.T) {
	valid := CatalogDeclaration{Placements: []string{EnvNone}, Origins: []string{originService}, Bearer: true}
	l := NewLedger()
	l.CatalogChecked(valid, false)
	l.CatalogChecked(CatalogDeclaration{Placements: []string{EnvNone}, Origins: []string{}}, false)
	wantClean(t, l)
	l.CatalogChecked(CatalogDeclaration{Placements: []string{EnvNone}, Origins: []string{}, Bearer: true}, false)
	wantViolation(t, l, CheckEngineCatalog, "bearer support without an MCP origin")
	l = NewLedger()
	l.CatalogChecked(CatalogDeclaration{Placements: []string{EnvNone}, Origins: []string{originEnvironment}}, false)
	wantViolation(t, l, CheckEngineCatalog, "without a placement serving it")
	l = NewLedger()
	l.CatalogChecked(valid, true)
	wantViolation(t, l, CheckEngineCatalog, "refuses a valid")
}

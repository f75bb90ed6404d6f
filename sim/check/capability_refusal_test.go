package check

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// capRefusalWorld: d1 declares the kind with everything but mcp_http_tools;
// the Session declares an explicit empty MCP server list.
func capRefusalWorld(servers []wire.MCPHTTPServer) *Ledger {
	l := NewLedger()
	spec := testSpec()
	spec.MCPServers = servers
	l.SessionCreated(0, "s1", spec)
	l.TurnSubmitted(0, "s1", "t1")
	k := allKind()
	k.Capabilities.MCPHTTPTools = wire.CapabilityFromBool(false)
	l.Wire(wev(WireOpened, 0, 1, "d1", "core", "", nil))
	l.Wire(wev(WireDelivered, time.Millisecond, 1, "d1", "core", "", wire.Heartbeat{TS: 1, SupportedAgentKinds: []wire.SupportedAgentKind{k}}))
	return l
}

func TestCapabilityRefusalOverRequirementIsCaught(t *testing.T) {
	l := capRefusalWorld([]wire.MCPHTTPServer{})
	l.TurnFinished(ns(2*time.Second), "t1", "", TurnFailed, "capability_unsupported")
	wantViolation(t, l, CheckCapabilityRefusal, "declares kind")
}

func TestCapabilityRefusalLackingDeviceIsClean(t *testing.T) {
	l := capRefusalWorld([]wire.MCPHTTPServer{{ConnectionOrigin: originService, ServerLabel: "a", ServerURL: "https://a"}})
	l.TurnFinished(ns(2*time.Second), "t1", "", TurnFailed, "capability_unsupported")
	if vs := violationsOf(l, CheckCapabilityRefusal); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
	// a closed connection is no longer Core's to choose
	l = capRefusalWorld([]wire.MCPHTTPServer{})
	l.Wire(wev(WireClosed, time.Second, 1, "d1", "core", "", nil))
	l.TurnFinished(ns(2*time.Second), "t1", "", TurnFailed, "capability_unsupported")
	if vs := violationsOf(l, CheckCapabilityRefusal); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
}

func TestPrepareConfigurationEmptyMCPList(t *testing.T) {
	spec := testSpec()
	spec.MCPServers = []wire.MCPHTTPServer{}
	l, w := prepareWorld(spec, allKind())
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	wantOnly(t, l, CheckPrepareConfiguration, "does not travel as []")
	l, w = prepareWorld(spec, allKind())
	cfg := goodConfig("s1")
	cfg.MCPHTTPServers = &[]wire.MCPHTTPServer{}
	w.coreSends(1, "d1", prepareFrame("p1", "s1", cfg))
	if vs := framesOnly(l.Violations()); len(vs) > 0 {
		t.Fatalf("[] judged: %v", vs)
	}
	// an Agent that declared no list gets none, not []
	l, w = prepareWorld(testSpec(), allKind())
	w.coreSends(1, "d1", prepareFrame("p1", "s1", cfg))
	wantOnly(t, l, CheckPrepareConfiguration, "declared no list")
}

func TestCapabilityMarksSwarm(t *testing.T) {
	spec := testSpec()
	spec.MCPServers = []wire.MCPHTTPServer{{ServerLabel: "a", ServerURL: "https://a", Required: true}}
	spec.FunctionTools = []wire.FunctionTool{{Name: "f"}}
	spec.Environment, spec.EnvironmentID = "self_hosted", "env-1"
	l, w := prepareWorld(spec, allKind())
	lacking := allKind()
	lacking.Capabilities.MCPHTTPRequired = wire.CapabilityFromBool(false)
	lacking.Capabilities.FunctionTools = wire.CapabilityFromBool(false)
	lacking.Capabilities.WorkspaceOutputExport = wire.CapabilityFromBool(false)
	w.open(2, "d2")
	w.heartbeat(2, "d2", lacking)
	noItems := allKind()
	noItems.Capabilities.MessageItems = wire.CapabilityFromBool(false)
	w.heartbeat(1, "d1", noItems)
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	for _, m := range []Mark{MarkMCPCapabilityLacking, MarkFunctionToolsLacking, MarkOutputExportLacking, MarkMessageItemsLacking} {
		if l.marks[m] == 0 {
			t.Errorf("%s not marked", m)
		}
	}
}

package runner

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestFactoryGetsTheSnapshotAndResolvedBindings: the factory's config
// carries the snapshot the machine loaded and the resolved MCP binding
// (token reachable only through Token, never in its printed form); an
// unresolvable origin refuses before any factory runs, without the token.
func TestFactoryGetsTheSnapshotAndResolvedBindings(t *testing.T) {
	servers := []wire.MCPHTTPServer{{ConnectionOrigin: wire.OriginService, ServerLabel: "docs", ServerURL: "https://mcp.example", BearerToken: "tok-secret-1"}}
	op := daemon.Prepare{Session: "s-1", Installed: []daemon.Installed{{Action: wire.PrepareActionSkill, Name: "lint"}},
		Configuration: wire.ExecutionConfiguration{MCPHTTPServers: &servers, DisableExecutionEnvironment: true}}
	cfg, err := executorConfig(op, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Installed) != 1 || cfg.Installed[0] != (agent.InstalledCapability{Action: wire.PrepareActionSkill, Name: "lint"}) {
		t.Fatalf("snapshot %+v", cfg.Installed)
	}
	if !cfg.MCP.Declared || len(cfg.MCP.Servers) != 1 || cfg.MCP.Servers[0].Token() != "tok-secret-1" ||
		cfg.MCP.Servers[0].Credential != agent.MCPCredentialPublic {
		t.Fatalf("bindings %v", cfg.MCP)
	}
	if s := fmt.Sprintf("%v %#v %+v", cfg.MCP.Servers[0], cfg.MCP.Servers[0], cfg.MCP); strings.Contains(s, "tok-secret-1") {
		t.Fatalf("printed binding carries the token: %s", s)
	}

	servers[0].ConnectionOrigin = "moon"
	_, err = executorConfig(op, nil)
	if !errors.Is(err, agent.ErrMCPBinding) || strings.Contains(err.Error(), "tok-secret-1") {
		t.Fatalf("unknown origin: %v", err)
	}
}

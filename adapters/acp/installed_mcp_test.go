package acp

import (
	"errors"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestInstalledMCPServersRefused: an MCP server an installed plugin
// declares reaches the effective binding; the adapter qualifies no MCP,
// so it refuses the Executor instead of dropping the server.
func TestInstalledMCPServersRefused(t *testing.T) {
	c := wire.ExecutionConfiguration{LocalEnvironment: &wire.LocalEnvironment{ID: "env-1"}}
	mcp, err := agent.ResolveMCPBindings(c, []agent.InstalledMCPServer{{Label: "search", URL: "https://search.example/mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	err = refuse(Profiles()[0], wire.AllCapabilities(wire.CapabilitySupported), agent.ExecutorConfig{SessionID: "s-1", Configuration: c, WorkspaceRoot: t.TempDir(), MCP: mcp})
	if !errors.Is(err, agent.ErrUnsupportedOperation) {
		t.Fatalf("err %v, want ErrUnsupportedOperation", err)
	}
}

package codex

import (
	"errors"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestInstalledMCPServersRefused: an MCP server an installed plugin of the
// bound Environment declares reaches the effective binding; kind codex
// qualifies no MCP, so it refuses the Executor instead of running the
// Turn without the server.
func TestInstalledMCPServersRefused(t *testing.T) {
	c := wire.ExecutionConfiguration{LocalEnvironment: &wire.LocalEnvironment{ID: "env-1"}}
	mcp, err := agent.ResolveMCPBindings(c, []agent.InstalledMCPServer{{Label: "search", URL: "https://search.example/mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := agent.ExecutorConfig{SessionID: "s-1", Configuration: c, WorkspaceRoot: t.TempDir()}
	if _, err := buildConfig(cfg); err != nil {
		t.Fatalf("without the installed server: %v", err)
	}
	cfg.MCP = mcp
	if _, err := buildConfig(cfg); !errors.Is(err, agent.ErrUnsupportedOperation) {
		t.Fatalf("err %v, want ErrUnsupportedOperation", err)
	}
}

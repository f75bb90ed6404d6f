package claude

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
	// the binding alone carries the server: the configuration is one the
	// adapter admits otherwise
	ok := wire.ExecutionConfiguration{DisableExecutionEnvironment: true}
	if _, err := buildConfig(agent.ExecutorConfig{SessionID: "s-1", Configuration: ok}); err != nil {
		t.Fatalf("without the installed server: %v", err)
	}
	_, err = buildConfig(agent.ExecutorConfig{SessionID: "s-1", Configuration: ok, MCP: mcp})
	if !errors.Is(err, agent.ErrUnsupportedOperation) {
		t.Fatalf("err %v, want ErrUnsupportedOperation", err)
	}
}

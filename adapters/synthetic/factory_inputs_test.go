package synthetic_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestFactoryReceivesTheSnapshotAndRefusesMCPBindings: the factory keeps
// the installed snapshot it was given, and refuses an MCP binding it
// never declared instead of ignoring it.
func TestFactoryReceivesTheSnapshotAndRefusesMCPBindings(t *testing.T) {
	h := synthetic.New()
	snap := []agent.InstalledCapability{{Action: wire.PrepareActionSkill, Name: "lint"}, {Action: wire.PrepareActionFile, Name: "/workspace/a"}}
	ex, err := h.NewExecutor(context.Background(), agent.ExecutorConfig{SessionID: "s-1", Installed: snap})
	if err != nil {
		t.Fatal(err)
	}
	got := ex.(*synthetic.Executor).Installed()
	if len(got) != 2 || got[0] != snap[0] || got[1] != snap[1] {
		t.Fatalf("snapshot %+v", got)
	}
	got[0].Name = "changed"
	if ex.(*synthetic.Executor).Installed()[0].Name != "lint" {
		t.Fatal("the snapshot is shared with the caller")
	}

	servers := []wire.MCPHTTPServer{{ConnectionOrigin: wire.OriginService, ServerLabel: "docs", ServerURL: "https://mcp.example", BearerToken: "tok-never-logged"}}
	cfg := wire.ExecutionConfiguration{AgentKind: synthetic.Kind, MCPHTTPServers: &servers, DisableExecutionEnvironment: true}
	b, err := agent.ResolveMCPBindings(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.NewExecutor(context.Background(), agent.ExecutorConfig{SessionID: "s-2", Configuration: cfg, MCP: b})
	if !errors.Is(err, agent.ErrUnsupportedOperation) {
		t.Fatalf("MCP binding: %v", err)
	}
	if strings.Contains(err.Error(), "tok-never-logged") {
		t.Fatalf("the refusal carries the token: %v", err)
	}
}

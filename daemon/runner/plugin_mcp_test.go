package runner

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// pluginArchive writes a plugin archive installed at slot under state,
// holding the given members.
func pluginArchive(t *testing.T, state string, slot, name string, members map[string]string) {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for n, body := range members {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(state, "plugins")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, slot+"-"+name+".archive"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestInstalledPluginMCPServersAreBound: the MCP servers an installed
// plugin declares reach the Executor's effective binding, after the
// public ones, with the installed origin and credential authority (the
// plugin's headers stay in its snapshot); a Turn without a local
// environment binds none; a declaration this Runtime cannot bind refuses
// the preparation by name instead of being dropped.
func TestInstalledPluginMCPServersAreBound(t *testing.T) {
	state := t.TempDir()
	inst := &Installer{Workspace: t.TempDir(), State: state}
	pluginArchive(t, state, "0", "tools", map[string]string{
		"README.md": "tools",
		".mcp.json": `{"mcpServers":{"search":{"type":"http","url":"https://search.example/mcp","headers":{"Authorization":"Bearer plugin-secret"}},` +
			`"notes":{"type":"http","url":"https://notes.example/mcp","allowed_tools":[],"required":true}}}`,
	})
	pluginArchive(t, state, "1", "plain", map[string]string{"README.md": "no MCP here"})
	if err := os.WriteFile(filepath.Join(state, "plugins", "2-opaque.archive"), []byte("not a zip"), 0o600); err != nil {
		t.Fatal(err)
	}
	servers := []wire.MCPHTTPServer{{ConnectionOrigin: wire.OriginEnvironment, ServerLabel: "docs", ServerURL: "https://docs.example"}}
	op := daemon.Prepare{Session: "s-1",
		Installed: []daemon.Installed{{Action: wire.PrepareActionPlugin, Name: "tools"}, {Action: wire.PrepareActionPlugin, Name: "plain"},
			{Action: wire.PrepareActionPlugin, Name: "opaque"}, {Action: wire.PrepareActionSkill, Name: "tools"}},
		Configuration: wire.ExecutionConfiguration{MCPHTTPServers: &servers, LocalEnvironment: &wire.LocalEnvironment{ID: "env-1"}}}
	cfg, err := executorConfig(op, inst)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range cfg.MCP.Servers {
		got = append(got, b.String())
	}
	want := []string{
		"mcp docs origin=environment credential=none tools=default required=false",
		"mcp notes origin=installed credential=none tools=0 allowed required=true",
		"mcp search origin=installed credential=installed tools=default required=false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("bindings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if cfg.MCP.Servers[2].URL != "https://search.example/mcp" || cfg.MCP.Servers[2].Token() != "" {
		t.Fatalf("installed binding %+v carries a public token or lost its URL", cfg.MCP.Servers[2])
	}

	noEnv := op
	noEnv.Configuration = wire.ExecutionConfiguration{DisableExecutionEnvironment: true}
	if cfg, err := executorConfig(noEnv, inst); err != nil || len(cfg.MCP.Servers) != 0 {
		t.Fatalf("without a local environment: %v, %v", cfg.MCP, err)
	}

	for _, c := range []struct{ name, decl, want string }{
		{"stdio transport", `{"mcpServers":{"local":{"type":"stdio","url":"x"}}}`, `server "local": transport "stdio" is not supported`},
		{"unknown member", `{"mcpServers":{"s":{"type":"http","url":"x","command":"rm"}}}`, `server "s": .mcp.json is not a valid MCP declaration`},
		{"not JSON", `{`, ".mcp.json is not a valid MCP declaration"},
		{"label shadows a public server", `{"mcpServers":{"docs":{"type":"http","url":"https://other.example"}}}`, "label already declared"},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := t.TempDir()
			pluginArchive(t, state, "0", "tools", map[string]string{".mcp.json": c.decl})
			_, err := executorConfig(op, &Installer{State: state})
			if !errors.Is(err, agent.ErrMCPBinding) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "https://") {
				t.Fatalf("err %v, want ErrMCPBinding naming %q (and no URL)", err, c.want)
			}
		})
	}
}

// TestInstalledPluginMCPPerEnvironment: with a per-Environment binding
// (Root), the plugins are read from the bound Environment's state.
func TestInstalledPluginMCPPerEnvironment(t *testing.T) {
	root := t.TempDir()
	pluginArchive(t, filepath.Join(root, "env-1", stateDirName), "0", "tools",
		map[string]string{".mcp.json": `{"mcpServers":{"search":{"type":"http","url":"https://search.example/mcp"}}}`})
	inst := &Installer{Root: root, State: t.TempDir()}
	op := daemon.Prepare{Installed: []daemon.Installed{{Action: wire.PrepareActionPlugin, Name: "tools"}},
		Configuration: wire.ExecutionConfiguration{LocalEnvironment: &wire.LocalEnvironment{ID: "env-1"}}}
	cfg, err := executorConfig(op, inst)
	if err != nil || len(cfg.MCP.Servers) != 1 || cfg.MCP.Servers[0].Origin != agent.MCPOriginInstalled {
		t.Fatalf("env-1: %v, %v", cfg.MCP, err)
	}
	op.Configuration.LocalEnvironment.ID = "env-2"
	if cfg, err := executorConfig(op, inst); err != nil || len(cfg.MCP.Servers) != 0 {
		t.Fatalf("env-2 holds no plugin: %v, %v", cfg.MCP, err)
	}
}

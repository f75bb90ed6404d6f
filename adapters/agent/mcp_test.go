package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

const secretToken = "bearer-secret-never-logged"

func mcpConfig(local bool, servers ...wire.MCPHTTPServer) wire.ExecutionConfiguration {
	c := wire.ExecutionConfiguration{DisableExecutionEnvironment: !local}
	if local {
		c.LocalEnvironment = &wire.LocalEnvironment{ID: "e"}
	}
	if servers != nil {
		c.MCPHTTPServers = &servers
	}
	return c
}

func TestResolveMCPBindingsKeepsOriginsAllowListsAndAuthority(t *testing.T) {
	empty, some := []string{}, []string{"search"}
	cfg := mcpConfig(true,
		wire.MCPHTTPServer{ConnectionOrigin: wire.OriginEnvironment, ServerLabel: "a", ServerURL: "https://a", AllowedTools: nil},
		wire.MCPHTTPServer{ConnectionOrigin: wire.OriginEnvironment, ServerLabel: "b", ServerURL: "https://b", AllowedTools: &empty, Required: true, BearerToken: secretToken},
	)
	installed := []agent.InstalledMCPServer{{Label: "c", URL: "https://c", AllowedTools: &some, Credentialed: true}}
	got, err := agent.ResolveMCPBindings(cfg, installed)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Declared || len(got.Servers) != 3 {
		t.Fatalf("bindings %v", got)
	}
	a, b, c := got.Servers[0], got.Servers[1], got.Servers[2]
	if a.Origin != wire.OriginEnvironment || a.AllowedTools != nil || a.Credential != agent.MCPCredentialNone || a.Required {
		t.Errorf("a: %v", a)
	}
	if b.AllowedTools == nil || len(*b.AllowedTools) != 0 || !b.Required || b.Credential != agent.MCPCredentialPublic || b.Token() != secretToken {
		t.Errorf("b: %v", b)
	}
	if c.Origin != agent.MCPOriginInstalled || c.Credential != agent.MCPCredentialInstalled || c.Token() != "" || (*c.AllowedTools)[0] != "search" {
		t.Errorf("c: %v", c)
	}
	some[0] = "mutated"
	if (*c.AllowedTools)[0] != "search" {
		t.Error("the binding shares the installed allow-list")
	}
}

func TestResolveMCPBindingsNullVersusEmptyDeclaration(t *testing.T) {
	absent, err := agent.ResolveMCPBindings(mcpConfig(false), nil)
	if err != nil || absent.Declared || len(absent.Servers) != 0 {
		t.Fatalf("absent: %v %v", absent, err)
	}
	declared, err := agent.ResolveMCPBindings(mcpConfig(false, []wire.MCPHTTPServer{}...), nil)
	if err != nil || !declared.Declared || len(declared.Servers) != 0 {
		t.Fatalf("empty: %v %v", declared, err)
	}
	c := mcpConfig(false)
	c.MCPHTTPServers = &[]wire.MCPHTTPServer{}
	declared, _ = agent.ResolveMCPBindings(c, nil)
	if !declared.Declared {
		t.Fatal("an explicit empty list is a declaration")
	}
}

func TestResolveMCPBindingsServiceOriginStaysService(t *testing.T) {
	got, err := agent.ResolveMCPBindings(mcpConfig(false,
		wire.MCPHTTPServer{ConnectionOrigin: wire.OriginService, ServerLabel: "s", ServerURL: "https://s"}), nil)
	if err != nil || got.Servers[0].Origin != wire.OriginService {
		t.Fatalf("%v %v", got, err)
	}
}

func TestResolveMCPBindingsRefusals(t *testing.T) {
	srv := func(origin, label, url string) wire.MCPHTTPServer {
		return wire.MCPHTTPServer{ConnectionOrigin: origin, ServerLabel: label, ServerURL: url, BearerToken: secretToken}
	}
	rows := []struct {
		name      string
		cfg       wire.ExecutionConfiguration
		installed []agent.InstalledMCPServer
		reason    string
	}{
		{"missing origin", mcpConfig(false, srv("", "s", "https://s")), nil, wire.PrepInvalidConfiguration},
		{"unknown origin", mcpConfig(false, srv("browser", "s", "https://s")), nil, wire.PrepInvalidConfiguration},
		{"service in an environment", mcpConfig(true, srv(wire.OriginService, "s", "https://s")), nil, wire.PrepUnsupportedConfiguration},
		{"environment without one", mcpConfig(false, srv(wire.OriginEnvironment, "s", "https://s")), nil, wire.PrepUnsupportedConfiguration},
		{"blank label", mcpConfig(false, srv(wire.OriginService, " ", "https://s")), nil, wire.PrepInvalidConfiguration},
		{"duplicate public label", mcpConfig(false, srv(wire.OriginService, "s", "https://s"), srv(wire.OriginService, "s", "https://t")), nil,
			"mcp_http_servers[1]: label already declared by mcp_http_servers[0]"},
		{"installed shadows public", mcpConfig(true, srv(wire.OriginEnvironment, "s", "https://s")),
			[]agent.InstalledMCPServer{{Label: "s", URL: "https://i"}}, "installed[0]: label already declared by mcp_http_servers[0]"},
		{"installed without environment", mcpConfig(false), []agent.InstalledMCPServer{{Label: "i", URL: "https://i"}}, "installed[0]: installed servers need a local environment"},
		{"installed blank url", mcpConfig(true), []agent.InstalledMCPServer{{Label: "i"}}, "installed[0]: blank label or URL"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			_, err := agent.ResolveMCPBindings(row.cfg, row.installed)
			if !errors.Is(err, agent.ErrMCPBinding) || !strings.Contains(err.Error(), row.reason) {
				t.Fatalf("error %v, want ErrMCPBinding with %q", err, row.reason)
			}
			if strings.Contains(err.Error(), secretToken) || strings.Contains(err.Error(), "https://") {
				t.Fatalf("error echoes a credential or URL: %v", err)
			}
		})
	}
}

// TestMCPBindingNeverRendersItsToken: every rendering a log or native
// profile could receive leaves the bearer token out.
func TestMCPBindingNeverRendersItsToken(t *testing.T) {
	got, err := agent.ResolveMCPBindings(mcpConfig(false,
		wire.MCPHTTPServer{ConnectionOrigin: wire.OriginService, ServerLabel: "s", ServerURL: "https://s", BearerToken: secretToken}), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := got.Servers[0]
	js, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{b.String(), fmt.Sprint(b), fmt.Sprintf("%v %+v %#v %s", b, b, b, b), fmt.Sprintf("%v %+v", got, got), string(js)} {
		if strings.Contains(s, secretToken) {
			t.Fatalf("token rendered: %s", s)
		}
	}
	if b.Token() != secretToken {
		t.Fatal("the adapter cannot read the credential")
	}
}

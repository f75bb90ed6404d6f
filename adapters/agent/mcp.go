package agent

import (
	"errors"
	"fmt"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// ErrMCPBinding reports a public or installed MCP declaration that cannot
// be bound: a missing or unknown origin, a blank label or URL, a label
// declared twice, or an origin the Executor's placement cannot serve. The
// error names the declaration by position, never its URL or credential.
var ErrMCPBinding = errors.New("agent: invalid MCP binding")

// MCPOriginInstalled marks a server from the installed capability
// snapshot of the bound Environment (a plugin's MCP declaration). It is
// never a public connection_origin.
const MCPOriginInstalled = "installed"

// MCPCredentialAuthority says who owns a binding's credential.
type MCPCredentialAuthority uint8

const (
	// MCPCredentialNone: the server is reached without a credential.
	MCPCredentialNone MCPCredentialAuthority = iota + 1
	// MCPCredentialPublic: a bearer credential selected by the Agent and
	// delivered in the public declaration.
	MCPCredentialPublic
	// MCPCredentialInstalled: the installed snapshot owns the credential;
	// the Runtime never sees it in a request.
	MCPCredentialInstalled
)

func (a MCPCredentialAuthority) String() string {
	switch a {
	case MCPCredentialNone:
		return "none"
	case MCPCredentialPublic:
		return "public"
	case MCPCredentialInstalled:
		return "installed"
	}
	return "unknown"
}

// InstalledMCPServer is one MCP server of the installed capability
// snapshot, as the Runtime loaded it for the bound Environment.
type InstalledMCPServer struct {
	Label        string
	URL          string
	AllowedTools *[]string // nil: the native default; empty: no tool
	Required     bool
	// Credentialed reports that the installed snapshot carries its own
	// credential for the server.
	Credentialed bool
}

// MCPBinding is the temporary effective binding of one MCP server for one
// Executor. It keeps the origin, the credential authority, the difference
// between a nil allow-list (native default) and an empty one (no tool),
// and whether start-up must succeed. The bearer token is held unexported:
// adapters read it with Token to authenticate a connection and never copy
// it into a native profile, a file or a log; the binding's String and
// GoString forms redact it.
type MCPBinding struct {
	Label        string
	URL          string
	Origin       string // wire.OriginService, wire.OriginEnvironment or MCPOriginInstalled
	Credential   MCPCredentialAuthority
	AllowedTools *[]string
	Required     bool
	token        string
}

// Token returns the public bearer credential ("" unless Credential is
// MCPCredentialPublic).
func (b MCPBinding) Token() string { return b.token }

// String renders the binding without its credential.
func (b MCPBinding) String() string {
	tools := "default"
	if b.AllowedTools != nil {
		tools = fmt.Sprintf("%d allowed", len(*b.AllowedTools))
	}
	return fmt.Sprintf("mcp %s origin=%s credential=%s tools=%s required=%t", b.Label, b.Origin, b.Credential, tools, b.Required)
}

// GoString keeps %#v from printing the token.
func (b MCPBinding) GoString() string { return "agent.MCPBinding{" + b.String() + "}" }

// MCPBindings is the effective MCP binding of one Executor.
type MCPBindings struct {
	// Declared is false when the request carried no mcp_http_servers
	// (absent or null: native behaviour) and true for an explicit list,
	// even an empty one (no public server).
	Declared bool
	Servers  []MCPBinding // public servers in request order, then installed ones
}

// ResolveMCPBindings resolves the public servers of an execution
// configuration and the installed servers of the bound Environment into
// one temporary effective binding. It validates the public origins with
// the shared wire validator (no origin is ever defaulted here, and a
// service request is never reinterpreted as an environment one), copies
// every allow-list keeping nil apart from empty, and refuses a label
// declared twice rather than letting one declaration shadow another.
func ResolveMCPBindings(cfg wire.ExecutionConfiguration, installed []InstalledMCPServer) (MCPBindings, error) {
	if err := cfg.ValidateMCPOrigins(); err != nil {
		return MCPBindings{}, fmt.Errorf("%w: %s", ErrMCPBinding, wire.ErrorCode(err))
	}
	var out MCPBindings
	labels := map[string]string{}
	claim := func(label, where string) error {
		if prev, dup := labels[label]; dup {
			return fmt.Errorf("%w: %s: label already declared by %s", ErrMCPBinding, where, prev)
		}
		labels[label] = where
		return nil
	}
	if cfg.MCPHTTPServers != nil {
		out.Declared = true
		for i, s := range *cfg.MCPHTTPServers {
			where := fmt.Sprintf("mcp_http_servers[%d]", i)
			if err := claim(s.ServerLabel, where); err != nil {
				return MCPBindings{}, err
			}
			b := MCPBinding{Label: s.ServerLabel, URL: s.ServerURL, Origin: s.ConnectionOrigin,
				Credential: MCPCredentialNone, AllowedTools: cloneTools(s.AllowedTools), Required: s.Required}
			if s.BearerToken != "" {
				b.Credential, b.token = MCPCredentialPublic, s.BearerToken
			}
			out.Servers = append(out.Servers, b)
		}
	}
	for i, s := range installed {
		where := fmt.Sprintf("installed[%d]", i)
		if strings.TrimSpace(s.Label) == "" || strings.TrimSpace(s.URL) == "" {
			return MCPBindings{}, fmt.Errorf("%w: %s: blank label or URL", ErrMCPBinding, where)
		}
		if cfg.LocalEnvironment == nil {
			return MCPBindings{}, fmt.Errorf("%w: %s: installed servers need a local environment", ErrMCPBinding, where)
		}
		if err := claim(s.Label, where); err != nil {
			return MCPBindings{}, err
		}
		b := MCPBinding{Label: s.Label, URL: s.URL, Origin: MCPOriginInstalled, Credential: MCPCredentialNone,
			AllowedTools: cloneTools(s.AllowedTools), Required: s.Required}
		if s.Credentialed {
			b.Credential = MCPCredentialInstalled
		}
		out.Servers = append(out.Servers, b)
	}
	return out, nil
}

func cloneTools(t *[]string) *[]string {
	if t == nil {
		return nil
	}
	c := append(make([]string, 0, len(*t)), (*t)...)
	return &c
}

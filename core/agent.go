package core

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// EnvironmentKind is a Session's Environment type.
type EnvironmentKind string

const (
	EnvNone         EnvironmentKind = "none"
	EnvSelfHosted   EnvironmentKind = "self_hosted"
	EnvOpenAIHosted EnvironmentKind = "openai_hosted"
)

// Text verbosity values Core accepts; empty resolves to medium.
const (
	VerbosityLow    = "low"
	VerbosityMedium = "medium"
	VerbosityHigh   = "high"
)

// AgentConfig is the agent configuration a Session freezes at creation.
// Core derives the capability requirements and the execution_prepare
// configuration from it.
type AgentConfig struct {
	Kind          string // Harness kind; never substituted by another
	Model         string
	SystemPrompt  string
	ModelProvider string // set when the Session freezes a model provider
	HarnessConfig []byte // raw JSON object; nil when the Agent sets none
	TextVerbosity string // "" resolves to "medium"

	Environment   EnvironmentKind
	EnvironmentID string // exact Environment binding; required unless Environment is none
	// Definition is what every connection installs through
	// runtime_prepare before the Session's work runs there (nil: none).
	// It needs a canonical UUID EnvironmentID and a preparation store.
	Definition *EnvironmentDefinition `json:",omitempty"`

	OutputSchema []byte // non-nil selects json_schema output
	MultiAgent   bool

	FunctionTools                  []wire.FunctionTool
	ToolSearch                     bool // needs a deferred function tool; set by one
	DisableProgrammaticToolCalling bool
	FunctionResultImages           bool // function results may carry images

	// MCPServers are the Agent's HTTP MCP servers. An empty
	// ConnectionOrigin is frozen at creation to the public default for the
	// Environment type (service for none, environment otherwise). A
	// non-empty BearerToken is a Vault credential the Agent selected.
	// Nil leaves mcp_http_servers out of execution_prepare (the Runtime's
	// native behaviour); an empty, non-nil list sends `[]` (no server).
	MCPServers []wire.MCPHTTPServer
}

// validate checks the configuration and freezes defaults, returning the
// frozen copy. It never touches durable state.
func (a AgentConfig) validate() (AgentConfig, error) {
	bad := func(format string, args ...any) (AgentConfig, error) {
		return AgentConfig{}, fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
	}
	if a.Kind == "" || a.Model == "" {
		return bad("agent kind and model are required")
	}
	switch a.Environment {
	case EnvNone:
		if a.EnvironmentID != "" {
			return bad("environment none carries no environment ID")
		}
	case EnvSelfHosted, EnvOpenAIHosted:
		if a.EnvironmentID == "" {
			return bad("environment %s needs an environment ID", a.Environment)
		}
	default:
		return bad("environment type %q", a.Environment)
	}
	switch a.TextVerbosity {
	case "":
		a.TextVerbosity = VerbosityMedium
	case VerbosityLow, VerbosityMedium, VerbosityHigh:
	default:
		return bad("text verbosity %q", a.TextVerbosity)
	}
	if a.OutputSchema != nil && len(a.OutputSchema) == 0 {
		return bad("empty output schema")
	}
	names := map[string]bool{}
	deferred := false
	for _, ft := range a.FunctionTools {
		if ft.Name == "" || names[ft.Name] {
			return bad("function tool names must be non-empty and unique")
		}
		names[ft.Name] = true
		deferred = deferred || ft.DeferLoading
	}
	if a.ToolSearch && !deferred {
		return bad("tool search needs a deferred function tool")
	}
	a.ToolSearch = deferred // deferred loading enables tool search
	if err := validateDefinition(a.Definition, a.Environment, a.EnvironmentID); err != nil {
		return AgentConfig{}, err
	}
	a.Definition = a.Definition.clone()
	servers, err := a.freezeMCP()
	if err != nil {
		return AgentConfig{}, err
	}
	a.MCPServers = servers
	a.FunctionTools = append([]wire.FunctionTool(nil), a.FunctionTools...)
	a.HarnessConfig = cloneBytes(a.HarnessConfig)
	a.OutputSchema = cloneBytes(a.OutputSchema)
	if err := a.checkWire(); err != nil {
		return AgentConfig{}, err
	}
	return a, nil
}

// probeSession names the Session of the execution_prepare checkWire builds.
const probeSession = "s-0"

// checkWire builds the execution_prepare this configuration will produce
// and puts it through the wire codec and validator, as a Runtime reads it:
// a configuration Core could never prepare (a function tool whose
// parameters are not a JSON object, a blank MCP label, ...) is refused at
// creation, naming the wire member.
func (a AgentConfig) checkWire() error {
	p := wire.ExecutionPrepare{SessionID: probeSession,
		Configuration: prepareConfig(SessionRecord{ID: probeSession, Agent: a}, wire.AgentKindCapabilities{})}
	b, err := wire.Encode(wire.Frame{ID: "p-0", Payload: p})
	if err == nil {
		var f wire.Frame
		if f, err = wire.Decode(b); err == nil {
			err = wire.Validate(f.Payload)
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	return nil
}

func (a AgentConfig) freezeMCP() ([]wire.MCPHTTPServer, error) {
	if a.MCPServers == nil {
		return nil, nil
	}
	out := make([]wire.MCPHTTPServer, len(a.MCPServers)) // [] stays explicit
	for i, s := range a.MCPServers {
		if s.ServerLabel == "" || s.ServerURL == "" {
			return nil, fmt.Errorf("%w: MCP server needs a label and URL", ErrInvalidConfig)
		}
		if s.ConnectionOrigin == "" {
			s.ConnectionOrigin = wire.OriginEnvironment
			if a.Environment == EnvNone {
				s.ConnectionOrigin = wire.OriginService
			}
		}
		switch {
		case s.ConnectionOrigin == wire.OriginService && a.Environment == EnvNone:
		case s.ConnectionOrigin == wire.OriginEnvironment && a.Environment != EnvNone:
		default:
			return nil, fmt.Errorf("%w: MCP connection origin %q with environment %s",
				ErrInvalidConfig, s.ConnectionOrigin, a.Environment)
		}
		if s.AllowedTools != nil {
			tools := append(make([]string, 0, len(*s.AllowedTools)), (*s.AllowedTools)...) // [] stays [], never null
			s.AllowedTools = &tools
		}
		out[i] = s
	}
	return out, nil
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

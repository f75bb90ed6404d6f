package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Admission errors. Every one names the operation or field, never a
// submitted value or credential.
var (
	// ErrUnknownEngine: the kind has no profile; unknown kinds fail closed.
	ErrUnknownEngine = errors.New("engine: no qualified profile for the kind")
	// ErrUnqualified: the profile does not qualify a requested operation
	// or placement.
	ErrUnqualified = errors.New("engine: operation not qualified for the engine")
	// ErrInvalidTools: a function tool fails the common decoding rules.
	ErrInvalidTools = errors.New("engine: invalid function tool")
	// ErrRejected: a profile's additional validation refused the request.
	ErrRejected = errors.New("engine: refused by the engine's validation")
)

// Request is the public view of one Session's frozen configuration that
// admission qualifies. Core builds it; a callback receives a copy.
type Request struct {
	Kind          string
	Placement     Placement
	Model         string
	ModelProvider string
	HarnessConfig json.RawMessage
	TextVerbosity string

	StructuredOutput               bool
	MessageImages                  bool
	FunctionTools                  []wire.FunctionTool
	ToolSearch                     bool
	FunctionResultImages           bool
	DisableProgrammaticToolCalling bool
	MultiAgent                     bool
	MCPServers                     []wire.MCPHTTPServer
}

func (r Request) clone() Request {
	r.HarnessConfig = append(json.RawMessage(nil), r.HarnessConfig...)
	r.FunctionTools = append([]wire.FunctionTool(nil), r.FunctionTools...)
	r.MCPServers = append([]wire.MCPHTTPServer(nil), r.MCPServers...)
	return r
}

// Policy is Core's immutable service qualification. The zero value uses
// the built-in catalog; For(NewCatalog()) authorises nothing.
type Policy struct {
	catalog *Catalog
}

// For returns the Policy over catalog c. A nil c selects the built-in
// catalog, like the zero Policy.
func For(c *Catalog) Policy { return Policy{catalog: c} }

// Catalog returns the catalog the policy reads.
func (p Policy) Catalog() *Catalog {
	if p.catalog == nil {
		return Builtin()
	}
	return p.catalog
}

// Profile returns the qualified profile of kind.
func (p Policy) Profile(kind string) (Profile, bool) { return p.Catalog().Lookup(kind) }

// Qualified is the final check: the kind still has a profile that
// qualifies the placement.
func (p Policy) Qualified(kind string, pl Placement) bool {
	prof := p.Catalog().find(kind) // read only: no copy
	return prof != nil && prof.Supports(pl)
}

// Controls are the engine controls a profile declares; device selection
// requires the matching Runtime capability for each declared control.
type Controls struct {
	WebSearchControl bool
	TextVerbosity    bool
}

// Controls returns the declared controls of kind (none for an unknown
// kind, which admission already refused).
func (p Policy) Controls(kind string) Controls {
	prof := p.Catalog().find(kind) // read only: no copy
	if prof == nil {
		return Controls{}
	}
	return Controls{
		WebSearchControl: prof.Capabilities.WebSearchControl.IsSupported(),
		TextVerbosity:    prof.Capabilities.TextVerbosity.IsSupported(),
	}
}

// Admit is the API's admission. Its precedence: an unknown kind; the
// configuration limits (additional configuration validation runs first);
// then qualification of the placement, each operation and each MCP
// origin and bearer; then the common function tool decoding, before any
// additional tool limit.
func (p Policy) Admit(r Request) error {
	prof, ok := p.Profile(r.Kind)
	if !ok {
		return ErrUnknownEngine
	}
	if prof.ConfigurationValidation == AdditionalValidation {
		if err := prof.ValidateConfiguration(r.clone()); err != nil {
			return fmt.Errorf("%w: configuration: %w", ErrRejected, err)
		}
	}
	if err := prof.qualify(r); err != nil {
		return err
	}
	if err := commonTools(r.FunctionTools); err != nil {
		return err
	}
	if prof.ToolsValidation == AdditionalValidation && len(r.FunctionTools) > 0 {
		if err := prof.ValidateTools(append([]wire.FunctionTool(nil), r.FunctionTools...)); err != nil {
			return fmt.Errorf("%w: function_tools: %w", ErrRejected, err)
		}
	}
	return nil
}

// FunctionResult applies the profile's function result policy; the
// common policy adds no native result limit.
func (p Policy) FunctionResult(kind string, res wire.FunctionResult) error {
	prof, ok := p.Profile(kind)
	if !ok {
		return ErrUnknownEngine
	}
	if prof.FunctionResultValidation != AdditionalValidation {
		return nil
	}
	res.Content = append([]wire.InputContent(nil), res.Content...)
	if err := prof.ValidateFunctionResult(res); err != nil {
		return fmt.Errorf("%w: function_result: %w", ErrRejected, err)
	}
	return nil
}

func unqualified(op string) error { return fmt.Errorf("%w: %s", ErrUnqualified, op) }

func (prof Profile) qualify(r Request) error {
	if !prof.Supports(r.Placement) {
		return unqualified("placement")
	}
	c := prof.Capabilities
	ops := []struct {
		want bool
		have CapabilitySupport
		name string
	}{
		{r.StructuredOutput, c.StructuredOutput, "structured_output"},
		{r.MessageImages, c.MessageImages, "message_images"},
		{len(r.FunctionTools) > 0, c.FunctionTools, "function_tools"},
		{r.ToolSearch, c.ToolSearch, "tool_search"},
		{r.FunctionResultImages, c.FunctionResultImages, "function_result_images"},
		{r.DisableProgrammaticToolCalling, c.ProgrammaticToolCallingDisable, "programmatic_tool_calling_disable"},
		{r.MultiAgent, c.Subagents, "multi_agent"},
	}
	for _, op := range ops {
		if op.want && !op.have.IsSupported() {
			return unqualified(op.name)
		}
	}
	for i, s := range r.MCPServers {
		f := fmt.Sprintf("mcp_http_servers[%d]", i)
		switch {
		case !prof.QualifiesOrigin(s.ConnectionOrigin):
			return unqualified(f + ".connection_origin")
		case s.Required && !c.MCPRequired.IsSupported():
			return unqualified(f + ".required")
		case s.BearerToken != "" && !prof.MCPBearer.IsSupported():
			return unqualified(f + ".bearer_token")
		}
	}
	return nil
}

// commonTools is the common decoding of function tools: a non-blank,
// unique name and, when present, parameters that are a JSON object.
func commonTools(tools []wire.FunctionTool) error {
	seen := make(map[string]bool, len(tools))
	for i, t := range tools {
		f := fmt.Sprintf("function_tools[%d]", i)
		if strings.TrimSpace(t.Name) == "" {
			return fmt.Errorf("%w: %s.name: blank", ErrInvalidTools, f)
		}
		if seen[t.Name] {
			return fmt.Errorf("%w: %s.name: duplicate", ErrInvalidTools, f)
		}
		seen[t.Name] = true
		if len(t.Parameters) > 0 && !jsonObject(t.Parameters) {
			return fmt.Errorf("%w: %s.parameters: not a JSON object", ErrInvalidTools, f)
		}
	}
	return nil
}

func jsonObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

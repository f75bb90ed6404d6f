package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Declaration errors.
var (
	// ErrInvalidDeclaration reports a declaration or descriptor that breaks
	// a registration rule. Messages name the rule, never the value.
	ErrInvalidDeclaration = errors.New("agent: invalid declaration")
	// ErrInvalidConfiguration reports agent options that break the shared
	// model configuration rules.
	ErrInvalidConfiguration = errors.New("agent: invalid configuration")
	// ErrUnsupportedConfiguration reports agent options the declaration
	// does not accept.
	ErrUnsupportedConfiguration = errors.New("agent: unsupported configuration")
)

// ModelProtocol is a model provider wire format an adapter connects with.
type ModelProtocol string

// Known model protocol formats.
const (
	ProtocolOpenAIResponses       ModelProtocol = "openai_responses"
	ProtocolOpenAIChatCompletions ModelProtocol = "openai_chat_completions"
	ProtocolAnthropicMessages     ModelProtocol = "anthropic_messages"
)

func (p ModelProtocol) known() bool {
	switch p {
	case ProtocolOpenAIResponses, ProtocolOpenAIChatCompletions, ProtocolAnthropicMessages:
		return true
	}
	return false
}

// ModelConfiguration is the shared model configuration declaration of a
// kind. Protocols is the ordered list of accepted protocols; the first is
// the default. A nil list is no decision and invalid; an explicitly empty
// list accepts no provider and no non-empty native parameters.
type ModelConfiguration struct {
	Protocols []ModelProtocol
}

// Validate rejects a missing list, unknown formats and duplicates.
func (c ModelConfiguration) Validate() error {
	if c.Protocols == nil {
		return fmt.Errorf("%w: configuration.protocols not declared", ErrInvalidDeclaration)
	}
	seen := make(map[ModelProtocol]bool, len(c.Protocols))
	for i, p := range c.Protocols {
		if !p.known() {
			return fmt.Errorf("%w: configuration.protocols[%d] unknown format", ErrInvalidDeclaration, i)
		}
		if seen[p] {
			return fmt.Errorf("%w: configuration.protocols[%d] duplicate", ErrInvalidDeclaration, i)
		}
		seen[p] = true
	}
	return nil
}

// DefaultProtocol returns the first declared protocol.
func (c ModelConfiguration) DefaultProtocol() (ModelProtocol, bool) {
	if len(c.Protocols) == 0 {
		return "", false
	}
	return c.Protocols[0], true
}

// ValidateOptions checks execution agent_options against the declaration
// before any native side effect: model, when given, is a non-empty string;
// model_provider needs model and a declaration that accepts providers;
// explicit null is invalid everywhere; unknown keys are unsupported.
func (c ModelConfiguration) ValidateOptions(opts map[string]json.RawMessage) error {
	for _, key := range slices.Sorted(maps.Keys(opts)) {
		raw := opts[key]
		if isNull(raw) {
			return fmt.Errorf("%w: agent_options.%s is null", ErrInvalidConfiguration, optionName(key))
		}
		switch key {
		case wire.AgentOptionModel, wire.AgentOptionModelProvider:
			var s string
			if json.Unmarshal(raw, &s) != nil || s == "" {
				return fmt.Errorf("%w: agent_options.%s must be a non-empty string", ErrInvalidConfiguration, key)
			}
		case wire.AgentOptionSystemPrompt:
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return fmt.Errorf("%w: agent_options.%s must be a string", ErrInvalidConfiguration, key)
			}
		case wire.AgentOptionHarnessConfig:
			if !isObject(raw) {
				return fmt.Errorf("%w: agent_options.%s must be an object", ErrInvalidConfiguration, key)
			}
			if len(c.Protocols) == 0 && !isEmptyObject(raw) {
				return fmt.Errorf("%w: agent_options.%s not accepted", ErrUnsupportedConfiguration, key)
			}
		default:
			return fmt.Errorf("%w: unknown agent option", ErrUnsupportedConfiguration)
		}
	}
	if _, ok := opts[wire.AgentOptionModelProvider]; ok {
		if _, hasModel := opts[wire.AgentOptionModel]; !hasModel {
			return fmt.Errorf("%w: agent_options.model_provider without model", ErrInvalidConfiguration)
		}
		if len(c.Protocols) == 0 {
			return fmt.Errorf("%w: agent_options.model_provider not accepted", ErrUnsupportedConfiguration)
		}
	}
	return nil
}

func optionName(key string) string {
	switch key {
	case wire.AgentOptionModel, wire.AgentOptionModelProvider,
		wire.AgentOptionSystemPrompt, wire.AgentOptionHarnessConfig:
		return key
	}
	return "<unknown>"
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

func isEmptyObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil && len(m) == 0
}

// DiscoverFunc inspects the profile's native configuration and
// availability. It returns nil when the adapter is not configured; when a
// configured precondition fails it returns a Runtime whose descriptor is
// unavailable, with its session Factory. Diagnostics go to diag and never
// carry credentials.
type DiscoverFunc func(ctx context.Context, profile map[string]string, diag io.Writer) (*Runtime, error)

// Declaration is the static registration of one Harness kind.
type Declaration struct {
	Kind          string
	Capabilities  wire.AgentKindCapabilities
	Configuration ModelConfiguration
	Discover      DiscoverFunc
}

// Validate checks the whole declaration; errors wrap ErrInvalidDeclaration.
func (d Declaration) Validate() error {
	if err := validateKind(d.Kind); err != nil {
		return err
	}
	if err := d.Capabilities.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidDeclaration, err)
	}
	if err := d.Configuration.Validate(); err != nil {
		return err
	}
	if d.Discover == nil {
		return fmt.Errorf("%w: discover function missing", ErrInvalidDeclaration)
	}
	return nil
}

func validateKind(kind string) error {
	if kind == "" || strings.TrimSpace(kind) != kind {
		return fmt.Errorf("%w: kind blank or padded with whitespace", ErrInvalidDeclaration)
	}
	return nil
}

// Runtime is what discovery installed for a kind: its descriptor and the
// factories the Registry installs.
type Runtime struct {
	Descriptor wire.SupportedAgentKind
	// Sessions is the direct-call factory; required.
	Sessions Factory
	// Executors is the execution lifecycle; nil when not installed.
	Executors ExecutorFactory
	// Preparations is the optional read-only workspace preparation.
	Preparations PreparationFactory
	// WorkspaceRead states that Preparations qualifies workspace reads.
	WorkspaceRead bool
}

package api

import (
	"encoding/json"

	"github.com/turnstile-sim/turnstile/core"
)

// sessionEnv is a Session's environment: the machine's binding and the
// SDK Environment answered back.
type sessionEnv struct {
	kind       core.EnvironmentKind
	id         string
	definition *core.EnvironmentDefinition
	echo       json.RawMessage
}

// sessionEnvironment maps the SDK's EnvironmentParam onto the machine's
// Environment binding: {type: none}, and {type: openai_hosted,
// environment_id} (an existing Environment, bound exactly). Inline hosted
// configuration and self_hosted are refused until Environments are
// served (not_supported).
func sessionEnvironment(raw json.RawMessage) (sessionEnv, error) {
	var p struct {
		Type          string  `json:"type"`
		EnvironmentID *string `json:"environment_id"`
	}
	if err := sub(raw, "environment", &p); err != nil {
		if vb, ok := err.(*v1Bad); ok && vb.code == CodeUnknownField {
			return sessionEnv{}, badParam(CodeNotSupported, vb.param, "%s is not supported yet", vb.param)
		}
		return sessionEnv{}, err
	}
	switch {
	case p.Type == "none" && p.EnvironmentID == nil:
		return sessionEnv{kind: core.EnvNone, echo: json.RawMessage(`{"type":"none"}`)}, nil
	case p.Type == "openai_hosted" && p.EnvironmentID != nil && *p.EnvironmentID != "":
		echo, _ := json.Marshal(map[string]any{"type": "openai_hosted", "id": *p.EnvironmentID, "capability_directories": []string{},
			"files": []any{}, "plugins": []any{}, "skills": []any{},
			"network":  map[string]any{"access": "enabled", "allowed_domains": []string{}},
			"packages": map[string]any{"npm": []string{}, "python": []string{}, "system": []string{}}})
		return sessionEnv{kind: core.EnvOpenAIHosted, id: *p.EnvironmentID, echo: echo}, nil
	case p.Type == "self_hosted", p.Type == "openai_hosted":
		return sessionEnv{}, badParam(CodeNotSupported, "environment", "environment %s needs an existing environment_id", p.Type)
	}
	return sessionEnv{}, badParam(CodeInvalidValue, "environment.type", "environment type must be none, openai_hosted or self_hosted")
}

// environmentEcho is the SDK Environment of a frozen configuration.
func environmentEcho(c core.AgentConfig) json.RawMessage {
	if c.Environment == core.EnvNone || c.Environment == "" {
		return json.RawMessage(`{"type":"none"}`)
	}
	b, _ := json.Marshal(map[string]any{"type": string(c.Environment), "id": c.EnvironmentID})
	return b
}

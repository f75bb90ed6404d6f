package api

import (
	"encoding/json"

	"github.com/turnstile-sim/turnstile/core"
)

// environmentEcho is the SDK Environment of a frozen configuration.
func environmentEcho(c core.AgentConfig) json.RawMessage {
	if c.Environment == core.EnvNone || c.Environment == "" {
		return json.RawMessage(`{"type":"none"}`)
	}
	b, _ := json.Marshal(map[string]any{"type": string(c.Environment), "id": c.EnvironmentID})
	return b
}

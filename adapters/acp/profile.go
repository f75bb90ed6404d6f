package acp

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Profile is what a vendor's ACP agent adds to ACP v1 and what the adapter
// proves of it: its steering extension (if any), how its permission
// requests are answered and the environment its process needs.
type Profile struct {
	// Name is the profile's name; the kind is "acp:" + Name.
	Name string
	// Label names the agent for diagnostics.
	Label string
	// Steer is the vendor's steering extension; nil: none, Steering is
	// unsupported and SteerDurable refuses.
	Steer *SteerExtension
	// Permissions hands session/request_permission to the Turn as a
	// permission_request. False runs tools unattended: every request is
	// answered with the agent's allow option.
	Permissions bool
	// Env is added to the agent's environment.
	Env []string
	// SessionMeta is the _meta of session/new and session/load for the
	// session's model ("" when none was chosen); nil: none.
	SessionMeta func(model string) map[string]any
	// Model states that SessionMeta passes the model option to the agent;
	// false refuses a chosen model.
	Model bool
	// Controls states that SessionMeta disables web search and subagents
	// (execution controls and subagent control); the tests read the
	// model request's tool list.
	Controls bool
	// Mode, when set, is the session mode set with session/set_mode after
	// the session is created or loaded.
	Mode string
	// Version, when set, is the only agentInfo.version qualified.
	Version string
}

// Kind is the registered kind of the profile.
func (p Profile) Kind() string { return KindPrefix + p.Name }

// KindPrefix begins every ACP kind.
const KindPrefix = "acp:"

// SteerOutcome is how the agent answered a steer.
type SteerOutcome int

// Steer outcomes.
const (
	// SteerAccepted: the agent took the input into the running turn (native
	// acceptance, not proof that the model consumed it).
	SteerAccepted SteerOutcome = iota + 1
	// SteerRefused: the agent did not take the input (no running turn);
	// nothing was applied.
	SteerRefused
)

// SteerExtension is a vendor's steering request.
type SteerExtension struct {
	// Method is the JSON-RPC request method.
	Method string
	// Advertised reports whether the initialize answer advertises it.
	Advertised func(initializeResult) bool
	// Params builds the request of text for the native session, carrying
	// the caller's input ID as the agent's idempotency key where it has one.
	Params func(session, inputID, text string) any
	// Outcome reads the answer.
	Outcome func(json.RawMessage) (SteerOutcome, error)
}

// Profile names.
const (
	ProfileClaudeAgentACP = "claude-agent-acp"
	ProfileMCode          = "mcode"
)

// Profiles returns every vendor profile, by name.
func Profiles() []Profile { return []Profile{ClaudeAgentACP(), MCode()} }

// LookupProfile returns the profile named name.
func LookupProfile(name string) (Profile, bool) {
	i := slices.IndexFunc(Profiles(), func(p Profile) bool { return p.Name == name })
	if i < 0 {
		return Profile{}, false
	}
	return Profiles()[i], true
}

// ClaudeAgentACP is @agentclientprotocol/claude-agent-acp: the steering
// extension `_session/steering` (advertised as _meta.steering.supported)
// answers {outcome: "injected"} while a turn runs and, with the
// promptRequired idle behaviour, {outcome: "promptRequired"} when none
// does; its permission requests go to the Turn (its session runs in the
// native default permission mode, set with session/set_mode); its session _meta removes the web and
// subagent tools. Claude Code's telemetry, auto updater and non-essential
// traffic are off.
func ClaudeAgentACP() Profile {
	return Profile{
		Name:        ProfileClaudeAgentACP,
		Label:       "claude-agent-acp",
		Permissions: true,
		Controls:    true,
		Mode:        "default",
		Version:     AgentVersion,
		Model:       true,
		SessionMeta: func(model string) map[string]any {
			options := map[string]any{"disallowedTools": claudeRemovedTools, "promptSuggestions": false}
			if model != "" {
				options["model"] = model
			}
			return map[string]any{"claudeCode": map[string]any{"options": options}}
		},
		Env: []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1",
			"DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1"},
		Steer: &SteerExtension{
			Method: "_session/steering",
			Advertised: func(r initializeResult) bool {
				var m struct {
					Steering struct {
						Supported bool `json:"supported"`
					} `json:"steering"`
				}
				return json.Unmarshal(r.Meta, &m) == nil && m.Steering.Supported
			},
			Params: func(session, _, text string) any {
				return map[string]any{"sessionId": session, "prompt": []contentBlock{{Type: "text", Text: text}},
					"_meta": map[string]any{"steering": map[string]any{"idleBehavior": "promptRequired"}}}
			},
			Outcome: func(raw json.RawMessage) (SteerOutcome, error) {
				var r struct {
					Outcome string `json:"outcome"`
				}
				if err := json.Unmarshal(raw, &r); err != nil {
					return 0, fmt.Errorf("%w: steering answer: %v", ErrMalformed, err)
				}
				switch r.Outcome {
				case "injected":
					return SteerAccepted, nil
				case "promptRequired":
					return SteerRefused, nil
				}
				return 0, fmt.Errorf("%w: unknown steering outcome", ErrMalformed)
			},
		},
	}
}

// mcodeExtensions is the _meta key under which MiniMax Code lists its
// extension methods.
const mcodeExtensions = "minimax-code/extensions"

// MCode is MiniMax Code's `mcode acp`: the extension `mcode/session/steer
// {sessionId, text, clientRequestId}` (listed in the initialize answer's
// _meta["minimax-code/extensions"]) answers {turnId, mode} where mode is
// steered (taken into the running turn) or duplicate (that
// clientRequestId was already taken: no second effect). Per the seed,
// MiniMax Code runs tools unattended: permission requests are answered
// with the agent's allow option. The profile is qualified against the
// scripted agent acptest only.
func MCode() Profile {
	return Profile{
		Name:  ProfileMCode,
		Label: "MiniMax Code",
		Steer: &SteerExtension{
			Method: "mcode/session/steer",
			Advertised: func(r initializeResult) bool {
				for _, meta := range []json.RawMessage{r.Meta, r.AgentCapabilities.Meta} {
					var m map[string]json.RawMessage
					if json.Unmarshal(meta, &m) != nil {
						continue
					}
					if mentions(m[mcodeExtensions], "mcode/session/steer") {
						return true
					}
				}
				return false
			},
			Params: func(session, inputID, text string) any {
				return map[string]any{"sessionId": session, "text": text, "clientRequestId": inputID}
			},
			Outcome: func(raw json.RawMessage) (SteerOutcome, error) {
				var r struct {
					TurnID string `json:"turnId"`
					Mode   string `json:"mode"`
				}
				if err := json.Unmarshal(raw, &r); err != nil {
					return 0, fmt.Errorf("%w: steer answer: %v", ErrMalformed, err)
				}
				switch r.Mode {
				case "steered", "duplicate":
					return SteerAccepted, nil
				}
				return 0, fmt.Errorf("%w: unknown steer mode", ErrMalformed)
			},
		},
	}
}

// mentions reports whether raw (a list of method names, or an object keyed
// by them) names method.
func mentions(raw json.RawMessage, method string) bool {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return slices.Contains(list, method)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		_, ok := obj[method]
		return ok
	}
	return false
}

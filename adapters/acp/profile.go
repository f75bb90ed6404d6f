package acp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
	// Proof, when set, reads the agent's notifications that prove a
	// steered input was applied; nil: none does, and every accepted
	// steer's receipt ends unknown with its Turn.
	Proof *ApplyProof
}

// ApplyProof is a vendor notification that reports the agent's own user
// messages: Read returns its session and what it shows.
type ApplyProof struct {
	// Method is the notification's method.
	Method string
	// Read reads one notification's parameters; ok false ignores it.
	Read func(params json.RawMessage) (session string, ev ProofEvent, ok bool)
}

// ProofEvent is what one proof notification shows: the agent's replay of
// a user message it took into the conversation (Echo: its native ID and
// text) and the native IDs of messages it started running or answered
// (Started).
type ProofEvent struct {
	Echo    *EchoedMessage
	Started []string
}

// EchoedMessage is a user message the agent replayed.
type EchoedMessage struct {
	ID   string
	Text string
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
// native default permission mode, set with session/set_mode); its session
// _meta removes the web and subagent tools and asks for the raw Claude
// Code messages of kinds user, command_lifecycle and result as
// `_claude/sdkMessage` notifications (claudeCode.emitRawSDKMessages),
// the proof of application of a steer (claudeProof). Claude Code's
// telemetry, auto updater and non-essential traffic are off.
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
			return map[string]any{"claudeCode": map[string]any{"options": options, "emitRawSDKMessages": claudeProofKinds}}
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
			Proof: claudeProof(),
		},
	}
}

// claudeProofKinds filters the raw Claude Code messages claude-agent-acp
// forwards to the kinds claudeProof reads.
var claudeProofKinds = []map[string]string{{"type": "user"}, {"type": "command_lifecycle"}, {"type": "result"}}

// claudeProof reads claude-agent-acp's `_claude/sdkMessage` notification
// {sessionId, message}: a user message replayed by Claude Code (isReplay,
// its uuid and text) is an echo; command_lifecycle state started names
// the message Claude Code began to run, and a result the messages it
// answered (user_message_uuids).
func claudeProof() *ApplyProof {
	return &ApplyProof{
		Method: "_claude/sdkMessage",
		Read: func(raw json.RawMessage) (string, ProofEvent, bool) {
			var n struct {
				SessionID string `json:"sessionId"`
				Message   struct {
					Type        string   `json:"type"`
					UUID        string   `json:"uuid"`
					IsReplay    bool     `json:"isReplay"`
					CommandUUID string   `json:"command_uuid"`
					State       string   `json:"state"`
					Answered    []string `json:"user_message_uuids"`
					Message     struct {
						Content json.RawMessage `json:"content"`
					} `json:"message"`
				} `json:"message"`
			}
			if json.Unmarshal(raw, &n) != nil {
				return "", ProofEvent{}, false
			}
			m := n.Message
			switch {
			case m.Type == "user" && m.IsReplay && m.UUID != "":
				text, ok := userText(m.Message.Content)
				if !ok {
					return "", ProofEvent{}, false
				}
				return n.SessionID, ProofEvent{Echo: &EchoedMessage{ID: m.UUID, Text: text}}, true
			case m.Type == "command_lifecycle" && m.State == "started" && m.CommandUUID != "":
				return n.SessionID, ProofEvent{Started: []string{m.CommandUUID}}, true
			case m.Type == "result" && len(m.Answered) > 0:
				return n.SessionID, ProofEvent{Started: m.Answered}, true
			}
			return "", ProofEvent{}, false
		},
	}
}

// userText is the text of a user message's content: a string, or the
// concatenated text of blocks that are all text.
func userText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil || len(blocks) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type != "text" {
			return "", false
		}
		b.WriteString(bl.Text)
	}
	return b.String(), true
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

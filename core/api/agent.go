package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// kindAgent is the resource kind of reusable Agents.
const kindAgent = "agent"

// HarnessConfigBytesMax bounds x_agents_core.harness_config (the wire's
// harness_config limit).
const HarnessConfigBytesMax = 16 << 10

// ProviderKeyStore keeps the write-only api_key of an Agent's model
// provider as a Vault credential and returns its reference; the key is
// never stored in the Agent nor returned. Without one (Options.ProviderKeys
// nil) an api_key is refused (400 not_supported).
type ProviderKeyStore interface {
	StoreProviderKey(ctx context.Context, agentID, secret string) (ref string, err error)
}

// agentRoutes are the Agents routes.
func agentRoutes() []Route {
	return []Route{
		{"POST", "/v1/agents", (*API).createAgent},
		{"GET", "/v1/agents", (*API).listAgents},
		{"GET", "/v1/agents/{agent}", (*API).getAgent},
		{"POST", "/v1/agents/{agent}", (*API).updateAgent},
		{"DELETE", "/v1/agents/{agent}", (*API).deleteAgent},
	}
}

// AgentObject is the SDK's Agent, with Core's additions in XAgentsCore.
type AgentObject struct {
	ID           string            `json:"id"`
	Object       string            `json:"object"`
	CreatedAt    int64             `json:"created_at"`
	UpdatedAt    int64             `json:"updated_at"`
	Name         *string           `json:"name"`
	Instructions *string           `json:"instructions"`
	Metadata     map[string]string `json:"metadata"`
	Model        string            `json:"model"`
	MultiAgent   MultiAgentJSON    `json:"multi_agent"`
	Reasoning    ReasoningJSON     `json:"reasoning"`
	ServiceTier  string            `json:"service_tier"`
	Text         TextJSON          `json:"text"`
	Tools        []AgentToolJSON   `json:"tools"`
	Compaction   CompactionJSON    `json:"compaction"`
	Experimental ExperimentalJSON  `json:"experimental"`
	XAgentsCore  XAgentsCoreJSON   `json:"x_agents_core"`
}

// MultiAgentJSON: subagents on or off (Core has no concurrency bound).
type MultiAgentJSON struct {
	Enabled                bool `json:"enabled"`
	MaxConcurrentSubagents *int `json:"max_concurrent_subagents"`
}

// ReasoningJSON is always the model's default (Core sets no effort).
type ReasoningJSON struct {
	Effort  *string `json:"effort"`
	Summary *string `json:"summary"`
}

// TextJSON is the text configuration.
type TextJSON struct {
	Format    TextFormatJSON `json:"format"`
	Verbosity string         `json:"verbosity"`
}

// TextFormatJSON is text or json_schema (with its schema).
type TextFormatJSON struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema,omitempty"`
}

// CompactionJSON: background compaction is always off.
type CompactionJSON struct {
	Async bool `json:"async"`
}

// ExperimentalJSON: every experimental setting is off.
type ExperimentalJSON struct {
	TimeAwareness bool `json:"time_awareness"`
}

// AgentToolJSON is a tool of the Agent: function, tool_search,
// programmatic_tool_calling or mcp (HTTP transport).
type AgentToolJSON struct {
	Type string `json:"type"`
	// function
	Name         string          `json:"name,omitempty"`
	Description  *string         `json:"description,omitempty"`
	Parameters   json.RawMessage `json:"parameters,omitempty"`
	DeferLoading *bool           `json:"defer_loading,omitempty"`
	Async        *bool           `json:"async,omitempty"`
	// programmatic_tool_calling
	Enabled *bool `json:"enabled,omitempty"`
	// mcp
	ServerLabel      string             `json:"server_label,omitempty"`
	Transport        *MCPTransportJSON  `json:"transport,omitempty"`
	AllowedTools     *[]string          `json:"allowed_tools,omitempty"`
	ConnectionOrigin *string            `json:"connection_origin,omitempty"`
	CredentialID     *string            `json:"credential_id,omitempty"`
	RequestMetadata  *map[string]string `json:"request_metadata,omitempty"`
	Required         *bool              `json:"required,omitempty"`
}

// MCPTransportJSON is an MCP server's HTTP transport.
type MCPTransportJSON struct {
	Type      string `json:"type"`
	ServerURL string `json:"server_url"`
}

// XAgentsCoreJSON is Core's member of an Agent.
type XAgentsCoreJSON struct {
	// Harness is the Harness kind that runs the Agent.
	Harness       string             `json:"harness"`
	ModelProvider *ModelProviderJSON `json:"model_provider"`
	// HarnessConfig is sent to the Runtime as harness_config.
	HarnessConfig json.RawMessage `json:"harness_config"`
}

// ModelProviderJSON is the Agent's model provider. APIKeyConfigured tells
// whether a key was given; the key itself is write-only.
type ModelProviderJSON struct {
	Protocol         string          `json:"protocol"`
	BaseURL          string          `json:"base_url"`
	Limits           json.RawMessage `json:"limits,omitempty"`
	APIKeyConfigured bool            `json:"api_key_configured"`
}

// agentRecord is the stored form of an Agent: the answer and the
// reference of the provider key (never answered).
type agentRecord struct {
	Agent          AgentObject `json:"agent"`
	ProviderKeyRef string      `json:"provider_key_ref,omitempty"`
}

// agentParams is the body of create and update: members present as raw
// JSON so that absent (keep) and null (clear) differ.
type agentParams struct {
	Model        json.RawMessage `json:"model"`
	Name         json.RawMessage `json:"name"`
	Instructions json.RawMessage `json:"instructions"`
	Metadata     json.RawMessage `json:"metadata"`
	MultiAgent   json.RawMessage `json:"multi_agent"`
	Reasoning    json.RawMessage `json:"reasoning"`
	ServiceTier  json.RawMessage `json:"service_tier"`
	Text         json.RawMessage `json:"text"`
	Tools        json.RawMessage `json:"tools"`
	Compaction   json.RawMessage `json:"compaction"`
	Experimental json.RawMessage `json:"experimental"`
	XAgentsCore  json.RawMessage `json:"x_agents_core"`
}

// xAgentsCoreParams is x_agents_core as given; any other member is 400.
type xAgentsCoreParams struct {
	Harness       json.RawMessage `json:"harness"`
	ModelProvider json.RawMessage `json:"model_provider"`
	HarnessConfig json.RawMessage `json:"harness_config"`
}

type modelProviderParams struct {
	Protocol string          `json:"protocol"`
	BaseURL  string          `json:"base_url"`
	Limits   json.RawMessage `json:"limits"`
	APIKey   *string         `json:"api_key"`
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// sub decodes a member strictly, naming it in a refusal.
func sub(raw json.RawMessage, name string, v any) error {
	if err := decodeStrict(raw, v); err != nil {
		br, _ := err.(*badRequest)
		p := name
		if br != nil && br.code == CodeUnknownField {
			if f := unknownFieldParam(br); f != "" {
				p = name + "." + f
			}
			return badParam(CodeUnknownField, p, "%s: %s", name, br.detail)
		}
		return badParam(CodeBadJSON, p, "%s: wrong type or malformed", name)
	}
	return nil
}

func optString(raw json.RawMessage, name string) (*string, error) {
	if raw == nil || isNull(raw) {
		return nil, nil
	}
	var s string
	if err := sub(raw, name, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func checkMetadata(raw json.RawMessage) (map[string]string, error) {
	m := map[string]string{}
	if raw == nil || isNull(raw) {
		return m, nil
	}
	if err := sub(raw, "metadata", &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]string{}
	}
	if len(m) > 16 {
		return nil, badParam(CodeInvalidValue, "metadata", "metadata has %d pairs, at most 16", len(m))
	}
	for k, v := range m {
		if utf8.RuneCountInString(k) > 64 || utf8.RuneCountInString(v) > 512 {
			return nil, badParam(CodeInvalidValue, "metadata", "metadata keys are at most 64 and values at most 512 characters")
		}
	}
	return m, nil
}

// apply merges p into ag (create starts from the defaults); it returns
// the provider key given, if any.
func (p agentParams) apply(ag *AgentObject, create bool) (key *string, err error) {
	if create && p.Model == nil {
		return nil, badParam(CodeInvalidValue, "model", "model is required")
	}
	if p.Model != nil {
		var m string
		if err := sub(p.Model, "model", &m); err != nil {
			return nil, err
		}
		if m == "" {
			return nil, badParam(CodeInvalidValue, "model", "model must be a non-empty string")
		}
		ag.Model = m
	}
	if p.Name != nil {
		if ag.Name, err = optString(p.Name, "name"); err != nil {
			return nil, err
		}
	}
	if p.Instructions != nil {
		if ag.Instructions, err = optString(p.Instructions, "instructions"); err != nil {
			return nil, err
		}
	}
	if p.Metadata != nil || create {
		if ag.Metadata, err = checkMetadata(p.Metadata); err != nil {
			return nil, err
		}
	}
	if p.MultiAgent != nil {
		ag.MultiAgent = MultiAgentJSON{}
		if !isNull(p.MultiAgent) {
			var ma struct {
				Enabled                *bool `json:"enabled"`
				MaxConcurrentSubagents *int  `json:"max_concurrent_subagents"`
			}
			if err := sub(p.MultiAgent, "multi_agent", &ma); err != nil {
				return nil, err
			}
			if ma.Enabled == nil {
				return nil, badParam(CodeInvalidValue, "multi_agent.enabled", "multi_agent.enabled is required")
			}
			if ma.MaxConcurrentSubagents != nil {
				return nil, badParam(CodeNotSupported, "multi_agent.max_concurrent_subagents", "Core does not bound concurrent subagents")
			}
			ag.MultiAgent.Enabled = *ma.Enabled
		}
	}
	if p.Reasoning != nil && !isNull(p.Reasoning) {
		var r struct {
			Effort  *string `json:"effort"`
			Summary *string `json:"summary"`
		}
		if err := sub(p.Reasoning, "reasoning", &r); err != nil {
			return nil, err
		}
		if r.Effort != nil || r.Summary != nil {
			return nil, badParam(CodeNotSupported, "reasoning", "Core sets no reasoning effort or summary: the model's default applies")
		}
	}
	if p.ServiceTier != nil && !isNull(p.ServiceTier) {
		var st string
		if err := sub(p.ServiceTier, "service_tier", &st); err != nil {
			return nil, err
		}
		if st != "auto" {
			return nil, badParam(CodeNotSupported, "service_tier", "Core selects no service tier: only auto")
		}
	}
	if p.Text != nil {
		ag.Text = TextJSON{Format: TextFormatJSON{Type: "text"}, Verbosity: core.VerbosityMedium}
		if !isNull(p.Text) {
			var tp struct {
				Format    json.RawMessage `json:"format"`
				Verbosity *string         `json:"verbosity"`
			}
			if err := sub(p.Text, "text", &tp); err != nil {
				return nil, err
			}
			if tp.Verbosity != nil {
				switch *tp.Verbosity {
				case core.VerbosityLow, core.VerbosityMedium, core.VerbosityHigh:
					ag.Text.Verbosity = *tp.Verbosity
				default:
					return nil, badParam(CodeInvalidValue, "text.verbosity", "verbosity must be low, medium or high")
				}
			}
			if tp.Format != nil && !isNull(tp.Format) {
				var f struct {
					Type   string          `json:"type"`
					Schema json.RawMessage `json:"schema"`
				}
				if err := sub(tp.Format, "text.format", &f); err != nil {
					return nil, err
				}
				switch {
				case f.Type == "text" && f.Schema == nil:
				case f.Type == "json_schema" && len(f.Schema) > 0 && f.Schema[0] == '{':
					ag.Text.Format = TextFormatJSON{Type: "json_schema", Schema: f.Schema}
				default:
					return nil, badParam(CodeInvalidValue, "text.format", "format is {type: text} or {type: json_schema, schema: {...}}")
				}
			}
		}
	}
	if p.Tools != nil {
		if ag.Tools, err = parseTools(p.Tools); err != nil {
			return nil, err
		}
	}
	if p.Compaction != nil && !isNull(p.Compaction) {
		var c struct {
			Async *bool `json:"async"`
		}
		if err := sub(p.Compaction, "compaction", &c); err != nil {
			return nil, err
		}
		if c.Async != nil && *c.Async {
			return nil, badParam(CodeNotSupported, "compaction.async", "Core has no background compaction")
		}
	}
	if p.Experimental != nil {
		var x struct {
			TimeAwareness *bool `json:"time_awareness"`
		}
		if err := sub(p.Experimental, "experimental", &x); err != nil {
			return nil, err
		}
		if x.TimeAwareness != nil && *x.TimeAwareness {
			return nil, badParam(CodeNotSupported, "experimental.time_awareness", "Core has no time reminders")
		}
	}
	if p.XAgentsCore != nil && !isNull(p.XAgentsCore) {
		if key, err = applyXAgentsCore(p.XAgentsCore, &ag.XAgentsCore); err != nil {
			return nil, err
		}
	}
	if create && ag.XAgentsCore.Harness == "" {
		return nil, badParam(CodeInvalidValue, "x_agents_core.harness", "x_agents_core.harness (the Harness kind) is required")
	}
	return key, nil
}

func applyXAgentsCore(raw json.RawMessage, x *XAgentsCoreJSON) (*string, error) {
	var xp xAgentsCoreParams
	if err := sub(raw, "x_agents_core", &xp); err != nil {
		return nil, err
	}
	if xp.Harness != nil {
		var h string
		if err := sub(xp.Harness, "x_agents_core.harness", &h); err != nil {
			return nil, err
		}
		if h == "" {
			return nil, badParam(CodeInvalidValue, "x_agents_core.harness", "harness must be a non-empty Harness kind")
		}
		x.Harness = h
	}
	if xp.HarnessConfig != nil {
		switch {
		case isNull(xp.HarnessConfig):
			x.HarnessConfig = nil
		case bytes.TrimSpace(xp.HarnessConfig)[0] != '{':
			return nil, badParam(CodeInvalidValue, "x_agents_core.harness_config", "harness_config must be an object")
		case len(xp.HarnessConfig) > HarnessConfigBytesMax:
			return nil, badParam(CodeInvalidValue, "x_agents_core.harness_config", "harness_config over %d bytes", HarnessConfigBytesMax)
		default:
			var buf bytes.Buffer
			if err := json.Compact(&buf, xp.HarnessConfig); err != nil {
				return nil, badParam(CodeBadJSON, "x_agents_core.harness_config", "harness_config is not valid JSON")
			}
			x.HarnessConfig = buf.Bytes()
		}
	}
	var key *string
	if xp.ModelProvider != nil {
		if isNull(xp.ModelProvider) {
			x.ModelProvider = nil
			return nil, nil
		}
		var mp modelProviderParams
		if err := sub(xp.ModelProvider, "x_agents_core.model_provider", &mp); err != nil {
			return nil, err
		}
		if mp.Protocol == "" || mp.BaseURL == "" {
			return nil, badParam(CodeInvalidValue, "x_agents_core.model_provider", "model_provider needs protocol and base_url")
		}
		if mp.Limits != nil && !isNull(mp.Limits) && bytes.TrimSpace(mp.Limits)[0] != '{' {
			return nil, badParam(CodeInvalidValue, "x_agents_core.model_provider.limits", "limits must be an object")
		}
		configured := x.ModelProvider != nil && x.ModelProvider.APIKeyConfigured && mp.APIKey == nil
		x.ModelProvider = &ModelProviderJSON{Protocol: mp.Protocol, BaseURL: mp.BaseURL, APIKeyConfigured: configured}
		if mp.Limits != nil && !isNull(mp.Limits) {
			x.ModelProvider.Limits = mp.Limits
		}
		if mp.APIKey != nil {
			if *mp.APIKey == "" {
				return nil, badParam(CodeInvalidValue, "x_agents_core.model_provider.api_key", "api_key must not be empty")
			}
			key = mp.APIKey
		}
	}
	return key, nil
}

// parseTools reads the tool list (null clears it).
func parseTools(raw json.RawMessage) ([]AgentToolJSON, error) {
	out := []AgentToolJSON{}
	if isNull(raw) {
		return out, nil
	}
	var tools []AgentToolJSON
	if err := sub(raw, "tools", &tools); err != nil {
		return nil, err
	}
	if len(raw) > 3<<20 {
		return nil, badParam(CodeInvalidValue, "tools", "the tool list is over 3 MiB")
	}
	for i, t := range tools {
		p := fmt.Sprintf("tools[%d]", i)
		fn := t.Name != "" || t.Description != nil || t.Parameters != nil || t.DeferLoading != nil || t.Async != nil
		mcp := t.ServerLabel != "" || t.Transport != nil || t.AllowedTools != nil || t.ConnectionOrigin != nil ||
			t.CredentialID != nil || t.RequestMetadata != nil || t.Required != nil
		foreign := func(ok bool) error {
			if !ok {
				return badParam(CodeUnknownField, p, "%s: a member of another tool type", p)
			}
			return nil
		}
		switch t.Type {
		case "function":
			if err := foreign(!mcp && t.Enabled == nil); err != nil {
				return nil, err
			}
			if t.Name == "" {
				return nil, badParam(CodeInvalidValue, p+".name", "a function tool needs a name")
			}
			if t.Async != nil && *t.Async {
				return nil, badParam(CodeNotSupported, p+".async", "Core runs no function tool asynchronously")
			}
			t.Async = nil
			if t.Parameters != nil && (isNull(t.Parameters) || bytes.TrimSpace(t.Parameters)[0] != '{') {
				return nil, badParam(CodeInvalidValue, p+".parameters", "parameters must be a JSON Schema object")
			}
			if t.Description == nil {
				t.Description = new(string)
			}
			if t.Parameters == nil {
				t.Parameters = json.RawMessage(`{}`)
			}
			if t.DeferLoading == nil {
				t.DeferLoading = new(bool)
			}
		case "tool_search":
			if err := foreign(!mcp && !fn && t.Enabled == nil); err != nil {
				return nil, err
			}
		case "programmatic_tool_calling":
			if err := foreign(!mcp && !fn); err != nil {
				return nil, err
			}
			if t.Enabled == nil {
				t.Enabled = ptr(true)
			}
		case "mcp":
			if err := foreign(!fn && t.Enabled == nil); err != nil {
				return nil, err
			}
			if t.ServerLabel == "" || t.Transport == nil || t.Transport.Type != "http" || t.Transport.ServerURL == "" {
				return nil, badParam(CodeInvalidValue, p, "an mcp tool needs server_label and an http transport with server_url (stdio is not supported)")
			}
			if t.RequestMetadata != nil && len(*t.RequestMetadata) > 0 {
				return nil, badParam(CodeNotSupported, p+".request_metadata", "Core sends no MCP request metadata")
			}
			if t.ConnectionOrigin != nil && *t.ConnectionOrigin != wire.OriginService && *t.ConnectionOrigin != wire.OriginEnvironment {
				return nil, badParam(CodeInvalidValue, p+".connection_origin", "connection_origin must be service or environment")
			}
			if t.Required == nil {
				t.Required = new(bool)
			}
			if t.RequestMetadata == nil {
				t.RequestMetadata = &map[string]string{}
			}
		case "web_search", "computer_use", "automations":
			return nil, badParam(CodeNotSupported, p+".type", "Core does not offer the %s tool", t.Type)
		default:
			return nil, badParam(CodeInvalidValue, p+".type", "unknown tool type %q", t.Type)
		}
		out = append(out, t)
	}
	return out, nil
}

func ptr[T any](v T) *T { return &v }

// agentConfig is the machine configuration an Agent freezes into a
// Session (environment added by the caller).
func (ag AgentObject) agentConfig(env core.EnvironmentKind, envID string) core.AgentConfig {
	c := core.AgentConfig{Kind: ag.XAgentsCore.Harness, Model: ag.Model, TextVerbosity: ag.Text.Verbosity,
		Environment: env, EnvironmentID: envID, MultiAgent: ag.MultiAgent.Enabled}
	if hc := ag.XAgentsCore.HarnessConfig; len(hc) > 0 && !isNull(hc) { // a stored Agent reads back null
		c.HarnessConfig = hc
	}
	if ag.Instructions != nil {
		c.SystemPrompt = *ag.Instructions
	}
	if ag.XAgentsCore.ModelProvider != nil {
		c.ModelProvider = ag.XAgentsCore.ModelProvider.Protocol
	}
	if ag.Text.Format.Type == "json_schema" {
		c.OutputSchema = ag.Text.Format.Schema
	}
	for _, t := range ag.Tools {
		switch t.Type {
		case "function":
			c.FunctionTools = append(c.FunctionTools, wire.FunctionTool{Name: t.Name, Description: *t.Description,
				Parameters: t.Parameters, DeferLoading: *t.DeferLoading})
		case "programmatic_tool_calling":
			c.DisableProgrammaticToolCalling = !*t.Enabled
		case "mcp":
			s := wire.MCPHTTPServer{ServerLabel: t.ServerLabel, ServerURL: t.Transport.ServerURL, AllowedTools: t.AllowedTools,
				Required: *t.Required}
			if t.ConnectionOrigin != nil {
				s.ConnectionOrigin = *t.ConnectionOrigin
			}
			if t.CredentialID != nil {
				s.BearerToken = *t.CredentialID // a Vault credential reference
			}
			if c.MCPServers == nil {
				c.MCPServers = []wire.MCPHTTPServer{}
			}
			c.MCPServers = append(c.MCPServers, s)
		}
	}
	return c
}

func newAgentObject(id string, now int64) AgentObject {
	return AgentObject{ID: id, Object: "agent", CreatedAt: now, UpdatedAt: now, Metadata: map[string]string{},
		ServiceTier: "auto", Text: TextJSON{Format: TextFormatJSON{Type: "text"}, Verbosity: core.VerbosityMedium},
		Tools: []AgentToolJSON{}}
}

func (a *API) storeProviderKey(ctx context.Context, id string, key *string, rec *agentRecord) error {
	if key == nil {
		return nil
	}
	if a.provKeys == nil {
		return badParam(CodeNotSupported, "x_agents_core.model_provider.api_key",
			"this Core keeps no model provider keys (no vault configured)")
	}
	ref, err := a.provKeys.StoreProviderKey(ctx, id, *key)
	if err != nil {
		return err
	}
	rec.ProviderKeyRef = ref
	rec.Agent.XAgentsCore.ModelProvider.APIKeyConfigured = true
	return nil
}

func (a *API) createAgent(w http.ResponseWriter, r *http.Request) {
	var p agentParams
	if _, err := readV1(w, r, &p, false); err != nil {
		a.failV1Err(w, err)
		return
	}
	id := newID("agent")
	rec := agentRecord{Agent: newAgentObject(id, time.Now().Unix())}
	key, err := p.apply(&rec.Agent, true)
	if err == nil {
		err = a.storeProviderKey(r.Context(), id, key, &rec)
	}
	if err == nil {
		err = a.putAgent(r.Context(), rec)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rec.Agent)
}

func (a *API) putAgent(ctx context.Context, rec agentRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return a.res.PutResource(ctx, kindAgent, rec.Agent.ID, b)
}

// sdkCollections are the SDK's resources under /v1/agents/ that share
// the shape of /v1/agents/{agent}: a call on one that Core does not
// serve is an unknown route, never "no such agent".
var sdkCollections = map[string]bool{"sessions": true, "environments": true, "vaults": true, "automations": true}

// agentPath is the {agent} of the request; ok is false (and the 404
// unknown_route answered) when it names one of the SDK's collections.
func agentPath(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("agent")
	if sdkCollections[id] {
		failV1(w, http.StatusNotFound, "", CodeUnknownRoute, "", fmt.Sprintf("no route %s %s", r.Method, r.URL.Path))
		return "", false
	}
	return id, true
}

// agent reads a stored Agent; 404 unknown_agent when there is none.
func (a *API) agent(ctx context.Context, id, param string) (agentRecord, error) {
	doc, ok, err := a.res.GetResource(ctx, kindAgent, id)
	if err != nil {
		return agentRecord{}, err
	}
	if !ok {
		return agentRecord{}, notFound(CodeUnknownAgent, param, "no agent %q", id)
	}
	var rec agentRecord
	if err := json.Unmarshal(doc, &rec); err != nil {
		return agentRecord{}, fmt.Errorf("agent %q: stored record: %w", id, err)
	}
	return rec, nil
}

func (a *API) getAgent(w http.ResponseWriter, r *http.Request) {
	id, ok := agentPath(w, r)
	if !ok {
		return
	}
	rec, err := a.agent(r.Context(), id, "agent_id")
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rec.Agent)
}

func (a *API) updateAgent(w http.ResponseWriter, r *http.Request) {
	id, ok := agentPath(w, r)
	if !ok {
		return
	}
	var p agentParams
	if _, err := readV1(w, r, &p, true); err != nil {
		a.failV1Err(w, err)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	rec, err := a.agent(r.Context(), id, "agent_id")
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	if p.XAgentsCore != nil && isNull(p.XAgentsCore) {
		a.failV1Err(w, badParam(CodeInvalidValue, "x_agents_core", "x_agents_core cannot be cleared: the Harness is required"))
		return
	}
	key, err := p.apply(&rec.Agent, false)
	if err == nil && rec.Agent.XAgentsCore.ModelProvider == nil {
		rec.ProviderKeyRef = ""
	}
	if err == nil {
		err = a.storeProviderKey(r.Context(), rec.Agent.ID, key, &rec)
	}
	if err == nil {
		rec.Agent.UpdatedAt = max(time.Now().Unix(), rec.Agent.CreatedAt)
		err = a.putAgent(r.Context(), rec)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rec.Agent)
}

func (a *API) listAgents(w http.ResponseWriter, r *http.Request) {
	a.listResources(w, r, kindAgent, func(doc []byte) (any, error) {
		var rec agentRecord
		if err := json.Unmarshal(doc, &rec); err != nil {
			return nil, err
		}
		return rec.Agent, nil
	})
}

func (a *API) deleteAgent(w http.ResponseWriter, r *http.Request) {
	id, ok := agentPath(w, r)
	if !ok {
		return
	}
	ok, err := a.res.DeleteResource(r.Context(), kindAgent, id)
	if err == nil && !ok {
		err = notFound(CodeUnknownAgent, "agent_id", "no agent %q", id)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, Deleted{ID: id, Object: "agent.deleted", Deleted: true})
}

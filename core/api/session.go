package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// kindSession is the resource kind of a Session's shell record (what the
// machine does not keep: metadata, the Agent it came from, timestamps).
const kindSession = "session"

// Error codes of the Session routes.
const (
	CodeUnknownSessionV1 = "unknown_session"
	CodeNoTurn           = "no_turn"
)

func sessionRoutes() []Route {
	return []Route{
		{"POST", "/v1/agents/sessions", (*API).createSessionV1},
		{"GET", "/v1/agents/sessions", (*API).listSessionsV1},
		{"GET", "/v1/agents/sessions/{session}", (*API).getSessionV1},
		{"POST", "/v1/agents/sessions/{session}", (*API).updateSessionV1},
		{"DELETE", "/v1/agents/sessions/{session}", (*API).deleteSessionV1},
	}
}

// SessionObject is the SDK's AgentSession.
type SessionObject struct {
	ID              string            `json:"id"`
	Object          string            `json:"object"`
	Agent           SessionAgentJSON  `json:"agent"`
	CreatedAt       int64             `json:"created_at"`
	LastActiveAt    int64             `json:"last_active_at"`
	Environment     json.RawMessage   `json:"environment"`
	Error           *string           `json:"error"`
	Metadata        map[string]string `json:"metadata"`
	RequiredActions []RequiredAction  `json:"required_actions"`
	Status          string            `json:"status"`
	Usage           *UsageJSON        `json:"usage"`
	VaultIDs        []string          `json:"vault_ids"`
	// XAgentsCore is Core's addition: whether the Session can take a
	// new Turn.
	XAgentsCore SessionCoreJSON `json:"x_agents_core"`
}

// SessionCoreJSON is a Session's recoverability (core.SessionState):
// after a Core restart cut a Turn short before its native session ID was
// recorded, the next Turn needs native_session_recovery; when no device of
// the pool (none reconnecting) declares it for the kind, the Session is
// not usable and a message event is refused 409 session_unrecoverable.
type SessionCoreJSON struct {
	RecoveryRequired bool    `json:"recovery_required"`
	Usable           bool    `json:"usable"`
	UnusableReason   *string `json:"unusable_reason"`
}

// SessionAgentJSON is the configuration the Session froze at creation;
// ID is the Agent it came from (null for an inline agent).
type SessionAgentJSON struct {
	ID           *string          `json:"id"`
	Name         *string          `json:"name"`
	Instructions *string          `json:"instructions"`
	Model        string           `json:"model"`
	MultiAgent   MultiAgentJSON   `json:"multi_agent"`
	Reasoning    ReasoningJSON    `json:"reasoning"`
	ServiceTier  string           `json:"service_tier"`
	Text         TextJSON         `json:"text"`
	Tools        []AgentToolJSON  `json:"tools"`
	Compaction   CompactionJSON   `json:"compaction"`
	Experimental ExperimentalJSON `json:"experimental"`
	XAgentsCore  XAgentsCoreJSON  `json:"x_agents_core"`
}

// RequiredAction is a pending function call (type function_call) or
// permission request (type mcp_approval_request) of the running Turn.
type RequiredAction struct {
	Type      string           `json:"type"`
	TurnID    string           `json:"turn_id"`
	CallID    string           `json:"call_id,omitempty"`
	Name      string           `json:"name,omitempty"`
	Arguments json.RawMessage  `json:"arguments,omitempty"`
	RequestID string           `json:"request_id,omitempty"`
	Request   *ApprovalRequest `json:"request,omitempty"`
}

// ApprovalRequest describes a permission request: the tool (name), its
// title and detail (message) and its payload (arguments).
type ApprovalRequest struct {
	Type        string          `json:"type"`
	Name        *string         `json:"name"`
	Message     string          `json:"message"`
	Arguments   json.RawMessage `json:"arguments"`
	ServerLabel string          `json:"server_label"`
}

// UsageJSON is the SDK's TokenUsage.
type UsageJSON struct {
	InputTokens        int64 `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int64 `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int64 `json:"total_tokens"`
}

func usageJSON(u *wire.Usage) *UsageJSON {
	var out UsageJSON
	switch {
	case u == nil:
		return nil
	case u.Tokens != nil:
		t := u.Tokens
		out.InputTokens, out.OutputTokens, out.TotalTokens = t.InputTokens, t.OutputTokens, t.TotalTokens
		out.InputTokensDetails.CachedTokens = t.CachedInputTokens
		out.OutputTokensDetails.ReasoningTokens = t.ReasoningOutputTokens
	case u.InputTokens != nil || u.OutputTokens != nil:
		if u.InputTokens != nil {
			out.InputTokens = int64(*u.InputTokens)
		}
		if u.OutputTokens != nil {
			out.OutputTokens = int64(*u.OutputTokens)
		}
		out.TotalTokens = out.InputTokens + out.OutputTokens
	default:
		return nil // a usage report without token counts
	}
	return &out
}

// sessionRecord is the shell record of a Session.
type sessionRecord struct {
	AgentID     *string           `json:"agent_id"`
	Agent       AgentObject       `json:"agent"`
	Environment json.RawMessage   `json:"environment"`
	Metadata    map[string]string `json:"metadata"`
	CreatedAt   int64             `json:"created_at"`
	VaultIDs    []string          `json:"vault_ids"`
	// Deleted: the Session was deleted from the Agents API (its machine
	// history stays).
	Deleted bool `json:"deleted,omitempty"`
}

// sessionState is what the machine knows of a Session, read on the loop:
// some of its Turns (readSession says which) and how many it has.
type sessionState struct {
	turns []core.TurnView // in submission order
	recs  []core.TurnRecord
	count int
	// lastActive is the latest creation time /v1 recorded for the Turns
	// read (0 when none was recorded).
	lastActive int64
	// recovery is the machine's judgement of the Session's next Turn.
	recovery core.SessionState
}

// active is the first Turn that is not terminal, if any.
func (st sessionState) active() (core.TurnView, bool) {
	for _, t := range st.turns {
		if !t.State.Terminal() {
			return t, true
		}
	}
	return core.TurnView{}, false
}

// last is the Session's last Turn (every read includes it).
func (st sessionState) last() (core.TurnRecord, bool) {
	if len(st.recs) == 0 {
		return core.TurnRecord{}, false
	}
	return st.recs[len(st.recs)-1], true
}

func (a *API) sessionState(ctx context.Context, sid string, which int) (sessionState, error) {
	var st sessionState
	var ok bool
	if err := a.s.Query(ctx, func(v server.View) { st, ok = a.readSession(v, sid, which) }); err != nil {
		return st, err
	}
	if !ok {
		return st, notFound(CodeUnknownSessionV1, "session_id", "no session %q", sid)
	}
	if d, err := a.sessionDeleted(ctx, sid, true); err != nil || d {
		if err == nil {
			err = notFound(CodeUnknownSessionV1, "session_id", "no session %q", sid)
		}
		return st, err
	}
	if which == turnsOpen {
		for _, rec := range st.recs {
			if at, ok := a.turnCreated(ctx, rec.ID); ok {
				st.lastActive = max(st.lastActive, at)
			}
		}
	}
	return st, nil
}

// kindTurn is the resource kind of a Turn's shell record: when /v1
// submitted it (Core's records keep no clock).
const kindTurn = "turn"

type turnRecordJSON struct {
	Session   string `json:"session"`
	CreatedAt int64  `json:"created_at"`
}

// turnCreated is when /v1 submitted Turn tid; ok is false for a Turn
// submitted otherwise (or whose record could not be read). The latest
// Turns' times are answered from memory (turnTimes).
func (a *API) turnCreated(ctx context.Context, tid string) (int64, bool) {
	if at, ok := a.turnTimes.get(tid); ok {
		return at, true
	}
	doc, ok, err := a.res.GetResource(ctx, kindTurn, tid)
	var tr turnRecordJSON
	if err != nil || !ok || json.Unmarshal(doc, &tr) != nil {
		return 0, false
	}
	a.turnTimes.put(tid, tr.CreatedAt)
	return tr.CreatedAt, true
}

// requiredActions are the pending function calls and permission requests
// of the Session's active Turn.
func requiredActions(st sessionState) []RequiredAction {
	out := []RequiredAction{}
	for _, rec := range st.recs {
		if rec.State.Terminal() {
			continue
		}
		for _, ix := range rec.Interactions {
			if ix.RunID != rec.RunID || (ix.Status != core.InteractionPending && ix.Status != core.InteractionRefused) {
				continue
			}
			if ra, ok := requiredAction(rec.ID, ix); ok {
				out = append(out, ra)
			}
		}
	}
	return out
}

func requiredAction(tid string, ix core.InteractionRecord) (RequiredAction, bool) {
	switch ix.Kind {
	case core.InteractionFunction:
		return RequiredAction{Type: "function_call", TurnID: tid, CallID: ix.ID, Name: ix.Name, Arguments: rawOr(ix.Arguments, `{}`)}, true
	case core.InteractionPermission:
		msg := ix.Title
		if ix.Detail != "" {
			msg += ": " + ix.Detail
		}
		name := ix.Tool
		return RequiredAction{Type: "mcp_approval_request", TurnID: tid, RequestID: ix.ID,
			Request: &ApprovalRequest{Type: "mcp_tool_call", Name: &name, Message: msg, Arguments: rawOr(ix.Payload, `{}`)}}, true
	}
	return RequiredAction{}, false // user choices have no Agents API form
}

func rawOr(b []byte, def string) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage(def)
	}
	return json.RawMessage(b)
}

// sessionObject builds the answer from the shell record and the
// machine's state. Status: in_progress while a Turn is not terminal,
// requires_action when it waits on a function result or a permission,
// otherwise idle (a failed Turn fails only itself).
func sessionObject(id string, rec sessionRecord, st sessionState) SessionObject {
	ag := rec.Agent
	s := SessionObject{ID: id, Object: "agent.session", CreatedAt: rec.CreatedAt, LastActiveAt: rec.CreatedAt,
		Environment: rec.Environment, Metadata: rec.Metadata, RequiredActions: requiredActions(st), Status: "idle",
		VaultIDs: rec.VaultIDs,
		Agent: SessionAgentJSON{ID: rec.AgentID, Name: ag.Name, Instructions: ag.Instructions, Model: ag.Model,
			MultiAgent: ag.MultiAgent, Reasoning: ag.Reasoning, ServiceTier: ag.ServiceTier, Text: ag.Text, Tools: ag.Tools,
			Compaction: ag.Compaction, Experimental: ag.Experimental, XAgentsCore: ag.XAgentsCore}}
	if s.Metadata == nil {
		s.Metadata = map[string]string{}
	}
	if s.VaultIDs == nil {
		s.VaultIDs = []string{}
	}
	s.XAgentsCore = SessionCoreJSON{RecoveryRequired: st.recovery.RecoveryRequired, Usable: st.recovery.Unrecoverable == ""}
	if st.recovery.Unrecoverable != "" {
		s.XAgentsCore.UnusableReason = &st.recovery.Unrecoverable
	}
	s.LastActiveAt = max(s.LastActiveAt, st.lastActive)
	if _, ok := st.active(); ok {
		s.Status = "in_progress"
		if len(s.RequiredActions) > 0 {
			s.Status = "requires_action"
		}
	}
	return s
}

// sessionCreateParams is the body of POST /v1/agents/sessions.
type sessionCreateParams struct {
	Environment        json.RawMessage `json:"environment"`
	Agent              json.RawMessage `json:"agent"`
	AgentID            *string         `json:"agent_id"`
	Input              json.RawMessage `json:"input"`
	Metadata           json.RawMessage `json:"metadata"`
	VaultIDs           []string        `json:"vault_ids"`
	Stream             *bool           `json:"stream"`
	StreamOptions      json.RawMessage `json:"stream_options"`
	PromptCacheOptions json.RawMessage `json:"prompt_cache_options"`
	Review             *string         `json:"review"`
}

// inlineAgentParams is an inline agent: an Agent's members without name
// and metadata.
type inlineAgentParams struct {
	Model        json.RawMessage `json:"model"`
	Instructions json.RawMessage `json:"instructions"`
	MultiAgent   json.RawMessage `json:"multi_agent"`
	Reasoning    json.RawMessage `json:"reasoning"`
	ServiceTier  json.RawMessage `json:"service_tier"`
	Text         json.RawMessage `json:"text"`
	Tools        json.RawMessage `json:"tools"`
	Compaction   json.RawMessage `json:"compaction"`
	Experimental json.RawMessage `json:"experimental"`
	XAgentsCore  json.RawMessage `json:"x_agents_core"`
}

// messageParams reads a message input: a string, or messages
// {role: user, content: [input_text | input_image], type?: message}.
func messageParams(raw json.RawMessage, param string) (wire.MessageInput, error) {
	// An array (the usual form) never decodes as a string: only other
	// values try the string form first.
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '[' {
		var text string
		if err := json.Unmarshal(raw, &text); err == nil {
			if text == "" {
				return nil, badParam(CodeInvalidInput, param, "%s must not be empty", param)
			}
			return wire.TextInput(text), nil
		}
	}
	msgs, ok := decodeMessagesPlain(raw)
	if !ok {
		msgs = nil
		if err := sub(raw, param, &msgs); err != nil {
			return nil, err
		}
	}
	if len(msgs) == 0 {
		return nil, badParam(CodeInvalidInput, param, "%s must hold at least one message", param)
	}
	in := wire.MessageInput{}
	for i, m := range msgs {
		p := func() string { return param + "[" + strconv.Itoa(i) + "]" } // named only in a refusal
		if m.Role != "user" || (m.Type != nil && *m.Type != "message") {
			return nil, badParam(CodeInvalidInput, p(), "a message has role user (and type message)")
		}
		if len(m.Content) == 0 {
			return nil, badParam(CodeInvalidInput, p()+".content", "a message needs content")
		}
		for j, c := range m.Content {
			if err := c.Validate(); err != nil {
				return nil, badParam(CodeInvalidInput, fmt.Sprintf("%s.content[%d]", p(), j), "%v", err)
			}
		}
		in = append(in, wire.InputMessage{Content: m.Content})
	}
	return in, nil
}

func (a *API) createSessionV1(w http.ResponseWriter, r *http.Request) {
	var p sessionCreateParams
	if _, err := readV1(w, r, &p, false); err != nil {
		a.failV1Err(w, err)
		return
	}
	rec, cfg, bind, input, err := a.sessionFromParams(r.Context(), p)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	rep, err := a.s.Call(r.Context(), server.Request{Event: func(c core.CallID) core.Event { return core.CreateSession{Call: c, Agent: cfg} }})
	if err == nil {
		err = rep.Result.Err
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	sid := rep.Result.Value.(core.SessionCreated).Session
	if err := a.recordBinding(r.Context(), bind); err != nil {
		a.failV1Err(w, err)
		return
	}
	if err := a.putSession(r.Context(), sid, rec); err != nil {
		a.failV1Err(w, err)
		return
	}
	tid := ""
	if input != nil {
		rc, err := a.startTurn(r.Context(), sid, input, "")
		if err != nil {
			a.failV1Err(w, err)
			return
		}
		tid = rc.TurnID
	}
	if p.Stream != nil && *p.Stream {
		a.streamCreated(w, r, sid, tid)
		return
	}
	a.answerSession(w, r, sid)
}

// streamCreated answers a create with stream: true: agent.session.created,
// then the first Turn's events up to the Session's idle (at once without
// input), then the stream ends.
func (a *API) streamCreated(w http.ResponseWriter, r *http.Request, sid, tid string) {
	srec, st, err := a.session(r.Context(), sid)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	first := []sseEvent{{id: sid + ":created", typ: EvSessionCreated, data: sessionEvent(sessionObject(sid, srec, st))}}
	if tid == "" {
		first = append(first, sseEvent{id: sid + ":idle", typ: EvSessionIdle, data: sessionEvent(sessionObject(sid, srec, st))})
	}
	a.streamEvents(w, r, sid, srec, streamCursor{turn: tid}, true, first, true)
}

// sessionFromParams checks a create body and builds the shell record,
// the machine configuration and the first input (nil for none).
func (a *API) sessionFromParams(ctx context.Context, p sessionCreateParams) (sessionRecord, core.AgentConfig, EnvironmentBinding, wire.MessageInput, error) {
	var rec sessionRecord
	var zero core.AgentConfig
	var nob EnvironmentBinding
	switch {
	case p.StreamOptions != nil && (p.Stream == nil || !*p.Stream):
		return rec, zero, nob, nil, badParam(CodeInvalidValue, "stream_options", "stream_options needs stream: true")
	case p.PromptCacheOptions != nil && !isNull(p.PromptCacheOptions):
		return rec, zero, nob, nil, badParam(CodeNotSupported, "prompt_cache_options", "Core sets no prompt cache options")
	case p.Review != nil && *p.Review != "none":
		return rec, zero, nob, nil, badParam(CodeNotSupported, "review", "Core has no automatic review")
	case p.Environment == nil || isNull(p.Environment):
		return rec, zero, nob, nil, badParam(CodeInvalidValue, "environment", "environment is required")
	case (p.Agent == nil || isNull(p.Agent)) == (p.AgentID == nil):
		return rec, zero, nob, nil, badParam(CodeInvalidValue, "agent", "give exactly one of agent and agent_id")
	}
	if p.AgentID != nil {
		ar, err := a.agent(ctx, *p.AgentID, "agent_id")
		if err != nil {
			return rec, zero, nob, nil, err
		}
		rec.Agent, rec.AgentID = ar.Agent, p.AgentID
	} else {
		var ip inlineAgentParams
		if err := sub(p.Agent, "agent", &ip); err != nil {
			return rec, zero, nob, nil, err
		}
		rec.Agent = newAgentObject("", 0)
		key, err := agentParams{Model: ip.Model, Instructions: ip.Instructions, MultiAgent: ip.MultiAgent, Reasoning: ip.Reasoning,
			ServiceTier: ip.ServiceTier, Text: ip.Text, Tools: ip.Tools, Compaction: ip.Compaction, Experimental: ip.Experimental,
			XAgentsCore: ip.XAgentsCore}.apply(&rec.Agent, true)
		if err != nil {
			return rec, zero, nob, nil, prefixParam(err, "agent.")
		}
		if key != nil {
			// TODO(vault): an inline agent's provider key is a Vault
			// credential of the Session; until then it is refused.
			return rec, zero, nob, nil, badParam(CodeNotSupported, "agent.x_agents_core.model_provider.api_key",
				"an inline agent takes no api_key: create an Agent, or reference a vault credential")
		}
	}
	if p.StreamOptions != nil && !isNull(p.StreamOptions) {
		var so struct {
			IncludeObfuscation *bool `json:"include_obfuscation"` // accepted: Core sends no obfuscation
		}
		if err := sub(p.StreamOptions, "stream_options", &so); err != nil {
			return rec, zero, nob, nil, err
		}
	}
	if len(p.VaultIDs) > 10 {
		return rec, zero, nob, nil, badParam(CodeInvalidValue, "vault_ids", "a Session references at most 10 vaults")
	}
	if err := a.vaults.CheckVaults(ctx, "vault_ids", p.VaultIDs); err != nil {
		return rec, zero, nob, nil, err
	}
	for i, t := range rec.Agent.Tools {
		if t.Type == "mcp" && t.CredentialID != nil {
			if err := a.vaults.CredentialInVaults(ctx, fmt.Sprintf("agent.tools[%d].credential_id", i), *t.CredentialID, p.VaultIDs); err != nil {
				return rec, zero, nob, nil, err
			}
		}
	}
	b, err := a.bindEnvironment(ctx, p.Environment)
	if err != nil {
		return rec, zero, nob, nil, err
	}
	if rec.Metadata, err = checkMetadata(p.Metadata); err != nil {
		return rec, zero, nob, nil, err
	}
	var input wire.MessageInput
	if p.Input != nil && !isNull(p.Input) {
		if input, err = messageParams(p.Input, "input"); err != nil {
			return rec, zero, nob, nil, err
		}
	}
	rec.VaultIDs = slices.Clone(p.VaultIDs)
	rec.Environment = b.Answer
	rec.CreatedAt = time.Now().Unix()
	cfg := rec.Agent.agentConfig(b.Kind, b.CoreID)
	cfg.Definition = b.Definition
	return rec, cfg, b, input, nil
}

// prefixParam puts prefix before the param a refusal names.
func prefixParam(err error, prefix string) error {
	if vb, ok := err.(*v1Bad); ok && vb.param != "" {
		c := *vb
		c.param = prefix + c.param
		return &c
	}
	return err
}

func (a *API) putSession(ctx context.Context, sid string, rec sessionRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return a.res.PutResource(ctx, kindSession, sid, b)
}

// session reads a Session's shell record; a Session the machine has and
// the shell lacks (created through the machine API, or a crash between
// the two writes) gets a record made of what the machine froze.
func (a *API) session(ctx context.Context, sid string) (sessionRecord, sessionState, error) {
	st, err := a.sessionState(ctx, sid, turnsOpen)
	if err != nil {
		return sessionRecord{}, st, err
	}
	doc, ok, err := a.res.GetResource(ctx, kindSession, sid)
	if err != nil {
		return sessionRecord{}, st, err
	}
	var rec sessionRecord
	if ok {
		if err := json.Unmarshal(doc, &rec); err != nil {
			return sessionRecord{}, st, fmt.Errorf("session %q: stored record: %w", sid, err)
		}
		return rec, st, nil
	}
	var mrec core.SessionRecord
	if err := a.s.Query(ctx, func(v server.View) { mrec, _ = v.Backend().Session(sid) }); err != nil {
		return rec, st, err
	}
	rec = sessionRecord{Agent: frozenAgent(mrec.Agent), Environment: environmentEcho(mrec.Agent)}
	return rec, st, nil
}

// frozenAgent describes a configuration the machine froze.
func frozenAgent(c core.AgentConfig) AgentObject {
	ag := newAgentObject("", 0)
	ag.Model, ag.Text.Verbosity, ag.MultiAgent.Enabled = c.Model, c.TextVerbosity, c.MultiAgent
	if c.SystemPrompt != "" {
		ag.Instructions = &c.SystemPrompt
	}
	ag.XAgentsCore.Harness, ag.XAgentsCore.HarnessConfig = c.Kind, c.HarnessConfig
	if c.OutputSchema != nil {
		ag.Text.Format = TextFormatJSON{Type: "json_schema", Schema: c.OutputSchema}
	}
	for _, ft := range c.FunctionTools {
		ag.Tools = append(ag.Tools, AgentToolJSON{Type: "function", Name: ft.Name, Description: ptr(ft.Description),
			Parameters: rawOr(ft.Parameters, `{}`), DeferLoading: ptr(ft.DeferLoading)})
	}
	return ag
}

func (a *API) answerSession(w http.ResponseWriter, r *http.Request, sid string) {
	rec, st, err := a.session(r.Context(), sid)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, sessionObject(sid, rec, st))
}

func (a *API) getSessionV1(w http.ResponseWriter, r *http.Request) {
	a.answerSession(w, r, r.PathValue("session"))
}

func (a *API) updateSessionV1(w http.ResponseWriter, r *http.Request) {
	var p struct {
		Metadata           json.RawMessage `json:"metadata"`
		Agent              json.RawMessage `json:"agent"`
		PromptCacheOptions json.RawMessage `json:"prompt_cache_options"`
		Review             *string         `json:"review"`
	}
	if _, err := readV1(w, r, &p, true); err != nil {
		a.failV1Err(w, err)
		return
	}
	sid := r.PathValue("session")
	var err error
	switch {
	case p.Agent != nil:
		err = badParam(CodeNotSupported, "agent", "a Session keeps the configuration it froze at creation")
	case p.PromptCacheOptions != nil && !isNull(p.PromptCacheOptions):
		err = badParam(CodeNotSupported, "prompt_cache_options", "Core sets no prompt cache options")
	case p.Review != nil && *p.Review != "none":
		err = badParam(CodeNotSupported, "review", "Core has no automatic review")
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	rec, _, err := a.session(r.Context(), sid)
	if err == nil && p.Metadata != nil {
		if rec.Metadata, err = checkMetadata(p.Metadata); err == nil {
			err = a.putSession(r.Context(), sid, rec)
		}
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	a.answerSession(w, r, sid)
}

// listSessionsV1 pages the machine's Sessions (newest first by default);
// agent_id keeps those created from one Agent.
func (a *API) listSessionsV1(w http.ResponseWriter, r *http.Request) {
	lp, err := listParams(r, true, "agent_id")
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	agentID := r.URL.Query().Get("agent_id")
	var ids []string
	if err := a.s.Query(r.Context(), func(v server.View) {
		for _, s := range v.Backend().Sessions() {
			ids = append(ids, s.ID)
		}
	}); err != nil {
		a.failV1Err(w, err)
		return
	}
	if lp.Desc {
		slices.Reverse(ids)
	}
	if lp.After != "" {
		i := slices.Index(ids, lp.After)
		if i < 0 {
			a.failV1Err(w, badParam(CodeBadCursor, "after", "after names no session"))
			return
		}
		ids = ids[i+1:]
	}
	var items []any
	var got []string
	more := false
	for _, sid := range ids {
		if d, err := a.sessionDeleted(r.Context(), sid, true); err != nil || d {
			if err != nil {
				a.failV1Err(w, err)
				return
			}
			continue // a deleted Session is not listed
		}
		rec, st, err := a.session(r.Context(), sid)
		if err != nil {
			a.failV1Err(w, err)
			return
		}
		if agentID != "" && (rec.AgentID == nil || *rec.AgentID != agentID) {
			continue
		}
		if len(items) == lp.Limit {
			more = true
			break
		}
		items, got = append(items, sessionObject(sid, rec, st)), append(got, sid)
	}
	writeJSON(w, http.StatusOK, newPage(items, got, more))
}

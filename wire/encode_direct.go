package wire

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// directPayload is a payload that renders its own JSON, without
// reflection: appendJSON appends exactly the bytes json.Marshal renders
// for the payload, or reports false when it cannot promise that (a value
// json.Marshal would refuse or render in a way the direct path does not
// cover), and then json.Marshal renders it. The most frequent frames of a
// simulated seed take this path; TestDirectEncodingMatchesMarshal and
// TestDirectEncodingMatchesMarshalProperty hold it to json.Marshal.
type directPayload interface {
	appendJSON(b []byte) ([]byte, bool)
}

// appendPayload appends a payload's JSON to b as json.Marshal renders it.
func appendPayload(b []byte, p Payload) ([]byte, error) {
	if d, ok := p.(directPayload); ok {
		if out, ok := d.appendJSON(b); ok {
			return out, nil
		}
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return b, err
	}
	return append(slices.Grow(b, len(raw)+64), raw...), nil
}

const jsonHex = "0123456789abcdef"

// AppendJSONString appends s as json.Marshal renders a string (HTML
// escaping on): the shells' hand-written encoders use it to produce the
// same bytes as encoding/json.
func AppendJSONString(b []byte, s string) []byte { return appendMarshalString(b, s) }

// appendMarshalString appends s as encoding/json renders a string with
// HTML escaping (json.Marshal's default): the short escapes for \b \f \n
// \r \t, \u00XX for other control bytes and < > &, \ufffd for each byte
// of invalid UTF-8, and \u2028 and \u2029 escaped.
func appendMarshalString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', jsonHex[c>>4], jsonHex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', jsonHex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendRawJSON appends raw JSON as json.Marshal renders a
// json.RawMessage: compacted, with < > & U+2028 U+2029 escaped. ok is
// false for text json.Marshal refuses (empty or invalid).
func appendRawJSON(b []byte, m json.RawMessage) ([]byte, bool) {
	if len(m) == 0 || !json.Valid(m) {
		return b, false
	}
	if compactPlain(m) {
		return append(b, m...), true
	}
	var compact, escaped bytes.Buffer
	if err := json.Compact(&compact, m); err != nil {
		return b, false
	}
	json.HTMLEscape(&escaped, compact.Bytes())
	return append(b, escaped.Bytes()...), true
}

// compactPlain reports whether valid JSON m is already what json.Marshal
// renders for it: no whitespace outside strings, no < > & and no U+2028
// or U+2029 anywhere.
func compactPlain(m []byte) bool {
	inString, escaped := false, false
	for i, c := range m {
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(m) && m[i+1] == 0x80 && (m[i+2] == 0xA8 || m[i+2] == 0xA9):
			return false
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return true
}

// jsonObject appends members of one JSON object: the first member opens
// it, close ends it ("{}" when no member was written).
type jsonObject struct {
	b    []byte
	open bool
}

// next opens the object or separates the next member.
func (o *jsonObject) next() {
	if o.open {
		o.b = append(o.b, ',')
	} else {
		o.b = append(o.b, '{')
		o.open = true
	}
}

// key writes a member name that needs no escaping.
func (o *jsonObject) key(name string) {
	o.next()
	o.b = append(o.b, '"')
	o.b = append(o.b, name...)
	o.b = append(o.b, '"', ':')
}

func (o *jsonObject) str(name, v string) {
	o.key(name)
	o.b = appendMarshalString(o.b, v)
}

func (o *jsonObject) strOmit(name, v string) {
	if v != "" {
		o.str(name, v)
	}
}

func (o *jsonObject) boolean(name string, v bool) {
	o.key(name)
	o.b = strconv.AppendBool(o.b, v)
}

func (o *jsonObject) boolOmit(name string, v bool) {
	if v {
		o.boolean(name, v)
	}
}

func (o *jsonObject) int(name string, v int64) {
	o.key(name)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *jsonObject) intOmit(name string, v int64) {
	if v != 0 {
		o.int(name, v)
	}
}

func (o *jsonObject) uint(name string, v uint64) {
	o.key(name)
	o.b = strconv.AppendUint(o.b, v, 10)
}

// rawOmit writes a json.RawMessage member with omitempty; ok is false
// when json.Marshal would refuse it.
func (o *jsonObject) rawOmit(name string, v json.RawMessage) bool {
	if len(v) == 0 {
		return true
	}
	o.key(name)
	var ok bool
	o.b, ok = appendRawJSON(o.b, v)
	return ok
}

func (o *jsonObject) close() []byte {
	if !o.open {
		return append(o.b, '{', '}')
	}
	return append(o.b, '}')
}

func appendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMarshalString(b, s)
	}
	return append(b, ']')
}

func (p PreparationStatus) appendJSON(b []byte) ([]byte, bool) {
	o := jsonObject{b: b}
	o.strOmit("executor_id", p.ExecutorID)
	o.boolOmit("reused", p.Reused)
	o.strOmit("handle", p.Handle)
	o.uint("revision", p.Revision)
	o.str("state", p.State)
	o.intOmit("expires_at", p.ExpiresAt)
	o.strOmit("run_id", p.RunID)
	o.strOmit("error_code", p.ErrorCode)
	o.strOmit("operation", p.Operation)
	return o.close(), true
}

func (p Delta) appendJSON(b []byte) ([]byte, bool) {
	o := jsonObject{b: b}
	o.strOmit("item_id", p.ItemID)
	o.str("delta", p.Delta)
	o.uint("sequence", p.Sequence)
	return o.close(), true
}

func (p PromptSteerAck) appendJSON(b []byte) ([]byte, bool) {
	o := jsonObject{b: b}
	o.str("input_id", p.InputID)
	o.boolean("accepted", p.Accepted)
	o.boolOmit("written", p.Written)
	o.strOmit("error_code", p.ErrorCode)
	o.strOmit("error", p.Error)
	return o.close(), true
}

func (p InteractionDecisionAck) appendJSON(b []byte) ([]byte, bool) {
	if p.Outcome != nil {
		return b, false
	}
	o := jsonObject{b: b}
	o.str("delivery_id", p.DeliveryID)
	o.boolean("applied", p.Applied)
	o.strOmit("error_code", p.ErrorCode)
	o.strOmit("error", p.Error)
	return o.close(), true
}

func (p WorkspaceRead) appendJSON(b []byte) ([]byte, bool) {
	o := jsonObject{b: b}
	o.strOmit("handle", p.Handle)
	o.strOmit("run_id", p.RunID)
	o.str("environment_id", p.EnvironmentID)
	o.str("path", p.Path)
	o.int("max_bytes", int64(p.MaxBytes))
	o.strOmit("operation", p.Operation)
	o.intOmit("max_entries", int64(p.MaxEntries))
	return o.close(), true
}

func (p ExecutionPrepare) appendJSON(b []byte) ([]byte, bool) {
	o := jsonObject{b: b}
	o.str("session_id", p.SessionID)
	o.key("configuration")
	var ok bool
	if o.b, ok = p.Configuration.appendJSON(o.b); !ok {
		return b, false
	}
	return o.close(), true
}

func (c *ExecutionConfiguration) appendJSON(b []byte) ([]byte, bool) {
	if len(c.Input) > 0 {
		return b, false // rendered by json.Marshal
	}
	o := jsonObject{b: b}
	o.str("agent_kind", c.AgentKind)
	o.str("conversation_id", c.ConversationID)
	o.str("run_id", c.RunID)
	if c.MaxConcurrentSubagents != nil {
		o.int("max_concurrent_subagents", int64(*c.MaxConcurrentSubagents))
	}
	if len(c.AgentOptions) > 0 {
		o.key("agent_options")
		keys := make([]string, 0, len(c.AgentOptions))
		for k := range c.AgentOptions {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		opts := jsonObject{b: o.b}
		for _, k := range keys {
			opts.next()
			opts.b = appendMarshalString(opts.b, k)
			opts.b = append(opts.b, ':')
			var ok bool
			if opts.b, ok = appendRawJSON(opts.b, c.AgentOptions[k]); !ok {
				return b, false
			}
		}
		o.b = opts.close()
	}
	if ec := c.ExecutionControls; ec != nil {
		o.key("execution_controls")
		e := jsonObject{b: o.b}
		e.str("web_search", ec.WebSearch)
		e.str("text_verbosity", ec.TextVerbosity)
		e.boolOmit("disable_programmatic_tool_calling", ec.DisableProgrammaticToolCalling)
		if of := ec.OutputFormat; of != nil {
			e.key("output_format")
			f := jsonObject{b: e.b}
			f.str("type", of.Type)
			if !f.rawOmit("schema", of.Schema) {
				return b, false
			}
			e.b = f.close()
		}
		o.b = e.close()
	}
	if c.MCPHTTPServers != nil {
		o.key("mcp_http_servers")
		servers := *c.MCPHTTPServers
		if servers == nil {
			o.b = append(o.b, "null"...)
		} else {
			o.b = append(o.b, '[')
			for i, s := range servers {
				if i > 0 {
					o.b = append(o.b, ',')
				}
				m := jsonObject{b: o.b}
				m.str("connection_origin", s.ConnectionOrigin)
				m.strOmit("server_label", s.ServerLabel)
				m.strOmit("server_url", s.ServerURL)
				m.key("allowed_tools")
				if s.AllowedTools == nil {
					m.b = append(m.b, "null"...)
				} else {
					m.b = appendStrings(m.b, *s.AllowedTools)
				}
				m.boolOmit("required", s.Required)
				m.strOmit("bearer_token", s.BearerToken)
				o.b = m.close()
			}
			o.b = append(o.b, ']')
		}
	}
	if le := c.LocalEnvironment; le != nil {
		o.key("local_environment")
		e := jsonObject{b: o.b}
		e.str("id", le.ID)
		e.strOmit("workspace_directory", le.WorkspaceDirectory)
		if !e.rawOmit("capability_sources", le.CapabilitySources) {
			return b, false
		}
		e.boolOmit("capabilities", le.Capabilities)
		e.boolOmit("tool_environment", le.ToolEnvironment)
		e.boolOmit("system_packages", le.SystemPackages)
		e.strOmit("network_access", le.NetworkAccess)
		if len(le.AllowedDomains) > 0 {
			e.key("allowed_domains")
			e.b = appendStrings(e.b, le.AllowedDomains)
		}
		o.b = e.close()
	}
	o.strOmit("agent_session_id", c.AgentSessionID)
	o.boolOmit("workspace_read_only", c.WorkspaceReadOnly)
	o.strOmit("agent_state_key", c.AgentStateKey)
	o.boolOmit("workspace_authoring", c.WorkspaceAuthoring)
	o.boolOmit("release_on_completion", c.ReleaseOnCompletion)
	o.boolOmit("strict_resume", c.StrictResume)
	o.boolOmit("require_existing_native_session", c.RequireExistingNativeSession)
	o.boolOmit("observe_messages", c.ObserveMessages)
	o.boolOmit("observe_tool_observations", c.ObserveToolObservations)
	o.boolOmit("observe_subagent_identities", c.ObserveSubagentIdentities)
	if len(c.FunctionTools) > 0 {
		o.key("function_tools")
		o.b = append(o.b, '[')
		for i, t := range c.FunctionTools {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			m := jsonObject{b: o.b}
			m.str("name", t.Name)
			m.strOmit("description", t.Description)
			if !m.rawOmit("parameters", t.Parameters) {
				return b, false
			}
			m.boolOmit("defer_loading", t.DeferLoading)
			o.b = m.close()
		}
		o.b = append(o.b, ']')
	}
	o.boolOmit("tool_search", c.ToolSearch)
	o.boolOmit("disable_execution_environment", c.DisableExecutionEnvironment)
	o.boolOmit("disable_subagents", c.DisableSubagents)
	return o.close(), true
}

func (p Heartbeat) appendJSON(b []byte) ([]byte, bool) {
	o := jsonObject{b: b}
	o.int("ts", p.TS)
	o.int("active_requests", int64(p.ActiveRequests))
	o.strOmit("daemon_version", p.DaemonVersion)
	if len(p.SupportedAgentKinds) > 0 {
		o.key("supported_agent_kinds")
		o.b = append(o.b, '[')
		for i := range p.SupportedAgentKinds {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			var ok bool
			if o.b, ok = p.SupportedAgentKinds[i].appendJSON(o.b); !ok {
				return b, false
			}
		}
		o.b = append(o.b, ']')
	}
	return o.close(), true
}

func (k *SupportedAgentKind) appendJSON(b []byte) ([]byte, bool) {
	o := jsonObject{b: b}
	o.str("kind", k.Kind)
	o.boolean("available", k.Available)
	o.strOmit("version", k.Version)
	o.key("capabilities")
	caps := jsonObject{b: o.b}
	for _, f := range k.Capabilities.fieldArray() {
		if !f.Value.Valid() {
			return b, false // json.Marshal names the unspecified decision
		}
		caps.boolean(f.Name, *f.Value == CapabilitySupported)
	}
	o.b = caps.close()
	return o.close(), true
}

func (p PromptSteer) appendJSON(b []byte) ([]byte, bool) {
	o := jsonObject{b: b}
	o.str("input_id", p.InputID)
	o.key("input")
	o.b = p.Input.appendJSON(o.b)
	o.boolOmit("durable_receipt", p.DurableReceipt)
	return o.close(), true
}

func (p ExecutionStart) appendJSON(b []byte) ([]byte, bool) {
	o := jsonObject{b: b}
	o.str("executor_id", p.ExecutorID)
	o.str("handle", p.Handle)
	o.str("run_id", p.RunID)
	o.key("input")
	o.b = p.Input.appendJSON(o.b)
	return o.close(), true
}

// appendJSON renders the messages as json.Marshal does: null for a nil
// list or content, every part's pointers omitted when nil.
func (m MessageInput) appendJSON(b []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, msg := range m {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"content":`...)
		if msg.Content == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for j, part := range msg.Content {
				if j > 0 {
					b = append(b, ',')
				}
				o := jsonObject{b: b}
				o.str("type", part.Type)
				if part.Text != nil {
					o.str("text", *part.Text)
				}
				if part.ImageURL != nil {
					o.str("image_url", *part.ImageURL)
				}
				b = o.close()
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

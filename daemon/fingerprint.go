package daemon

import (
	"slices"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// fpWriter builds a canonical, injective text of a value: every field is
// written with its name and a length-prefixed value, pointers are
// dereferenced and map keys sorted. Two configurations have equal
// fingerprints exactly when their wire-relevant content is equal.
type fpWriter struct{ b strings.Builder }

func (w *fpWriter) str(name, v string) { w.field(name, "", v) }

// field writes `name suffix=len(v):v;` (str, with the name in two parts
// so that present's "name?" needs no concatenation).
func (w *fpWriter) field(name, suffix, v string) {
	if w.b.Cap() == 0 {
		w.b.Grow(512) // a configuration's text is a few hundred bytes
	}
	var n [20]byte
	w.b.WriteString(name)
	w.b.WriteString(suffix)
	w.b.WriteByte('=')
	w.b.Write(strconv.AppendInt(n[:0], int64(len(v)), 10))
	w.b.WriteByte(':')
	w.b.WriteString(v)
	w.b.WriteByte(';')
}

func (w *fpWriter) boolean(name string, v bool) { w.str(name, strconv.FormatBool(v)) }

func (w *fpWriter) num(name string, v int64) {
	var n [20]byte
	w.str(name, string(strconv.AppendInt(n[:0], v, 10)))
}

func (w *fpWriter) present(name string, ok bool) bool {
	w.field(name, "?", strconv.FormatBool(ok))
	return ok
}

func configFingerprint(c wire.ExecutionConfiguration) string {
	var w fpWriter
	w.str("agent_kind", c.AgentKind)
	w.str("conversation_id", c.ConversationID)
	w.str("run_id", c.RunID)
	w.input("input", c.Input)
	if w.present("max_concurrent_subagents", c.MaxConcurrentSubagents != nil) {
		w.num("max_concurrent_subagents", int64(*c.MaxConcurrentSubagents))
	}
	keys := make([]string, 0, len(c.AgentOptions))
	for k := range c.AgentOptions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.num("agent_options", int64(len(keys)))
	for _, k := range keys {
		w.str("key", k)
		w.str("value", string(c.AgentOptions[k]))
	}
	w.controls(c.ExecutionControls)
	w.mcp(c.MCPHTTPServers)
	w.local(c.LocalEnvironment)
	w.str("agent_session_id", c.AgentSessionID)
	w.boolean("workspace_read_only", c.WorkspaceReadOnly)
	w.str("agent_state_key", c.AgentStateKey)
	w.boolean("workspace_authoring", c.WorkspaceAuthoring)
	w.boolean("release_on_completion", c.ReleaseOnCompletion)
	w.boolean("strict_resume", c.StrictResume)
	w.boolean("require_existing_native_session", c.RequireExistingNativeSession)
	w.boolean("observe_messages", c.ObserveMessages)
	w.boolean("observe_tool_observations", c.ObserveToolObservations)
	w.boolean("observe_subagent_identities", c.ObserveSubagentIdentities)
	w.num("function_tools", int64(len(c.FunctionTools)))
	for _, t := range c.FunctionTools {
		w.str("name", t.Name)
		w.str("description", t.Description)
		w.str("parameters", string(t.Parameters))
		w.boolean("defer_loading", t.DeferLoading)
	}
	w.boolean("tool_search", c.ToolSearch)
	w.boolean("disable_execution_environment", c.DisableExecutionEnvironment)
	w.boolean("disable_subagents", c.DisableSubagents)
	return w.b.String()
}

func (w *fpWriter) controls(c *wire.ExecutionControls) {
	if !w.present("execution_controls", c != nil) {
		return
	}
	w.str("web_search", c.WebSearch)
	w.str("text_verbosity", c.TextVerbosity)
	w.boolean("disable_programmatic_tool_calling", c.DisableProgrammaticToolCalling)
	if w.present("output_format", c.OutputFormat != nil) {
		w.str("type", c.OutputFormat.Type)
		w.str("schema", string(c.OutputFormat.Schema))
	}
}

func (w *fpWriter) mcp(s *[]wire.MCPHTTPServer) {
	if !w.present("mcp_http_servers", s != nil) {
		return
	}
	w.num("count", int64(len(*s)))
	for _, m := range *s {
		w.str("connection_origin", m.ConnectionOrigin)
		w.str("server_label", m.ServerLabel)
		w.str("server_url", m.ServerURL)
		if w.present("allowed_tools", m.AllowedTools != nil) {
			w.num("count", int64(len(*m.AllowedTools)))
			for _, t := range *m.AllowedTools {
				w.str("tool", t)
			}
		}
		w.boolean("required", m.Required)
		w.str("bearer_token", m.BearerToken)
	}
}

func (w *fpWriter) local(l *wire.LocalEnvironment) {
	if !w.present("local_environment", l != nil) {
		return
	}
	w.str("id", l.ID)
	w.str("workspace_directory", l.WorkspaceDirectory)
	w.str("capability_sources", string(l.CapabilitySources))
	w.boolean("capabilities", l.Capabilities)
	w.boolean("tool_environment", l.ToolEnvironment)
	w.boolean("system_packages", l.SystemPackages)
	w.str("network_access", l.NetworkAccess)
	w.num("allowed_domains", int64(len(l.AllowedDomains)))
	for _, d := range l.AllowedDomains {
		w.str("domain", d)
	}
}

func (w *fpWriter) input(name string, in wire.MessageInput) {
	w.num(name, int64(len(in)))
	for _, m := range in {
		w.num("parts", int64(len(m.Content)))
		for _, p := range m.Content {
			w.str("type", p.Type)
			if w.present("text", p.Text != nil) {
				w.str("text", *p.Text)
			}
			if w.present("image_url", p.ImageURL != nil) {
				w.str("image_url", *p.ImageURL)
			}
		}
	}
}

// prepareFingerprint identifies an execution_prepare request's content.
func prepareFingerprint(p wire.ExecutionPrepare) string {
	var w fpWriter
	w.str("session_id", p.SessionID)
	w.str("configuration", configFingerprint(p.Configuration))
	return w.b.String()
}

// startFingerprint identifies an execution_start request's content.
func startFingerprint(s wire.ExecutionStart) string {
	var w fpWriter
	w.str("executor_id", s.ExecutorID)
	w.str("handle", s.Handle)
	w.str("run_id", s.RunID)
	w.input("input", s.Input)
	return w.b.String()
}

// steerFingerprint identifies a prompt_steer's content.
func steerFingerprint(s wire.PromptSteer) string {
	var w fpWriter
	w.boolean("durable_receipt", s.DurableReceipt)
	w.input("input", s.Input)
	return w.b.String()
}

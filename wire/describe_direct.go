package wire

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// directDescriber is a payload that writes its own members for Describe,
// without reflection: exactly what describeStruct writes for it (each
// non-zero member as ` name=value`, in declaration order). The most
// frequent frames of a simulated seed take this path;
// TestDirectDescribeMatchesReflection holds it to describeStruct.
type directDescriber interface {
	describeMembers(b *strings.Builder)
}

func describeString(b *strings.Builder, name, v string) {
	if v == "" {
		return
	}
	b.WriteByte(' ')
	b.WriteString(name)
	b.WriteByte('=')
	writeScalar(b, v)
}

func describeBool(b *strings.Builder, name string, v bool) {
	if v {
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteString("=true")
	}
}

func describeInt(b *strings.Builder, name string, v int64) {
	if v != 0 {
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteByte('=')
		var d [20]byte
		b.Write(strconv.AppendInt(d[:0], v, 10))
	}
}

func describeUint(b *strings.Builder, name string, v uint64) {
	if v != 0 {
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteByte('=')
		var d [20]byte
		b.Write(strconv.AppendUint(d[:0], v, 10))
	}
}

func (p PreparationStatus) describeMembers(b *strings.Builder) {
	describeString(b, "executor_id", p.ExecutorID)
	describeBool(b, "reused", p.Reused)
	describeString(b, "handle", p.Handle)
	describeUint(b, "revision", p.Revision)
	describeString(b, "state", p.State)
	describeInt(b, "expires_at", p.ExpiresAt)
	describeString(b, "run_id", p.RunID)
	describeString(b, "error_code", p.ErrorCode)
	describeString(b, "operation", p.Operation)
}

func (p Delta) describeMembers(b *strings.Builder) {
	describeString(b, "item_id", p.ItemID)
	describeString(b, "delta", p.Delta)
	describeUint(b, "sequence", p.Sequence)
}

func (p PromptSteerAck) describeMembers(b *strings.Builder) {
	describeString(b, "input_id", p.InputID)
	describeBool(b, "accepted", p.Accepted)
	describeBool(b, "written", p.Written)
	describeString(b, "error_code", p.ErrorCode)
	describeString(b, "error", p.Error)
}

func (p WorkspaceRead) describeMembers(b *strings.Builder) {
	describeString(b, "handle", p.Handle)
	describeString(b, "run_id", p.RunID)
	describeString(b, "environment_id", p.EnvironmentID)
	describeString(b, "path", p.Path)
	describeInt(b, "max_bytes", int64(p.MaxBytes))
	describeString(b, "operation", p.Operation)
	describeInt(b, "max_entries", int64(p.MaxEntries))
}

// nestedMembers writes the members of a nested struct: the first without
// a leading space, as describeStruct does inside braces.
type nestedMembers struct {
	b     *strings.Builder
	first bool
}

func (n *nestedMembers) name(name string) {
	if !n.first {
		n.b.WriteByte(' ')
	}
	n.first = false
	n.b.WriteString(name)
	n.b.WriteByte('=')
}

func (n *nestedMembers) str(name, v string) {
	if v != "" {
		n.name(name)
		writeScalar(n.b, v)
	}
}

func (n *nestedMembers) boolean(name string, v bool) {
	if v {
		n.name(name)
		n.b.WriteString("true")
	}
}

// size writes a byte or raw JSON member as its size; nil is left out.
func (n *nestedMembers) size(name string, v []byte) {
	if v != nil {
		n.name(name)
		n.b.WriteString("<" + strconv.Itoa(len(v)) + " B>")
	}
}

// describeStrings renders a string list as describeSlice does.
func describeStrings(b *strings.Builder, list []string) {
	const shown = 3
	b.WriteByte('[')
	for i := 0; i < len(list) && i < shown; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeScalar(b, list[i])
	}
	if len(list) > shown {
		b.WriteString(" +" + strconv.Itoa(len(list)-shown))
	}
	b.WriteByte(']')
}

func (p ExecutionPrepare) describeMembers(b *strings.Builder) {
	describeString(b, "session_id", p.SessionID)
	// A zero configuration is left out; one naming its kind is not zero.
	if p.Configuration.AgentKind != "" || !reflect.ValueOf(&p.Configuration).Elem().IsZero() {
		b.WriteString(" configuration={")
		p.Configuration.describeNested(b)
		b.WriteByte('}')
	}
}

func (c *ExecutionConfiguration) describeNested(b *strings.Builder) {
	const shown = 3
	n := nestedMembers{b: b, first: true}
	n.str("agent_kind", c.AgentKind)
	n.str("conversation_id", c.ConversationID)
	n.str("run_id", c.RunID)
	if c.Input != nil {
		n.name("input")
		describeInput(b, c.Input)
	}
	if c.MaxConcurrentSubagents != nil {
		n.name("max_concurrent_subagents")
		b.WriteString(strconv.Itoa(*c.MaxConcurrentSubagents))
	}
	if c.AgentOptions != nil {
		n.name("agent_options")
		keys := make([]string, 0, len(c.AgentOptions))
		for k := range c.AgentOptions {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeScalar(b, k)
		}
		b.WriteByte('}')
	}
	if ec := c.ExecutionControls; ec != nil {
		n.name("execution_controls")
		b.WriteByte('{')
		e := nestedMembers{b: b, first: true}
		e.str("web_search", ec.WebSearch)
		e.str("text_verbosity", ec.TextVerbosity)
		e.boolean("disable_programmatic_tool_calling", ec.DisableProgrammaticToolCalling)
		if of := ec.OutputFormat; of != nil {
			e.name("output_format")
			b.WriteByte('{')
			f := nestedMembers{b: b, first: true}
			f.str("type", of.Type)
			f.size("schema", of.Schema)
			b.WriteByte('}')
		}
		b.WriteByte('}')
	}
	if c.MCPHTTPServers != nil {
		n.name("mcp_http_servers")
		servers := *c.MCPHTTPServers
		b.WriteByte('[')
		for i := 0; i < len(servers) && i < shown; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			s := &servers[i]
			b.WriteByte('{')
			m := nestedMembers{b: b, first: true}
			m.str("connection_origin", s.ConnectionOrigin)
			m.str("server_label", s.ServerLabel)
			m.str("server_url", s.ServerURL)
			if s.AllowedTools != nil {
				m.name("allowed_tools")
				describeStrings(b, *s.AllowedTools)
			}
			m.boolean("required", s.Required)
			if s.BearerToken != "" {
				m.name("bearer_token")
				b.WriteString("<redacted>")
			}
			b.WriteByte('}')
		}
		if len(servers) > shown {
			b.WriteString(" +" + strconv.Itoa(len(servers)-shown))
		}
		b.WriteByte(']')
	}
	if le := c.LocalEnvironment; le != nil {
		n.name("local_environment")
		b.WriteByte('{')
		e := nestedMembers{b: b, first: true}
		e.str("id", le.ID)
		e.str("workspace_directory", le.WorkspaceDirectory)
		e.size("capability_sources", le.CapabilitySources)
		e.boolean("capabilities", le.Capabilities)
		e.boolean("tool_environment", le.ToolEnvironment)
		e.boolean("system_packages", le.SystemPackages)
		e.str("network_access", le.NetworkAccess)
		if le.AllowedDomains != nil {
			e.name("allowed_domains")
			describeStrings(b, le.AllowedDomains)
		}
		b.WriteByte('}')
	}
	n.str("agent_session_id", c.AgentSessionID)
	n.boolean("workspace_read_only", c.WorkspaceReadOnly)
	n.str("agent_state_key", c.AgentStateKey)
	n.boolean("workspace_authoring", c.WorkspaceAuthoring)
	n.boolean("release_on_completion", c.ReleaseOnCompletion)
	n.boolean("strict_resume", c.StrictResume)
	n.boolean("require_existing_native_session", c.RequireExistingNativeSession)
	n.boolean("observe_messages", c.ObserveMessages)
	n.boolean("observe_tool_observations", c.ObserveToolObservations)
	n.boolean("observe_subagent_identities", c.ObserveSubagentIdentities)
	if c.FunctionTools != nil {
		n.name("function_tools")
		b.WriteByte('[')
		for i := 0; i < len(c.FunctionTools) && i < shown; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			t := &c.FunctionTools[i]
			b.WriteByte('{')
			m := nestedMembers{b: b, first: true}
			m.str("name", t.Name)
			m.str("description", t.Description)
			m.size("parameters", t.Parameters)
			m.boolean("defer_loading", t.DeferLoading)
			b.WriteByte('}')
		}
		if len(c.FunctionTools) > shown {
			b.WriteString(" +" + strconv.Itoa(len(c.FunctionTools)-shown))
		}
		b.WriteByte(']')
	}
	n.boolean("tool_search", c.ToolSearch)
	n.boolean("disable_execution_environment", c.DisableExecutionEnvironment)
	n.boolean("disable_subagents", c.DisableSubagents)
}

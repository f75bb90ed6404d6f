package wire

import "encoding/json"

// directDecoder is a payload type that reads its own canonical JSON
// without reflection: decodeDirect accepts only input the one-pass
// decoder accepts with the same result (no whitespace, members in
// declaration order, plain ASCII strings, short integers) and reports
// false for anything else, which the one-pass decoder then reads, with
// every error message. TestDirectDecodeMatchesOnePass holds it to that.
type directDecoder interface {
	decodeDirect(data []byte, pos int) (p Payload, end int, ok bool)
}

// directScan reads canonical JSON tokens; every method reports false
// for anything it does not accept.
type directScan struct {
	d []byte
	i int
}

func (s *directScan) byte(c byte) bool {
	if s.i < len(s.d) && s.d[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plain reads a string of printable ASCII without quote or backslash,
// returning its content.
func (s *directScan) plain() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.d) && plainStringByte[s.d[s.i]] {
		s.i++
	}
	if s.i >= len(s.d) || s.d[s.i] != '"' {
		return nil, false
	}
	s.i++
	return s.d[start : s.i-1], true
}

// name reads a member name and its colon.
func (s *directScan) name() ([]byte, bool) {
	n, ok := s.plain()
	return n, ok && s.byte(':')
}

func (s *directScan) str() (string, bool) {
	b, ok := s.plain()
	return string(b), ok
}

func (s *directScan) boolean() (v, ok bool) {
	switch {
	case len(s.d)-s.i >= 4 && string(s.d[s.i:s.i+4]) == "true":
		s.i += 4
		return true, true
	case len(s.d)-s.i >= 5 && string(s.d[s.i:s.i+5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// digitsMax keeps every accepted integer far inside int64 and uint64.
const digitsMax = 18

// uint reads a non-negative integer without leading zeros, exponent or
// fraction.
func (s *directScan) uint() (uint64, bool) {
	start := s.i
	var n uint64
	for s.i < len(s.d) && s.d[s.i] >= '0' && s.d[s.i] <= '9' {
		n = n*10 + uint64(s.d[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > digitsMax || (digits > 1 && s.d[start] == '0') {
		return 0, false
	}
	if s.i < len(s.d) && (s.d[s.i] == '.' || s.d[s.i] == 'e' || s.d[s.i] == 'E') {
		return 0, false
	}
	return n, true
}

func (s *directScan) int() (int64, bool) {
	neg := s.byte('-')
	n, ok := s.uint()
	if neg {
		return -int64(n), ok
	}
	return int64(n), ok
}

// next ends a member: true with more to come, false at the closing
// brace; ok false for anything else.
func (s *directScan) next() (more, ok bool) {
	switch {
	case s.byte(','):
		return true, true
	case s.byte('}'):
		return false, true
	}
	return false, false
}

func (PreparationStatus) decodeDirect(data []byte, pos int) (Payload, int, bool) {
	s := directScan{d: data, i: pos}
	var p PreparationStatus
	if !s.byte('{') {
		return nil, 0, false
	}
	const (
		executorID = iota
		reused
		handle
		revision
		state
		expiresAt
		runID
		errorCode
		operation
	)
	next, seen := 0, uint16(0)
	for more := true; more; {
		name, ok := s.name()
		if !ok {
			return nil, 0, false
		}
		field := -1
		switch string(name) {
		case "executor_id":
			field = executorID
			p.ExecutorID, ok = s.str()
		case "reused":
			field = reused
			p.Reused, ok = s.boolean()
		case "handle":
			field = handle
			p.Handle, ok = s.str()
		case "revision":
			field = revision
			p.Revision, ok = s.uint()
		case "state":
			field = state
			p.State, ok = s.str()
		case "expires_at":
			field = expiresAt
			p.ExpiresAt, ok = s.int()
		case "run_id":
			field = runID
			p.RunID, ok = s.str()
		case "error_code":
			field = errorCode
			p.ErrorCode, ok = s.str()
		case "operation":
			field = operation
			p.Operation, ok = s.str()
		}
		if field < next || !ok {
			return nil, 0, false
		}
		next, seen = field+1, seen|1<<field
		if more, ok = s.next(); !ok {
			return nil, 0, false
		}
	}
	if seen&(1<<revision) == 0 || seen&(1<<state) == 0 {
		return nil, 0, false // a required member is missing
	}
	return p, s.i, true
}

// raw reads a raw JSON value as the one-pass decoder does (the strict
// scan, then the compact copy json.Marshal would write); object asks for
// an object. A null is left to the one-pass decoder.
func (s *directScan) raw(object bool) (json.RawMessage, bool) {
	if s.i >= len(s.d) || s.d[s.i] == 'n' || (object && s.d[s.i] != '{') {
		return nil, false
	}
	sc := scanner{data: s.d, pos: s.i}
	if sc.skipValue() != nil {
		return nil, false
	}
	out := compactRaw(s.d[s.i:sc.pos])
	s.i = sc.pos
	return out, true
}

// members reads an object's members in declaration order: member is
// called with each name and the index of the member the name is, or
// false; required is the set of indexes that must be present.
func (s *directScan) members(names []string, required uint64, member func(i int) bool) bool {
	if !s.byte('{') {
		return false
	}
	next, seen := 0, uint64(0)
	if s.byte('}') {
		return required == 0
	}
	for more := true; more; {
		name, ok := s.name()
		if !ok {
			return false
		}
		i := next
		for i < len(names) && names[i] != string(name) {
			i++
		}
		if i == len(names) || !member(i) {
			return false
		}
		next, seen = i+1, seen|1<<i
		if more, ok = s.next(); !ok {
			return false
		}
	}
	return seen&required == required
}

var (
	prepareMembers       = []string{"session_id", "configuration"}
	configurationMembers = []string{"agent_kind", "conversation_id", "run_id", "input", "max_concurrent_subagents",
		"agent_options", "execution_controls", "mcp_http_servers", "local_environment", "agent_session_id",
		"workspace_read_only", "agent_state_key", "workspace_authoring", "release_on_completion", "strict_resume",
		"require_existing_native_session", "observe_messages", "observe_tool_observations",
		"observe_subagent_identities", "function_tools", "tool_search", "disable_execution_environment",
		"disable_subagents"}
	controlsMembers     = []string{"web_search", "text_verbosity", "disable_programmatic_tool_calling", "output_format"}
	outputFormatMembers = []string{"type", "schema"}
	environmentMembers  = []string{"id", "workspace_directory", "capability_sources", "capabilities",
		"tool_environment", "system_packages", "network_access", "allowed_domains"}
	functionToolMembers = []string{"name", "description", "parameters", "defer_loading"}
)

func (ExecutionPrepare) decodeDirect(data []byte, pos int) (Payload, int, bool) {
	s := directScan{d: data, i: pos}
	var p ExecutionPrepare
	ok := s.members(prepareMembers, 0b11, func(i int) (ok bool) {
		if i == 0 {
			p.SessionID, ok = s.str()
			return ok
		}
		return s.configuration(&p.Configuration)
	})
	if !ok {
		return nil, 0, false
	}
	return p, s.i, true
}

func (s *directScan) configuration(c *ExecutionConfiguration) bool {
	return s.members(configurationMembers, 0b111, func(i int) (ok bool) {
		switch configurationMembers[i] {
		case "agent_kind":
			c.AgentKind, ok = s.str()
		case "conversation_id":
			c.ConversationID, ok = s.str()
		case "run_id":
			c.RunID, ok = s.str()
		case "max_concurrent_subagents":
			var n int64
			n, ok = s.int()
			c.MaxConcurrentSubagents = new(int(n))
		case "agent_options":
			ok = s.agentOptions(c)
		case "execution_controls":
			c.ExecutionControls = &ExecutionControls{}
			ok = s.controls(c.ExecutionControls)
		case "local_environment":
			c.LocalEnvironment = &LocalEnvironment{}
			ok = s.environment(c.LocalEnvironment)
		case "agent_session_id":
			c.AgentSessionID, ok = s.str()
		case "workspace_read_only":
			c.WorkspaceReadOnly, ok = s.boolean()
		case "agent_state_key":
			c.AgentStateKey, ok = s.str()
		case "workspace_authoring":
			c.WorkspaceAuthoring, ok = s.boolean()
		case "release_on_completion":
			c.ReleaseOnCompletion, ok = s.boolean()
		case "strict_resume":
			c.StrictResume, ok = s.boolean()
		case "require_existing_native_session":
			c.RequireExistingNativeSession, ok = s.boolean()
		case "observe_messages":
			c.ObserveMessages, ok = s.boolean()
		case "observe_tool_observations":
			c.ObserveToolObservations, ok = s.boolean()
		case "observe_subagent_identities":
			c.ObserveSubagentIdentities, ok = s.boolean()
		case "function_tools":
			ok = s.functionTools(c)
		case "tool_search":
			c.ToolSearch, ok = s.boolean()
		case "disable_execution_environment":
			c.DisableExecutionEnvironment, ok = s.boolean()
		case "disable_subagents":
			c.DisableSubagents, ok = s.boolean()
		}
		return ok // input and mcp_http_servers are left to the one-pass decoder
	})
}

// agentOptions reads a non-empty map of distinct plain keys to raw values.
func (s *directScan) agentOptions(c *ExecutionConfiguration) bool {
	if !s.byte('{') || s.byte('}') {
		return false // an explicit empty map is the one-pass decoder's (wire:"emptyabsent")
	}
	c.AgentOptions = map[string]json.RawMessage{}
	for more := true; more; {
		key, ok := s.name()
		if !ok {
			return false
		}
		if _, dup := c.AgentOptions[string(key)]; dup {
			return false
		}
		v, ok := s.raw(false)
		if !ok {
			return false
		}
		c.AgentOptions[string(key)] = v
		if more, ok = s.next(); !ok {
			return false
		}
	}
	return true
}

func (s *directScan) controls(ec *ExecutionControls) bool {
	return s.members(controlsMembers, 0b11, func(i int) (ok bool) {
		switch i {
		case 0:
			ec.WebSearch, ok = s.str()
		case 1:
			ec.TextVerbosity, ok = s.str()
		case 2:
			ec.DisableProgrammaticToolCalling, ok = s.boolean()
		default:
			ec.OutputFormat = &OutputFormat{}
			ok = s.members(outputFormatMembers, 0b1, func(i int) (ok bool) {
				if i == 0 {
					ec.OutputFormat.Type, ok = s.str()
				} else {
					ec.OutputFormat.Schema, ok = s.raw(true)
				}
				return ok
			})
		}
		return ok
	})
}

func (s *directScan) environment(le *LocalEnvironment) bool {
	return s.members(environmentMembers, 0b1, func(i int) (ok bool) {
		switch environmentMembers[i] {
		case "id":
			le.ID, ok = s.str()
		case "workspace_directory":
			le.WorkspaceDirectory, ok = s.str()
		case "capability_sources":
			le.CapabilitySources, ok = s.raw(true)
		case "capabilities":
			le.Capabilities, ok = s.boolean()
		case "tool_environment":
			le.ToolEnvironment, ok = s.boolean()
		case "system_packages":
			le.SystemPackages, ok = s.boolean()
		case "network_access":
			le.NetworkAccess, ok = s.str()
		}
		return ok // allowed_domains is left to the one-pass decoder
	})
}

// functionTools reads a non-empty list of tools.
func (s *directScan) functionTools(c *ExecutionConfiguration) bool {
	if !s.byte('[') || s.byte(']') {
		return false // an explicit empty list is refused by the one-pass decoder
	}
	for more := true; more; {
		var t FunctionTool
		ok := s.members(functionToolMembers, 0b1, func(i int) (ok bool) {
			switch i {
			case 0:
				t.Name, ok = s.str()
			case 1:
				t.Description, ok = s.str()
			case 2:
				t.Parameters, ok = s.raw(true)
			default:
				t.DeferLoading, ok = s.boolean()
			}
			return ok
		})
		if !ok {
			return false
		}
		c.FunctionTools = append(c.FunctionTools, t)
		switch {
		case s.byte(','):
		case s.byte(']'):
			more = false
		default:
			return false
		}
	}
	return true
}

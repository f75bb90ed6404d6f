package wire

// capabilityFields is the number of members of AgentKindCapabilities
// (fieldArray lists them; TestCapabilityFieldsExhaustive holds them to the
// struct).
const capabilityFields = 30

// Fields enumerates every capability member in declaration order. Exhaustive
// tests range over it, so adding a field without a decision breaks them.
func (c *AgentKindCapabilities) Fields() []CapabilityField {
	a := c.fieldArray()
	return a[:]
}

// Lookup returns the decision of the member whose JSON name is name; ok
// is false when the declaration has no such member. Unlike a scan of
// Fields it allocates nothing, so per-frame checks may call it.
func (c *AgentKindCapabilities) Lookup(name string) (s CapabilitySupport, ok bool) {
	for i := range capabilityNames {
		if capabilityNames[i] == name {
			return *c.field(i), true
		}
	}
	return CapabilityUnspecified, false
}

// CapabilityIndex is the index of the member whose JSON name is name in
// Fields' order; ok is false when the declaration has no such member.
func CapabilityIndex(name string) (i int, ok bool) {
	for i := range capabilityNames {
		if capabilityNames[i] == name {
			return i, true
		}
	}
	return -1, false
}

// SupportedSet has bit i set exactly when the i-th member (Fields' order,
// CapabilityIndex) is explicitly supported.
func (c *AgentKindCapabilities) SupportedSet() uint64 {
	var set uint64
	for i := range capabilityFields {
		if c.field(i).IsSupported() {
			set |= 1 << i
		}
	}
	return set
}

// capabilityNames are the members' JSON names in fieldArray's order, so
// that Lookup compares names without building fieldArray.
var capabilityNames = func() (names [capabilityFields]string) {
	var z AgentKindCapabilities
	for i, f := range z.fieldArray() {
		names[i] = f.Name
	}
	return names
}()

// field points at the i-th member of fieldArray
// (TestCapabilityFieldOrder holds the two to the same order).
func (c *AgentKindCapabilities) field(i int) *CapabilitySupport {
	switch i {
	case 0:
		return &c.SubagentObservations
	case 1:
		return &c.Streaming
	case 2:
		return &c.Permissions
	case 3:
		return &c.Usage
	case 4:
		return &c.Resume
	case 5:
		return &c.NativeSessionRecovery
	case 6:
		return &c.WorkspaceAuthoring
	case 7:
		return &c.Steering
	case 8:
		return &c.MessageItems
	case 9:
		return &c.ToolObservations
	case 10:
		return &c.EnvironmentNone
	case 11:
		return &c.LocalEnvironment
	case 12:
		return &c.Preparation
	case 13:
		return &c.WorkspaceReadPreparation
	case 14:
		return &c.WorkspaceOutputExport
	case 15:
		return &c.ProgrammaticToolCallingDisable
	case 16:
		return &c.WebSearchControl
	case 17:
		return &c.ExecutionControls
	case 18:
		return &c.TextVerbosity
	case 19:
		return &c.StructuredOutput
	case 20:
		return &c.ToolSearch
	case 21:
		return &c.MessageImages
	case 22:
		return &c.FunctionResultImages
	case 23:
		return &c.SubagentControl
	case 24:
		return &c.DurableInputReceipts
	case 25:
		return &c.DurableTurns
	case 26:
		return &c.FunctionTools
	case 27:
		return &c.MCPHTTPTools
	case 28:
		return &c.MCPHTTPRequired
	case 29:
		return &c.MCPHTTPBearerAuth
	}
	panic("wire: capability field index out of range")
}

// capabilityName is the JSON name of the i-th member. It is taken from a
// declaration of its own, so that naming a member in an error does not
// move the declaration being checked to the heap.
func capabilityName(i int) string {
	var z AgentKindCapabilities
	return z.fieldArray()[i].Name
}

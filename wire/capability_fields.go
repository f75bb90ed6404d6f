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
	a := c.fieldArray()
	for i := range a {
		if a[i].Name == name {
			return *a[i].Value, true
		}
	}
	return CapabilityUnspecified, false
}

// capabilityName is the JSON name of the i-th member. It is taken from a
// declaration of its own, so that naming a member in an error does not
// move the declaration being checked to the heap.
func capabilityName(i int) string {
	var z AgentKindCapabilities
	return z.fieldArray()[i].Name
}

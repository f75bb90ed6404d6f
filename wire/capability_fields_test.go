package wire

import "testing"

func TestCapabilityLookupFindsEveryMember(t *testing.T) {
	var c AgentKindCapabilities
	fields := c.Fields()
	for i, f := range fields { // alternate decisions, so a wrong member shows
		*f.Value = CapabilityFromBool(i%3 == 0)
	}
	for i, f := range fields {
		got, ok := c.Lookup(f.Name)
		if want := CapabilityFromBool(i%3 == 0); !ok || got != want {
			t.Errorf("Lookup(%q) = %v, %v; want %v, true", f.Name, got, ok, want)
		}
	}
	for _, name := range []string{"", "Streaming", "streaming ", "unknown_capability"} {
		if got, ok := c.Lookup(name); ok || got != CapabilityUnspecified {
			t.Errorf("Lookup(%q) = %v, %v; want unspecified, false", name, got, ok)
		}
	}
}

func TestCapabilityLookupAllocatesNothing(t *testing.T) {
	c := AllCapabilities(CapabilitySupported)
	if n := testing.AllocsPerRun(100, func() { c.Lookup("mcp_http_bearer_auth") }); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = c.Validate() }); n != 0 {
		t.Errorf("Validate of a complete declaration allocates %v times", n)
	}
}

// TestCapabilityFieldOrder holds Lookup's names and field to fieldArray:
// every member is found under its name and points at the same member.
func TestCapabilityFieldOrder(t *testing.T) {
	var c AgentKindCapabilities
	a := c.fieldArray()
	for i := range a {
		if capabilityNames[i] != a[i].Name {
			t.Errorf("name %d is %s, listed as %s", i, capabilityNames[i], a[i].Name)
		}
		if c.field(i) != a[i].Value {
			t.Errorf("field(%d) is not %s", i, a[i].Name)
		}
		*a[i].Value = CapabilitySupported
		if v, ok := c.Lookup(a[i].Name); !ok || v != CapabilitySupported {
			t.Errorf("Lookup(%s) = %v, %v after setting it", a[i].Name, v, ok)
		}
		*a[i].Value = CapabilityUnsupported
	}
	if _, ok := c.Lookup("no_such_member"); ok {
		t.Error("Lookup found an unknown member")
	}
}

// TestCapabilitySupportedSet holds CapabilityIndex and SupportedSet to
// Fields: bit i is the decision of the member CapabilityIndex names i, set
// only when it is supported (unsupported and unspecified members clear).
func TestCapabilitySupportedSet(t *testing.T) {
	var c AgentKindCapabilities
	fields := c.Fields()
	for i, f := range fields {
		*f.Value = []CapabilitySupport{CapabilitySupported, CapabilityUnsupported, CapabilityUnspecified}[i%3]
	}
	set := c.SupportedSet()
	for i, f := range fields {
		idx, ok := CapabilityIndex(f.Name)
		if !ok || idx != i {
			t.Errorf("CapabilityIndex(%q) = %d, %v; want %d, true", f.Name, idx, ok, i)
		}
		if got, want := set&(1<<i) != 0, f.Value.IsSupported(); got != want {
			t.Errorf("SupportedSet bit %d (%s) = %v; want %v", i, f.Name, got, want)
		}
	}
	if set>>len(fields) != 0 {
		t.Errorf("SupportedSet %b sets bits past the %d members", set, len(fields))
	}
	if i, ok := CapabilityIndex("no_such_member"); ok || i != -1 {
		t.Errorf("CapabilityIndex(unknown) = %d, %v; want -1, false", i, ok)
	}
}

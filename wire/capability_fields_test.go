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

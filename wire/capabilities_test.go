package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestCapabilityJSONMethods(t *testing.T) {
	if _, err := CapabilitySupport(0).MarshalJSON(); !errors.Is(err, errCapabilityUnspecified) {
		t.Errorf("marshal unspecified: %v", err)
	}
	var c CapabilitySupport
	if err := c.UnmarshalJSON([]byte(`1`)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "capability") {
		t.Errorf("unmarshal 1: %v", err)
	}
	for lit, want := range map[string]CapabilitySupport{" true ": CapabilitySupported, "false": CapabilityUnsupported} {
		if err := c.UnmarshalJSON([]byte(lit)); err != nil || c != want {
			t.Errorf("unmarshal %q: %v %v", lit, c, err)
		}
	}
}

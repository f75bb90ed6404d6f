package check

import (
	"slices"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func TestMissingCapabilitiesNamesUnsupportedAndUnknown(t *testing.T) {
	declared := wire.AllCapabilities(wire.CapabilitySupported)
	declared.Steering = wire.CapabilityUnsupported
	declared.MessageImages = wire.CapabilityUnspecified
	required := []string{"streaming", "steering", "no_such_capability", "message_images", "steering", "usage"}
	got := missingCapabilities(required, declared)
	if want := []string{"message_images", "no_such_capability", "steering"}; !slices.Equal(got, want) {
		t.Fatalf("missingCapabilities = %v, want %v", got, want)
	}
	if got := missingCapabilities([]string{"streaming", "usage"}, declared); got != nil {
		t.Fatalf("all supported: missingCapabilities = %v, want none", got)
	}
}

package sim

import (
	"testing"

	"github.com/turnstile-sim/turnstile/internal/docnumbers"
)

// TestDocNumbersAreTheLimits keeps the limits doc.go states equal to the
// kernel's constants.
func TestDocNumbersAreTheLimits(t *testing.T) {
	docnumbers.Check(t, ".",
		"the transport's "+docnumbers.MiB(FrameBytesMax)+" limit")
}

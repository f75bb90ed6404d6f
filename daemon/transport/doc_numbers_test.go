package transport

import (
	"testing"

	"github.com/turnstile-sim/turnstile/internal/docnumbers"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestDocNumbersAreTheLimits keeps the read limit doc.go states equal to
// the wire limit it names.
func TestDocNumbersAreTheLimits(t *testing.T) {
	docnumbers.Check(t, ".", "wire.FrameBytesMax ("+docnumbers.MiB(wire.FrameBytesMax)+")")
	docnumbers.Check(t, ".", "Policy.Stable ("+docnumbers.Seconds(DefaultPolicy().Stable)+" by default)")
}

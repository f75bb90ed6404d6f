package codex

import (
	"testing"

	"github.com/turnstile-sim/turnstile/internal/clirunner"
	"github.com/turnstile-sim/turnstile/internal/docnumbers"
)

// TestDocNumbersAreTheLimits keeps the grace period doc.go states equal to
// the process runner's default.
func TestDocNumbersAreTheLimits(t *testing.T) {
	docnumbers.Check(t, ".", "TERM, "+docnumbers.Seconds(clirunner.DefaultGrace)+", KILL")
}

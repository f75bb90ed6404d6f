package api

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/docnumbers"
)

// TestDocNumbersAreTheLimits keeps the limits doc.go states equal to the
// constants the API enforces.
func TestDocNumbersAreTheLimits(t *testing.T) {
	docnumbers.Check(t, ".",
		"Bodies are at most "+docnumbers.MiB(BodyBytesMax),
		"are at most "+docnumbers.MiB(V1BodyBytesMax)+" (413 body_too_large)",
		fmt.Sprintf("limit (1..%d, default 20)", V1ListLimitMax),
	)
}

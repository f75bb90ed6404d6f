package linearize

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/docnumbers"
)

// TestDocNumbersAreTheLimits keeps the timeout doc.go states equal to
// the package's own.
func TestDocNumbersAreTheLimits(t *testing.T) {
	docnumbers.Check(t, ".", fmt.Sprintf("(TimeoutDefault, %s,", TimeoutDefault))
}

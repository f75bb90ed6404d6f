package localworkspace

import (
	"fmt"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/docnumbers"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestDocNumbersAreTheLimits keeps the limits doc.go states equal to the
// wire limits the owner enforces.
func TestDocNumbersAreTheLimits(t *testing.T) {
	docnumbers.Check(t, ".",
		fmt.Sprintf("(over %d bytes, not UTF-8", wire.DirectoryNameBytes),
		"at most "+docnumbers.MiB(wire.ExportBytesMax)+".",
	)
}

package gateway

import (
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestDocNumbersAreTheLimits keeps the numbers the package doc states
// equal to the constants the gateway and the machine use.
func TestDocNumbersAreTheLimits(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		t.Fatalf("doc.go has no package doc: %v", err)
	}
	doc := strings.Join(strings.Fields(f.Doc.Text()), " ")
	seconds := func(d time.Duration) string { return fmt.Sprintf("%d s", int(d/time.Second)) }
	for _, want := range []string{
		fmt.Sprintf("read limit %d MiB", wire.FrameBytesMax>>20),
		fmt.Sprintf("a queue of %d frames, at most %s per write", OutboundFrames, seconds(WriteTimeout)),
		fmt.Sprintf("Idle close (%s without an inbound frame)", seconds(core.DefaultConfig().ConnIdleTimeout)),
		fmt.Sprintf("the export cancel's %s", seconds(core.ExportCancelSendBudget)),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("doc.go does not state %q", want)
		}
	}
}

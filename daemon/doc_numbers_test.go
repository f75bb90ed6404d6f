package daemon

import (
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// packageDoc returns the package comment of doc.go with its whitespace
// folded, so a phrase matches across line breaks.
func packageDoc(t *testing.T) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoErrorf(t, err, "doc.go has no package doc: %v", err)
	require.NotNilf(t, f.Doc, "doc.go has no package doc: %v", err)
	return strings.Join(strings.Fields(f.Doc.Text()), " ")
}

func seconds(d time.Duration) string { return fmt.Sprintf("%d s", int(d/time.Second)) }

// TestDocNumbersAreTheLimits keeps the limits the package doc states equal
// to the values the machine uses: each phrase names the constant or field
// and its default.
func TestDocNumbersAreTheLimits(t *testing.T) {
	doc := packageDoc(t)
	l := DefaultLimits()
	for _, want := range []string{
		fmt.Sprintf("(ActiveMax, %d)", l.ActiveMax),
		fmt.Sprintf("(ExecutorsMax, %d)", l.ExecutorsMax),
		fmt.Sprintf("(AdmissionRecordsMax, %d)", l.AdmissionRecordsMax),
		fmt.Sprintf("WorkspaceConfig.ReadsInFlightMax (%d)", DefaultReadsInFlightMax),
		fmt.Sprintf("(WorkspaceConfig.TransferExpiry, %s)", seconds(DefaultTransferExpiry)),
		fmt.Sprintf("(Limits.PrepareExpiry, %s)", seconds(l.PrepareExpiry)),
		fmt.Sprintf("begin, %d KiB chunks", wire.ChunkBytesMax>>10),
		fmt.Sprintf("tar archive in %d KiB chunks", wire.ChunkBytesMax>>10),
	} {
		require.Containsf(t, doc, want, "doc.go does not state %q", want)
	}
}

package core

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

// TestDocNumbersAreTheLimits keeps the limits and waits the package doc
// states equal to the values the machine uses: each phrase names the
// constant or field and its value.
func TestDocNumbersAreTheLimits(t *testing.T) {
	doc := packageDoc(t)
	for _, want := range []string{
		fmt.Sprintf("WorkspaceReadWait (%s)", seconds(WorkspaceReadWait)),
		fmt.Sprintf("WorkspaceReadsPerConn (%d)", WorkspaceReadsPerConn),
		fmt.Sprintf("WriteWorkspace (at most %d MiB", WorkspaceInlineWriteMax>>20),
		fmt.Sprintf("sends %d KiB chunks", wire.ChunkBytesMax>>10),
		fmt.Sprintf("WorkspaceWriteWait (%s)", seconds(WorkspaceWriteWait)),
		fmt.Sprintf("DecisionAckTimeout (%s)", seconds(DefaultConfig().DecisionAckTimeout)),
	} {
		require.Containsf(t, doc, want, "doc.go does not state %q", want)
	}
}

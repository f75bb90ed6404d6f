package docnumbers

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper()                        {}
func (r *recorder) Errorf(format string, _ ...any) { r.errors = append(r.errors, format) }
func (r *recorder) Fatalf(format string, _ ...any) { r.fatal = true; panic(r) }

func writeDoc(t *testing.T, text string) string {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "doc.go"), []byte(text), 0o644))
	return dir
}

func TestCheckFindsPhrasesAcrossLineBreaks(t *testing.T) {
	dir := writeDoc(t, "// Package p waits\n// 10 s for a\n// reply of at most 4 MiB.\npackage p\n")
	r := &recorder{TB: t}
	Check(r, dir, "waits "+Seconds(10*time.Second)+" for", "at most "+MiB(4<<20)+".")
	require.Empty(t, r.errors)
}

func TestCheckReportsAPhraseTheDocLost(t *testing.T) {
	dir := writeDoc(t, "// Package p waits 15 s.\npackage p\n")
	r := &recorder{TB: t}
	Check(r, dir, "waits "+Seconds(10*time.Second))
	require.Len(t, r.errors, 1)
}

func TestDocWithoutPackageCommentFails(t *testing.T) {
	dir := writeDoc(t, "package p\n")
	r := &recorder{TB: t}
	require.Panics(t, func() { Doc(r, dir) })
	require.True(t, r.fatal)
}

func TestUnitsRefuseFractions(t *testing.T) {
	require.Equal(t, "200 ms", Millis(200*time.Millisecond))
	require.Equal(t, "64 KiB", KiB(64<<10))
	require.Panics(t, func() { Seconds(1500 * time.Millisecond) })
	require.Panics(t, func() { MiB(3 << 10) })
	require.Panics(t, func() { KiB(100) })
	require.Panics(t, func() { Millis(time.Microsecond) })
}

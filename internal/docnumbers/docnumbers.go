// Package docnumbers ties the numbers a package's documentation states to
// the constants the code uses: a package's doc_numbers_test.go lists, for
// each limit its doc.go gives, the phrase built from the constant, and
// Check fails when the doc no longer says it. It is for tests only.
package docnumbers

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Doc returns the package comment of dir/doc.go with its whitespace folded
// to single spaces, so that a phrase matches across line breaks.
func Doc(t testing.TB, dir string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, "doc.go"), nil,
		parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		t.Fatalf("%s has no package doc: %v", filepath.Join(dir, "doc.go"), err)
	}
	return strings.Join(strings.Fields(f.Doc.Text()), " ")
}

// Check fails t for every phrase the package doc of dir does not contain.
func Check(t testing.TB, dir string, phrases ...string) {
	t.Helper()
	doc := Doc(t, dir)
	for _, p := range phrases {
		if !strings.Contains(doc, p) {
			t.Errorf("%s does not state %q", filepath.Join(dir, "doc.go"), p)
		}
	}
}

// Seconds renders a whole number of seconds the way the docs write it: "10 s".
func Seconds(d time.Duration) string {
	if d%time.Second != 0 {
		panic(fmt.Sprintf("docnumbers: %v is not a whole number of seconds", d))
	}
	return fmt.Sprintf("%d s", int64(d/time.Second))
}

// Millis renders a whole number of milliseconds: "200 ms".
func Millis(d time.Duration) string {
	if d%time.Millisecond != 0 {
		panic(fmt.Sprintf("docnumbers: %v is not a whole number of milliseconds", d))
	}
	return fmt.Sprintf("%d ms", int64(d/time.Millisecond))
}

// MiB renders a byte count that is a whole number of mebibytes: "4 MiB".
func MiB(n int) string {
	if n%(1<<20) != 0 {
		panic(fmt.Sprintf("docnumbers: %d bytes is not a whole number of MiB", n))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// KiB renders a byte count that is a whole number of kibibytes: "64 KiB".
func KiB(n int) string {
	if n%(1<<10) != 0 {
		panic(fmt.Sprintf("docnumbers: %d bytes is not a whole number of KiB", n))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestPackageDocMatchesTheCode keeps doc.go true: it lists every command of
// the usage text, line for line, and states the exit codes' values.
func TestPackageDocMatchesTheCode(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		t.Fatalf("doc.go has no package doc: %v", err)
	}
	doc := f.Doc.Text()
	_, cmds, _ := strings.Cut(usageMain, "commands:\n")
	cmds, _, _ = strings.Cut(cmds, "\n\n")
	for _, line := range strings.Split(cmds, "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), "   ")
		if name == "" || !strings.Contains(doc, "\t"+name+" ") {
			t.Errorf("doc.go lacks the command %q of the usage text", name)
		}
	}
	for _, want := range []string{
		fmt.Sprintf("Exit codes: %d success; %d a violation", exitOK, exitFail),
		fmt.Sprintf("; %d bad flags or arguments; %d the tool itself failed", exitUsage, exitTool),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("doc.go does not state the exit codes as %q", want)
		}
	}
}

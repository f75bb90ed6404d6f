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
	// doc.go states the exit code table of 'turnstile -h', line for line
	_, table, _ := strings.Cut(exitCodes, "\n")
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if !strings.Contains(doc, strings.TrimSpace(line)) {
			t.Errorf("doc.go lacks the exit code line %q", line)
		}
	}
	for code, meaning := range map[int]string{exitOK: "pass", exitFail: "a violation", exitUsage: "usage error",
		exitTool: "bad input or unreadable evidence", exitVacuous: "vacuous", exitNoStore: "no store"} {
		if !strings.Contains(exitCodes, fmt.Sprintf("\n  %d  %s", code, meaning)) {
			t.Errorf("the exit code table does not give %d as %q:\n%s", code, meaning, exitCodes)
		}
	}
}

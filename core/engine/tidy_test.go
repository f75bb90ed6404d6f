package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core/engine"
)

// engineNames are the Harness kinds no Core code outside this package may
// branch on: the built-in catalog's kinds and the Harnesses the seeds name.
func engineNames() []string {
	return append(engine.Builtin().Kinds(), "codex", "claude", "claude_code", "claudesdk", "mcode", "minimax")
}

// kindExpr reports whether e reads a Harness kind (x.Kind, x.AgentKind, kind).
func kindExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return e.Sel.Name == "Kind" || e.Sel.Name == "AgentKind"
	case *ast.Ident:
		return e.Name == "kind" || e.Name == "agentKind"
	}
	return false
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil && s != "" // an emptiness check names no engine
}

// TestNoEngineNameBranchInCore: no non-test file under core/ (outside
// core/engine) compares a kind with a string literal, switches on a kind
// with literal cases, or compares anything with a known engine name.
// Shared scheduling checks capability combinations, never names.
func TestNoEngineNameBranchInCore(t *testing.T) {
	names := engineNames()
	var findings []string
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "../engine" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		findings = append(findings, nameBranches(fset, f, names)...)
		return nil
	})
	require.NoError(t, err)
	for _, f := range findings {
		require.Fail(t, f)
	}
}

func nameBranches(fset *token.FileSet, f *ast.File, names []string) []string {
	var out []string
	flag := func(pos token.Pos, why string) { out = append(out, fset.Position(pos).String()+": "+why) }
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			for _, pair := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
				if s, ok := stringLit(pair[1]); ok && (kindExpr(pair[0]) || slices.Contains(names, s)) {
					flag(n.Pos(), "branch on an engine name")
				}
			}
		case *ast.SwitchStmt:
			for _, st := range n.Body.List {
				for _, e := range st.(*ast.CaseClause).List {
					if s, ok := stringLit(e); ok && (kindExpr(n.Tag) || slices.Contains(names, s)) {
						flag(e.Pos(), "switch case on an engine name")
					}
				}
			}
		}
		return true
	})
	return out
}

// TestNameBranchDetector proves the detector flags what the rule forbids.
func TestNameBranchDetector(t *testing.T) {
	src := `package p
func f(a struct{ Kind string }, kind, x string) {
	if a.Kind == "anything" {}
	if x != "synthetic" {}
	switch kind { case "k": }
	switch x { case "codex": }
	if x == "fine" {}
	if a.Kind == "" {}
	switch x { case "fine": }
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	require.NoError(t, err)
	got := nameBranches(fset, f, engineNames())
	require.Lenf(t, got, 4, "detector found %d branches, want 4: %v", len(got), got)
}

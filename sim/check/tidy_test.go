package check

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// The oracle packages (oraclePackages: this one and linearize) are
// machine code: no clocks, sleeps, goroutines, channels, I/O or shared
// randomness in non-test files, and no map iteration that can reach
// output unless marked //tidy:sorted.
var (
	bannedImports = map[string]bool{
		"os": true, "net": true, "net/http": true, "sync": true, "sync/atomic": true,
		"crypto/rand": true, "math/rand": true, "io/ioutil": true, "unsafe": true,
	}
	bannedTimeCalls = map[string]bool{
		"Now": true, "Sleep": true, "After": true, "AfterFunc": true, "Tick": true,
		"NewTimer": true, "NewTicker": true, "Since": true, "Until": true,
	}
)

const (
	fileLinesMax     = 600
	functionLinesMax = 70
)

// oraclePackages are the packages of oracle code the tidy rules hold,
// by name and directory: this one and the linearizability engine it
// imports.
var oraclePackages = []struct{ name, dir string }{
	{"check", "."},
	{"linearize", filepath.Join("..", "linearize")},
}

func machineFiles(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

func TestTidyMachineRules(t *testing.T) {
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	for _, p := range oraclePackages {
		tidyMachinePackage(t, fset, imp, p.name, machineFiles(t, fset, p.dir))
	}
}

// tidyMachinePackage holds the files of package name to the machine rules.
func tidyMachinePackage(t *testing.T, fset *token.FileSet, imp types.Importer, name string, files []*ast.File) {
	t.Helper()
	if len(files) == 0 {
		t.Fatalf("package %s: no files", name)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(name, fset, files, info); err != nil {
		t.Fatalf("type check of %s: %v", name, err)
	}
	for _, f := range files {
		file := fset.Position(f.Pos()).Filename
		if n := fset.Position(f.End()).Line; n > fileLinesMax {
			t.Errorf("%s: %d lines > %d", file, n, fileLinesMax)
		}
		for _, spec := range f.Imports {
			if p := strings.Trim(spec.Path.Value, `"`); bannedImports[p] {
				t.Errorf("%s: imports %s", file, p)
			}
		}
		sorted := sortedMarkLines(fset, f)
		ast.Inspect(f, func(n ast.Node) bool {
			if msg := tidyViolation(n, info, fset, sorted); msg != "" {
				t.Errorf("%s: %s", fset.Position(n.Pos()), msg)
			}
			return true
		})
	}
}

func sortedMarkLines(fset *token.FileSet, f *ast.File) map[int]bool {
	lines := map[int]bool{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if strings.Contains(c.Text, "tidy:sorted") {
				lines[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	return lines
}

func tidyViolation(n ast.Node, info *types.Info, fset *token.FileSet, sorted map[int]bool) string {
	switch n := n.(type) {
	case *ast.GoStmt:
		return "go statement"
	case *ast.ChanType:
		return "channel type"
	case *ast.SelectStmt:
		return "select statement"
	case *ast.SendStmt:
		return "channel send"
	case *ast.SelectorExpr:
		if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" && bannedTimeCalls[n.Sel.Name] {
			return "time." + n.Sel.Name
		}
	case *ast.FuncDecl:
		if lines := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1; lines > functionLinesMax {
			return n.Name.Name + " is too long"
		}
	case *ast.RangeStmt:
		if _, isMap := info.TypeOf(n.X).Underlying().(*types.Map); isMap && !sorted[fset.Position(n.Pos()).Line] {
			return "range over a map without //tidy:sorted"
		}
	}
	return ""
}

// The guard itself must catch what it bans.
func TestTidyCatchesBannedCode(t *testing.T) {
	src := `package x
import "time"
func f(m map[string]int) {
	go func() {}()
	_ = time.Now()
	for k := range m { _ = k }
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("x", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if msg := tidyViolation(n, info, fset, map[int]bool{}); msg != "" {
			found = append(found, msg)
		}
		return true
	})
	want := "go statement|time.Now|range over a map without //tidy:sorted"
	if strings.Join(found, "|") != want {
		t.Fatalf("found %q want %q", strings.Join(found, "|"), want)
	}
}

package sim

// The assertion-style guard (ARCHITECTURE.md, "How tests assert"). It
// parses every _test.go file of the module and fails when
//   - a package's tests import testify's require and also fail through the
//     testing handle (t.Fatal, t.Fatalf, t.Error, t.Errorf, t.Fail,
//     t.FailNow on a *testing.T, *testing.B, *testing.F, testing.TB or
//     *rapid.T): a package uses require or the standard library, not both;
//   - a test file imports a testify package other than require (assert's
//     checks do not stop the test; mock and suite are not used here);
//   - a test file declares a home-made comparator: a function that takes a
//     testing handle and two or more values of one of its type parameters
//     (the shape of `eq(t, got, want, what)`), which restates require.Equal
//     or `if got != want { t.Fatalf(...) }`.
// A package is every _test.go file of one directory, internal and external
// test packages together.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const testifyRequire = "github.com/stretchr/testify/require"

// testingHandles are the types whose failure methods the guard counts, by
// import path and type name.
var testingHandles = map[string][]string{
	"testing":            {"T", "B", "F", "TB"},
	"pgregory.net/rapid": {"T"},
}

var handleFailures = map[string]bool{"Fatal": true, "Fatalf": true, "Error": true, "Errorf": true, "Fail": true, "FailNow": true}

// assertionStyle returns the findings for the test files of one package.
func assertionStyle(fset *token.FileSet, files []*ast.File) []string {
	var out []string
	add := func(p token.Pos, msg string) { out = append(out, fset.Position(p).String()+": "+msg) }
	usesRequire := false
	handles := map[string]bool{}
	for _, f := range files {
		names := localImports(f)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case p == testifyRequire:
				usesRequire = true
			case strings.HasPrefix(p, "github.com/stretchr/testify/"):
				add(imp.Pos(), "imports "+p+": assertions use testify's require")
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				if isHandleType(n.Type, names) {
					for _, id := range n.Names {
						handles[id.Name] = true
					}
				}
			case *ast.ValueSpec:
				if n.Type != nil && isHandleType(n.Type, names) {
					for _, id := range n.Names {
						handles[id.Name] = true
					}
				}
			case *ast.FuncDecl:
				if name, ok := comparator(n, names); ok {
					add(n.Pos(), "home-made assertion helper "+name+": use require.Equal, or `if got != want { t.Fatalf(...) }`")
				}
			}
			return true
		})
	}
	if !usesRequire {
		return out
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !handleFailures[sel.Sel.Name] {
				return true
			}
			var recv string
			switch x := sel.X.(type) {
			case *ast.Ident:
				recv = x.Name
			case *ast.SelectorExpr:
				recv = x.Sel.Name
			}
			if handles[recv] {
				add(call.Pos(), callee(sel)+" in a package whose tests use require: say it with require (require.Fail for an unconditional failure)")
			}
			return true
		})
	}
	return out
}

// callee spells the failing call as written: t.Fatalf, r.t.Fatal.
func callee(sel *ast.SelectorExpr) string {
	var b strings.Builder
	switch x := sel.X.(type) {
	case *ast.Ident:
		b.WriteString(x.Name)
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			b.WriteString(id.Name + ".")
		}
		b.WriteString(x.Sel.Name)
	}
	return b.String() + "." + sel.Sel.Name
}

// localImports maps each import's local name to its path.
func localImports(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		names[name] = p
	}
	return names
}

// isHandleType reports whether e spells one of testingHandles, pointer or
// not, under the file's import names.
func isHandleType(e ast.Expr, names map[string]string) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	return slices.Contains(testingHandles[names[pkg.Name]], sel.Sel.Name)
}

// comparator reports a generic function that takes a testing handle and
// at least two values of the same type parameter.
func comparator(fd *ast.FuncDecl, names map[string]string) (string, bool) {
	if fd.Type.TypeParams == nil {
		return "", false
	}
	tparams := map[string]bool{}
	for _, f := range fd.Type.TypeParams.List {
		for _, id := range f.Names {
			tparams[id.Name] = true
		}
	}
	handle := false
	count := map[string]int{}
	for _, f := range fd.Type.Params.List {
		if isHandleType(f.Type, names) {
			handle = true
			continue
		}
		if id, ok := f.Type.(*ast.Ident); ok && tparams[id.Name] {
			n := len(f.Names)
			if n == 0 {
				n = 1
			}
			count[id.Name] += n
		}
	}
	if !handle {
		return "", false
	}
	for _, n := range count {
		if n >= 2 {
			return fd.Name.Name, true
		}
	}
	return "", false
}

// testDirs parses the _test.go files under root by directory.
func testDirs(t *testing.T, fset *token.FileSet, root string) map[string][]*ast.File {
	dirs := map[string][]*ast.File{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		dirs[rel] = append(dirs[rel], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

func TestOneAssertionStylePerPackage(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	dirs := testDirs(t, fset, root)
	if len(dirs) < 10 {
		t.Fatalf("found tests in %d directories; the walk is broken", len(dirs))
	}
	requirePkgs := 0
	for _, rel := range slices.Sorted(maps.Keys(dirs)) {
		for _, f := range dirs[rel] {
			if slices.ContainsFunc(f.Imports, func(i *ast.ImportSpec) bool { return i.Path.Value == strconv.Quote(testifyRequire) }) {
				requirePkgs++
				break
			}
		}
		for _, msg := range assertionStyle(fset, dirs[rel]) {
			t.Error(strings.TrimPrefix(msg, root+string(filepath.Separator)))
		}
	}
	if requirePkgs == 0 {
		t.Fatal("no package uses require; the import scan is broken")
	}
}

// The guard's own cases: each is the test files of one package.
func TestAssertionStyleGuardRules(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		want  string // substring of a finding; "" for clean
	}{
		{"standard library only", []string{
			`import "testing"; func TestA(t *testing.T) { if 1 != 2 { t.Fatalf("x") } }`}, ""},
		{"require only", []string{
			`import ("testing"; "github.com/stretchr/testify/require"); func TestA(t *testing.T) { require.Equal(t, 1, 1); t.Log("ok") }`}, ""},
		{"require and t.Fatalf", []string{
			`import ("testing"; "github.com/stretchr/testify/require"); func TestA(t *testing.T) { require.Equal(t, 1, 1); t.Fatalf("x") }`}, "t.Fatalf in a package whose tests use require"},
		{"require in one file, t.Errorf in another", []string{
			`import ("testing"; "github.com/stretchr/testify/require"); func TestA(t *testing.T) { require.True(t, true) }`,
			`import "testing"; func TestB(tb testing.TB) { tb.Errorf("x") }`}, "tb.Errorf in a package"},
		{"rig field handle", []string{
			`import ("testing"; "github.com/stretchr/testify/require"); type rig struct{ t testing.TB }; func (r *rig) f() { require.True(r.t, true); r.t.Fatal("x") }`}, "r.t.Fatal in a package"},
		{"rapid handle", []string{
			`import ("testing"; "pgregory.net/rapid"; "github.com/stretchr/testify/require"); func TestA(t *testing.T) { rapid.Check(t, func(rt *rapid.T) { require.True(rt, true); rt.Fatalf("x") }) }`}, "rt.Fatalf in a package"},
		{"renamed testing import", []string{
			`import (tst "testing"; "github.com/stretchr/testify/require"); func TestA(t *tst.T) { require.True(t, true); t.FailNow() }`}, "t.FailNow in a package"},
		{"other Errorf is no failure", []string{
			`import ("fmt"; "testing"; "github.com/stretchr/testify/require"); func TestA(t *testing.T) { require.Error(t, fmt.Errorf("x")) }`}, ""},
		{"testify assert", []string{
			`import ("testing"; "github.com/stretchr/testify/assert"); func TestA(t *testing.T) { assert.True(t, true) }`}, "imports github.com/stretchr/testify/assert"},
		{"eq comparator", []string{
			`import "testing"; func eq[T comparable](t testing.TB, got, want T, what string) { if got != want { t.Fatalf("%s", what) } }`}, "home-made assertion helper eq"},
		{"comparator with separate params", []string{
			`import "testing"; func same[V any](t *testing.T, a V, b V) {}`}, "home-made assertion helper same"},
		{"generic domain helper", []string{
			`import "testing"; func one[P any](t *testing.T, list []P) P { return list[0] }`}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			var files []*ast.File
			for i, src := range tc.files {
				f, err := parser.ParseFile(fset, "x"+strconv.Itoa(i)+"_test.go", "package x\n"+src+"\n", parser.SkipObjectResolution)
				if err != nil {
					t.Fatalf("case does not parse: %v", err)
				}
				files = append(files, f)
			}
			found := assertionStyle(fset, files)
			switch {
			case tc.want == "" && len(found) > 0:
				t.Fatalf("clean case flagged: %v", found)
			case tc.want != "" && !strings.Contains(strings.Join(found, "\n"), tc.want):
				t.Fatalf("want a finding with %q; got %v", tc.want, found)
			}
		})
	}
}

package sim

// The determinism guard. It parses every non-test Go file of the machine
// packages (wire, core, daemon and sim, with all their subpackages except
// the shells core/server, core/gateway, core/api, core/store/sqlitestore,
// core/store/pgstore, daemon/transport and daemon/runner; and internal/invariant, the assertion
// helper they import), whatever the file's build constraints or target
// platform, and fails on anything that could make a
// simulated run depend on the real world: wall-clock time, goroutines,
// channels, select, the global math/rand source, crypto/rand,
// os, net, sync, log, runtime, syscall, unsafe, the benbjohnson/clock
// library, dot imports of time, math/rand and maps, or
// map iteration order (ranges over maps or maps.Keys/Values/All, and those
// iterators not passed straight to slices.Sorted*). Per-file exceptions are
// listed with their reasons in importAllowed.
//
// It also checks every package's imports, shells included, against the edge
// list of STYLE.md §3 (tidy_edges_test.go): wire imports the standard library
// only; the core and daemon machines import wire and an allowlist of pure
// standard packages; any package may import internal/invariant; the Core lane (core/...) imports only core/... and wire,
// the Runtime lane (daemon/...) only daemon/..., wire and adapters/agent, and
// neither imports the other; sim and its subpackages never import a shell or
// adapters/...; only the shell core/store/sqlitestore imports an SQLite
// driver, and only core/store/pgstore the PostgreSQL driver.
//
// Map ranges are found with go/types (the package is type-checked from
// source; type errors are ignored, so a package under construction is still
// scanned). A range over a map passes when its body cannot leak the order:
//   - it appends only to slices (`out = append(out, ...)`) that a sort call
//     (slices.Sort*, sort.*) later in the enclosing block sorts;
//   - it declares or assigns variables local to the body;
//   - it counts (`n++`, `n += x`), folds flags (`ok = ok && e`), deletes
//     (`delete(m, k)`), asserts (calls named assert*, check* or panic*),
//     or sorts a local, also inside nested if, switch and for;
//   - or it returns a value that does not depend on the iteration and
//     changes nothing else;
// and it never breaks or jumps, and calls nothing else as a statement.
// Anything else (first match wins, last write wins, an unsorted append,
// output from inside the loop) is flagged unless the line of the `for`, or
// the line above it, carries a `//tidy:sorted` comment justifying it.
//
// The guard scans whatever exists at test time; missing directories are fine.

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/token"
	"go/types"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/turnstile-sim/turnstile"

var (
	guardRoots = []string{"wire", "core", "daemon", "sim", "internal/invariant"}
	// shells may do I/O; only the import edges apply to them.
	// core/server owns the Core machine's goroutine, timers and commits;
	// core/gateway (with its scripted test peer) and core/api are its
	// network front ends.
	// daemon/transport and daemon/runner attach the daemon machine to Core
	// and to real adapters.
	// core/store/pgstore (with its test helper pgtest) talks to a
	// PostgreSQL server.
	guardShells = []string{"core/server", "core/gateway", "core/api", "core/store/sqlitestore", "core/store/pgstore", "daemon/transport", "daemon/runner"}
	// importAllowed lists, per file, banned imports it may still use, each
	// with its reason.
	importAllowed = map[string][]string{
		// The auditor reruns whole simulations under several GOMAXPROCS
		// values; it is no machine and never runs inside a simulation.
		"sim/audit.go": {"runtime"},
	}

	bannedTime = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc",
		"NewTimer", "NewTicker", "Tick"}
	// allowedRand are the math/rand(/v2) names that do not touch the global
	// source: constructors and types.
	allowedRand = []string{"New", "NewPCG", "NewChaCha8", "NewSource", "NewZipf",
		"Rand", "Source", "PCG", "ChaCha8", "Zipf"}
	// bannedImports (and their subpackages) reach the real world or bypass
	// the type system: I/O, scheduling, wall-clock time, memory layout.
	// reflect is not banned: wire's canonical encoding and Describe use it.
	bannedImports = []string{"crypto/rand", "os", "net", "sync", "log", "runtime", "syscall",
		"unsafe", "github.com/benbjohnson/clock"}
	// dotBanned are packages whose names must stay qualified, so that the
	// banned names above are found.
	dotBanned = []string{"time", "math/rand", "math/rand/v2", "maps"}
)

type finding struct {
	pos  string
	rule string
	msg  string
}

func (f finding) String() string { return f.pos + ": " + f.rule + ": " + f.msg }

type guard struct {
	fset *token.FileSet
	imp  types.Importer
	// long lists functions over the soft length limit (reported, not failed).
	long []string
}

func newGuard() *guard {
	fset := token.NewFileSet()
	return &guard{fset: fset, imp: importer.ForCompiler(fset, "source", nil)}
}

// checkPackage runs the machine rules over one parsed package. rel is the
// package directory relative to the module root (used for the allowlist
// and the import-direction rule); machine selects the determinism rules.
func (g *guard) checkPackage(rel string, files []*ast.File, machine bool) []finding {
	var out []finding
	out = append(out, g.checkEdges(rel, files)...)
	if !machine {
		return out
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: g.imp, Error: func(error) {}}
	_, _ = conf.Check(path.Join(modulePath, rel), g.fset, files, info)
	for _, f := range files {
		name := filepath.ToSlash(filepath.Join(rel, filepath.Base(g.fset.File(f.Pos()).Name())))
		out = append(out, g.checkFile(f, info, importAllowed[name])...)
	}
	return out
}

func (g *guard) at(p token.Pos) string {
	pos := g.fset.Position(p)
	return filepath.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line)
}

// importNames maps each import's local name to its path.
func importNames(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := path.Base(p)
		if p == "math/rand/v2" {
			name = "rand"
		}
		if im.Name != nil {
			name = im.Name.Name
		}
		names[name] = p
	}
	return names
}

func bannedImport(p string, allowed []string) bool {
	for _, b := range bannedImports {
		if (p == b || strings.HasPrefix(p, b+"/")) && !slices.Contains(allowed, b) {
			return true
		}
	}
	return false
}

func (g *guard) checkFile(f *ast.File, info *types.Info, allowed []string) []finding {
	var out []finding
	add := func(p token.Pos, rule, msg string) { out = append(out, finding{g.at(p), rule, msg}) }
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		if bannedImport(p, allowed) {
			add(im.Pos(), "import", "imports "+p)
		}
		if im.Name != nil && im.Name.Name == "." && slices.Contains(dotBanned, p) {
			add(im.Pos(), "dot-import", "dot-imports "+p+"; import it by name")
		}
	}
	names := importNames(f)
	sorted := tidyComments(g.fset, f)
	after := followers(f)
	iters := g.mapsIterCalls(f, names, info)
	qualified := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			qualified[x.Sel] = true
			g.checkSelector(x, names, add)
		case *ast.Ident:
			checkDotUse(x, qualified, info, add)
		case *ast.CallExpr:
			if iters[x] && !sorted[g.fset.Position(x.Pos()).Line] {
				add(x.Pos(), "maps-iter", "maps.Keys/Values/All in map order; use slices.Sorted(maps.Keys(m)), "+
					"or justify with //tidy:sorted")
			}
		case *ast.GoStmt:
			add(x.Pos(), "go", "go statement")
		case *ast.ChanType:
			add(x.Pos(), "channel", "channel type")
		case *ast.SendStmt:
			add(x.Pos(), "channel", "channel send")
		case *ast.UnaryExpr:
			if x.Op == token.ARROW {
				add(x.Pos(), "channel", "channel receive")
			}
		case *ast.SelectStmt:
			add(x.Pos(), "select", "select statement")
		case *ast.RangeStmt:
			mapOrder := isMapRange(x, info) || isMapsIter(x.X, names, info)
			if mapOrder && !orderFree(x, after[x]) && !sorted[g.fset.Position(x.Pos()).Line] {
				add(x.Pos(), "map-range", "range over a map; collect and sort the keys, "+
					"or justify with //tidy:sorted")
			}
		case *ast.FuncDecl:
			g.measure(x)
		}
		return true
	})
	return out
}

func (g *guard) checkSelector(x *ast.SelectorExpr, names map[string]string, add func(token.Pos, string, string)) {
	id, ok := x.X.(*ast.Ident)
	if !ok || id.Obj != nil { // a local variable shadows the package name
		return
	}
	switch names[id.Name] {
	case "time":
		if slices.Contains(bannedTime, x.Sel.Name) {
			add(x.Pos(), "time", "time."+x.Sel.Name+" reads or waits on the wall clock")
		}
	case "math/rand", "math/rand/v2":
		if !slices.Contains(allowedRand, x.Sel.Name) {
			add(x.Pos(), "global-rand", "rand."+x.Sel.Name+" uses the global source; "+
				"draw from a seeded *rand.Rand")
		}
	}
}

func (g *guard) measure(fn *ast.FuncDecl) {
	if fn.Body == nil {
		return
	}
	lines := g.fset.Position(fn.End()).Line - g.fset.Position(fn.Pos()).Line + 1
	if lines > 100 {
		g.long = append(g.long, fmt.Sprintf("%s %s: %d lines", g.at(fn.Pos()), fn.Name.Name, lines))
	}
}

// tidyComments returns the lines covered by a //tidy:sorted comment: the
// comment's own line and the line after it.
func tidyComments(fset *token.FileSet, f *ast.File) map[int]bool {
	lines := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//tidy:sorted") {
				l := fset.Position(c.Pos()).Line
				lines[l], lines[l+1] = true, true
			}
		}
	}
	return lines
}

// packageDirs lists the package directories under the guarded roots,
// relative to the module root, and whether the machine rules apply.
func packageDirs(t *testing.T, root string) map[string]bool {
	dirs := map[string]bool{}
	for _, top := range []string{"wire", "core", "daemon", "sim"} {
		base := filepath.Join(root, top)
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fs.SkipDir // a missing root is fine
			}
			name := d.Name()
			if d.IsDir() && p != base && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return fs.SkipDir
			}
			if d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				rel = filepath.ToSlash(rel)
				dirs[rel] = !isShell(rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

func isShell(rel string) bool {
	for _, s := range guardShells {
		if rel == s || strings.HasPrefix(rel, s+"/") {
			return true
		}
	}
	return false
}

// scanTree runs the guard over the module rooted at root and returns its
// findings and the number of packages scanned.
func (g *guard) scanTree(t *testing.T, root string) ([]finding, int) {
	dirs := packageDirs(t, root)
	var all []finding
	scanned := 0
	for _, rel := range sortedKeys(dirs) {
		pkgs, err := parseDir(g.fset, filepath.Join(root, rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
		}
		if len(pkgs) == 0 {
			continue // no Go package here (yet)
		}
		scanned++
		for _, files := range pkgs {
			for _, f := range g.checkPackage(rel, files, dirs[rel]) {
				f.pos = rel + "/" + f.pos
				all = append(all, f)
			}
		}
	}
	return all, scanned
}

func TestDeterminismGuard(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	g := newGuard()
	all, scanned := g.scanTree(t, root)
	if scanned == 0 {
		t.Fatal("the guard scanned no package")
	}
	for _, f := range all {
		t.Error(f)
	}
	for _, l := range g.long {
		t.Logf("soft limit: function over 100 lines: %s", l)
	}
	t.Logf("scanned %d packages", scanned)
}

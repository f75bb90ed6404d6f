package sim

// Import edges, dot imports, maps iterators and file discovery of the
// determinism guard (see tidy_test.go).

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// machineStdlib is what the Core and Runtime machines (packages core and
// daemon) may import besides wire: STYLE.md §3's allowlist, plus time (for
// time.Time and time.Duration; the wall-clock functions are banned by the
// time rule) and the pure helpers cmp, maps (see the maps-iter rule) and
// unicode/utf8.
var machineStdlib = []string{"errors", "fmt", "sort", "slices", "strings", "strconv", "bytes",
	"math", "math/rand/v2", "time", "cmp", "maps", "unicode/utf8"}

// parseDir parses every non-test .go file of dir, whatever its build tags
// or target platform, grouped by package clause in file-name order.
func parseDir(fset *token.FileSet, dir string) ([][]*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var pkgs [][]*ast.File
	var order []string
	var errs []error
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		i := slices.Index(order, f.Name.Name)
		if i < 0 {
			order = append(order, f.Name.Name)
			pkgs = append(pkgs, nil)
			i = len(pkgs) - 1
		}
		pkgs[i] = append(pkgs[i], f)
	}
	return pkgs, errors.Join(errs...)
}

// checkEdges applies STYLE.md §3's edge list to the imports of package rel.
func (g *guard) checkEdges(rel string, files []*ast.File) []finding {
	var out []finding
	for _, f := range files {
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rule, why := edgeViolation(rel, p); rule != "" {
				out = append(out, finding{g.at(im.Pos()), rule, rel + " imports " + p + ": " + why})
			}
		}
	}
	return out
}

// under reports whether module-relative path mod is dir or below it.
func under(mod, dir string) bool { return mod == dir || strings.HasPrefix(mod, dir+"/") }

// edgeViolation returns the rule and reason an import of p from package rel
// breaks, or "".
func edgeViolation(rel, p string) (rule, why string) {
	mod, local := "", p == modulePath || strings.HasPrefix(p, modulePath+"/")
	if local {
		mod = strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/")
	}
	stdlib := !local && !strings.Contains(strings.SplitN(p, "/", 2)[0], ".")
	top := strings.SplitN(rel, "/", 2)[0]
	switch {
	case top == "core" && under(mod, "daemon"), top == "daemon" && under(mod, "core"):
		return "import-direction", "the Core and Runtime lanes never import each other"
	// internal/invariant is the one assertion helper; like the standard
	// library it is pure (the guard scans it as a machine package).
	case mod == invariantPkg:
		return "", ""
	case top == "wire" && !stdlib:
		return "import-edge", "wire imports the standard library (and internal/invariant) only"
	case (rel == "core" || rel == "daemon") && local && !under(mod, "wire") && mod != "core/engine":
		return "import-edge", "a machine imports only wire from the module"
	case (rel == "core" || rel == "daemon") && !local && !slices.Contains(machineStdlib, p):
		return "import-edge", "not in the machines' allowlist (" + strings.Join(machineStdlib, " ") + ")"
	// internal/wiretrace carries a span context in the envelope's trace
	// field: the shells of both lanes that trace frames share it; the
	// machines never see a span.
	case mod == wiretracePkg && rel != "core" && rel != "daemon":
		return "", ""
	case top == "core" && local && !under(mod, "core") && !under(mod, "wire"):
		return "import-edge", "the Core lane imports only core/... and wire"
	// The Runtime shells stay inside this edge: daemon/transport imports
	// wire (the frame limit and version); daemon/runner imports daemon (the
	// machine it steps), daemon/transport (its connection to Core),
	// adapters/agent (the Harness contract its native calls run against)
	// and wire (the frame codec). Concrete adapters are registered by
	// cmd/turnstile, never imported here.
	case top == "daemon" && local && !under(mod, "daemon") && !under(mod, "wire") && mod != "adapters/agent":
		return "import-edge", "the Runtime lane imports only daemon/..., wire and adapters/agent"
	case top == "sim" && local && (isShell(mod) || under(mod, "adapters")):
		return "import-edge", "the simulator never imports a shell or adapters/..."
	case isSQLiteDriver(p) && rel != sqliteStore:
		return "import-edge", "only " + sqliteStore + " opens the database: the SQLite driver stays behind core.Store"
	}
	for _, l := range shellLibs {
		if under(p, l.lib) && !slices.ContainsFunc(l.allowed, func(a string) bool { return under(rel, a) }) {
			return "import-edge", l.why
		}
	}
	return "", ""
}

// shellLibs are the third-party I/O libraries of the shells and the
// packages allowed to import them.
var shellLibs = []struct {
	lib     string
	allowed []string
	why     string
}{
	{"github.com/coder/websocket", []string{"core/gateway", "daemon/transport"},
		"the WebSocket library belongs to the Runtime gateway (and its scripted peer) and the daemon transport"},
	{"github.com/prometheus/client_golang", []string{"core/server", "daemon/runner", "cmd"},
		"metrics are collected by Core's server loop and the daemon's runner, and served by the command"},
	{"go.opentelemetry.io", []string{"core/server", "daemon/runner", "internal/wiretrace", "cmd"},
		"traces are recorded by Core's server loop and the daemon's runner loop, and exported by the command"},
	{"github.com/jackc/pgx", []string{"core/store/pgstore"},
		"only core/store/pgstore (and its test helper pgtest) talks to PostgreSQL: the driver stays behind core.Store"},
}

// invariantPkg is the module's assertion helper, importable from anywhere.
const invariantPkg = "internal/invariant"

// wiretracePkg is the one helper the tracing shells of both lanes share.
const wiretracePkg = "internal/wiretrace"

// sqliteStore is the shell that owns Core's database file; it alone may
// import the SQLite drivers (and, as a shell, do file I/O).
const sqliteStore = "core/store/sqlitestore"

func isSQLiteDriver(p string) bool {
	return under(p, "modernc.org/sqlite") || under(p, "zombiezen.com/go/sqlite")
}

// funcOf returns the package path and name of the function call calls when
// it is a package-level function of another package, qualified or
// dot-imported; "" otherwise.
func funcOf(call *ast.CallExpr, names map[string]string, info *types.Info) (string, string) {
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		if id, ok := fn.X.(*ast.Ident); ok && id.Obj == nil {
			if pn, ok := info.Uses[id].(*types.PkgName); ok {
				return pn.Imported().Path(), fn.Sel.Name
			}
			return names[id.Name], fn.Sel.Name
		}
	case *ast.Ident:
		if obj, ok := info.Uses[fn].(*types.Func); ok && obj.Pkg() != nil {
			return obj.Pkg().Path(), fn.Name
		}
	}
	return "", ""
}

// isMapsIter reports whether e is a call of maps.Keys, maps.Values or
// maps.All, which yield in map order.
func isMapsIter(e ast.Expr, names map[string]string, info *types.Info) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	p, name := funcOf(call, names, info)
	return p == "maps" && (name == "Keys" || name == "Values" || name == "All")
}

// mapsIterCalls returns the maps.Keys/Values/All calls of f whose order may
// leak: those neither passed straight to slices.Sorted, SortedFunc or
// SortedStableFunc nor ranged over (the map-range rule judges those).
func (g *guard) mapsIterCalls(f *ast.File, names map[string]string, info *types.Info) map[*ast.CallExpr]bool {
	out := map[*ast.CallExpr]bool{}
	var fine []ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if isMapsIter(x, names, info) {
				out[x] = true
			}
			p, name := funcOf(x, names, info)
			if p == "slices" && strings.HasPrefix(name, "Sorted") && len(x.Args) > 0 {
				fine = append(fine, x.Args[0])
			}
		case *ast.RangeStmt:
			fine = append(fine, x.X)
		}
		return true
	})
	for _, e := range fine {
		if c, ok := ast.Unparen(e).(*ast.CallExpr); ok {
			delete(out, c)
		}
	}
	return out
}

// checkDotUse flags an unqualified use of a banned time or math/rand name,
// reachable only through a dot import. Qualified uses are checkSelector's.
func checkDotUse(id *ast.Ident, qualified map[*ast.Ident]bool, info *types.Info, add func(token.Pos, string, string)) {
	obj, ok := info.Uses[id].(*types.Func)
	if !ok || obj.Pkg() == nil || qualified[id] {
		return
	}
	switch obj.Pkg().Path() {
	case "time":
		if slices.Contains(bannedTime, id.Name) {
			add(id.Pos(), "time", "time."+id.Name+" (dot-imported) reads or waits on the wall clock")
		}
	case "math/rand", "math/rand/v2":
		if !slices.Contains(allowedRand, id.Name) {
			add(id.Pos(), "global-rand", "rand."+id.Name+" (dot-imported) uses the global source")
		}
	}
}

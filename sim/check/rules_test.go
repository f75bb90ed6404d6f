package check

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateIndex = flag.Bool("update", false, "rewrite doc.go's rule index and ARCHITECTURE.md's rule table from Rules")

// timingRuleNames are the timing rules that also judge deadlines still
// open at the end of a run.
func timingRuleNames() []string {
	var out []string
	for _, r := range Rules() {
		if r.Verdict == AfterStep|AtEnd && strings.HasPrefix(r.Name, "timing_") {
			out = append(out, r.Name)
		}
	}
	return out
}

// dynamicSites are the reporting sites whose check name is computed from
// a value no call in this package passes as a constant, by file, with the
// names they report. Ledger.violate refuses an unregistered one at run
// time; this table keeps the site counted as one that reports them.
var dynamicSites = map[string][]string{
	// The window of the timer the world passes to CoreWorkspaceCall.
	"timing_workspace.go": {CheckTimingWorkspaceRead, CheckTimingWorkspaceWrite, CheckTimingWorkspaceExport},
}

// reportSite is one place of the package that reports a violation of a
// rule: a violate call or a Violation literal naming it.
type reportSite struct {
	file, name string
}

// packageSource parses the package's non-test files.
func packageSource(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = f
	}
	return fset, files
}

// stringConsts evaluates the package's string constants: literals and
// sums of literals and other constants.
func stringConsts(files map[string]*ast.File) map[string]string {
	exprs := map[string]ast.Expr{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						exprs[n.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	out := map[string]string{}
	for n := range exprs {
		if v, ok := evalString(exprs[n], exprs); ok {
			out[n] = v
		}
	}
	return out
}

func evalString(e ast.Expr, exprs map[string]ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.Ident:
		if x, ok := exprs[e.Name]; ok {
			return evalString(x, exprs)
		}
	case *ast.ParenExpr:
		return evalString(e.X, exprs)
	case *ast.CallExpr: // Mark("...") and other conversions
		if len(e.Args) == 1 {
			return evalString(e.Args[0], exprs)
		}
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			x, okx := evalString(e.X, exprs)
			y, oky := evalString(e.Y, exprs)
			return x + y, okx && oky
		}
	}
	return "", false
}

// reportSites finds every violate call and Violation literal of the
// package and the check name each reports. A name passed down as a
// parameter is followed to the constants the package's calls pass for it;
// a name computed otherwise must be in dynamicSites.
func reportSites(t *testing.T) []reportSite {
	fset, files := packageSource(t)
	consts := stringConsts(files)
	type param struct {
		fn     string
		idx    int
		prefix string // "timing_" for a timer name a window reports under
	}
	var sites []reportSite
	var owed []param // parameters carrying a check name
	owedFile := map[param]string{}
	dynamic := map[string]bool{}
	var reportAs func(e ast.Expr, prefix string)
	for name, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Name.Name == "violate" {
				continue
			}
			params := map[string]int{}
			i := 0
			for _, fl := range fd.Type.Params.List {
				for _, n := range fl.Names {
					params[n.Name] = i
					i++
				}
				if len(fl.Names) == 0 {
					i++
				}
			}
			report := func(e ast.Expr) { reportAs(e, "") }
			reportAs = func(e ast.Expr, prefix string) {
				if v, ok := evalString(e, nil); ok {
					sites = append(sites, reportSite{name, prefix + v})
					return
				}
				if id, ok := e.(*ast.Ident); ok {
					if v, ok := consts[id.Name]; ok {
						sites = append(sites, reportSite{name, prefix + v})
						return
					}
					if idx, ok := params[id.Name]; ok && dynamicSites[name] == nil {
						p := param{fd.Name.Name, idx, prefix}
						owed = append(owed, p)
						owedFile[p] = name
						return
					}
				}
				// The shared timer window reports under "timing_" and its
				// timer's name: its start sites are the reporting sites.
				if b, ok := e.(*ast.BinaryExpr); ok && name == "timing_window.go" {
					if v, ok := evalString(b.X, nil); ok && v == "timing_" {
						if sel, ok := b.Y.(*ast.SelectorExpr); ok && sel.Sel.Name == "timer" {
							return
						}
					}
				}
				if _, ok := dynamicSites[name]; ok {
					dynamic[name] = true
					return
				}
				t.Errorf("%s: check name %s is neither a constant nor a parameter", fset.Position(e.Pos()), types.ExprString(e))
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "violate" && len(n.Args) >= 2 {
						report(n.Args[1])
					}
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "startWindow" && len(n.Args) >= 3 {
						reportAs(n.Args[2], "timing_")
					}
				case *ast.CompositeLit:
					if id, ok := n.Type.(*ast.Ident); ok && id.Name == "retryOwed" {
						for _, el := range n.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == "timer" {
								reportAs(kv.Value, "timing_")
							}
						}
					}
					if id, ok := n.Type.(*ast.Ident); ok && id.Name == "Violation" {
						for _, el := range n.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == "Check" {
								report(kv.Value)
							}
						}
					}
				}
				return true
			})
		}
	}
	// Follow each parameter to the constants the package passes for it.
	for _, p := range owed {
		found := 0
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				c, ok := n.(*ast.CallExpr)
				if !ok || len(c.Args) <= p.idx {
					return true
				}
				var fn string
				switch f := c.Fun.(type) {
				case *ast.SelectorExpr:
					fn = f.Sel.Name
				case *ast.Ident:
					fn = f.Name
				}
				if fn != p.fn {
					return true
				}
				if v, ok := consts[identName(c.Args[p.idx])]; ok {
					sites = append(sites, reportSite{owedFile[p], p.prefix + v})
					found++
				}
				return true
			})
		}
		if found == 0 {
			t.Errorf("%s: %s passes a check name down, but no call passes it a constant", owedFile[p], p.fn)
		}
	}
	for file := range dynamicSites {
		if !dynamic[file] {
			t.Errorf("dynamicSites names %s, which has no computed check name any more", file)
		}
		for _, n := range dynamicSites[file] {
			sites = append(sites, reportSite{file, n})
		}
	}
	return sites
}

func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// TestRulesRegistered parses the package: every check name a violate
// call or a Violation literal reports, and every Check constant, is a
// registered rule; every registered rule judged here has a reporting site
// in its checker file. A checker that can report but is not registered,
// or a rule nothing reports, fails here.
func TestRulesRegistered(t *testing.T) {
	sites := reportSites(t)
	if len(sites) <= 200 {
		t.Fatalf("the parser lost the reporting sites: %d found", len(sites))
	}
	reported := map[string][]string{}
	for _, s := range sites {
		if !Registered(s.name) {
			t.Errorf("%s reports %q, a rule not in Rules", s.file, s.name)
		}
		reported[s.name] = append(reported[s.name], s.file)
	}
	_, files := packageSource(t)
	for n, v := range stringConsts(files) {
		if strings.HasPrefix(n, "Check") && !Registered(v) {
			t.Errorf("constant %s = %q names no registered rule", n, v)
		}
	}
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.Name] {
			t.Errorf("rule %s registered twice", r.Name)
		}
		seen[r.Name] = true
		if strings.Contains(r.Checker, "/") {
			continue // a rule judged outside this package, whose own tests cover it
		}
		if !slices.Contains(reported[r.Name], r.Checker) {
			t.Errorf("rule %s: its checker %s has no site reporting it (sites: %v)", r.Name, r.Checker, reported[r.Name])
		}
	}
}

// TestViolateRefusesUnregistered: a violation of a rule not in the
// registry panics, naming it.
func TestViolateRefusesUnregistered(t *testing.T) {
	l := NewLedger()
	panicked := func(name string) (v any) {
		defer func() { v = recover() }()
		l.violate(0, name, "x")
		return nil
	}
	if got, want := panicked("no_such_rule"), `check: violation of unregistered rule "no_such_rule" (add it to Rules)`; got != want {
		t.Fatalf("violate of an unregistered rule panicked with %v, want %q", got, want)
	}
	if got := panicked(CheckCapacityGate); got != nil {
		t.Fatalf("violate of a registered rule panicked: %v", got)
	}
}

// TestRulesComplete: every rule states its text, seed reference, facts
// and verdict, and every file it names exists.
func TestRulesComplete(t *testing.T) {
	root := filepath.Join("..", "..")
	exists := func(rule, p string) {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Errorf("rule %s names %s: %v", rule, p, err)
		}
	}
	for _, r := range Rules() {
		if r.Name == "" || r.Text == "" || r.Seed == "" || r.Facts == 0 || r.Verdict == 0 || len(r.Decided) == 0 || r.Checker == "" {
			t.Errorf("rule %+v lacks a field", r)
		}
		if strings.ContainsAny(r.Text, "\n") || strings.HasSuffix(r.Text, ".") {
			t.Errorf("rule %s: its text is one sentence without a final period", r.Name)
		}
		exists(r.Name, r.checkerPath())
		for _, d := range r.Decided {
			exists(r.Name, d)
		}
		if r.Scenario != "" {
			exists(r.Name, r.scenarioPath())
		}
	}
}

func (r Rule) checkerPath() string {
	if strings.Contains(r.Checker, "/") {
		return r.Checker
	}
	return "sim/check/" + r.Checker
}

func (r Rule) scenarioPath() string { return "scenarios/testdata/" + r.Scenario }

// TestFactAndVerdictNames covers the String methods.
func TestFactAndVerdictNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{(FromWire | FromHarness).String(), "wire+harness"},
		{Fact(0).String(), ""},
		{AfterStep.String(), "after step"},
		{AtEnd.String(), "at end"},
		{(AfterStep | AtEnd).String(), "after step, at end"},
		{Verdict(0).String(), "none"},
	} {
		if c.got != c.want {
			t.Errorf("String() = %q, want %q", c.got, c.want)
		}
	}
}

// docIndex renders doc.go's rule index: the rules by checker file, in
// registry order.
func docIndex() string {
	var files []string
	byFile := map[string][]string{}
	for _, r := range Rules() {
		if _, ok := byFile[r.Checker]; !ok {
			files = append(files, r.Checker)
		}
		byFile[r.Checker] = append(byFile[r.Checker], r.Name)
	}
	var b strings.Builder
	for _, f := range files {
		line := "//   - " + f + ":"
		for _, n := range byFile[f] {
			if len(line)+1+len(n)+1 > 78 {
				b.WriteString(line + "\n")
				line = "//    "
			}
			line += " " + n
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

const (
	docIndexBegin = "// Each violation carries the name of a rule it breaks. Rules is the\n" +
		"// registry, in report order, and the only statement of each rule; by\n" +
		"// checker file:\n//\n"
	docIndexEnd = "//\n// Timing oracles"
)

// TestDocIndex keeps doc.go's rule index equal to the registry: every
// rule named once, by its checker file, and no rule text.
func TestDocIndex(t *testing.T) {
	replaceBetween(t, "doc.go", docIndexBegin, docIndexEnd, docIndex())
}

// architectureTable renders ARCHITECTURE.md's rule table.
func architectureTable() string {
	link := func(p string) string { return "[`" + p + "`](" + p + ")" }
	var b strings.Builder
	b.WriteString("| Rule | Seed | Decided in | Checked by | Scenario |\n|---|---|---|---|---|\n")
	for _, r := range Rules() {
		var decided []string
		for _, d := range r.Decided {
			decided = append(decided, link(d))
		}
		scenario := "—"
		if r.Scenario != "" {
			scenario = link(r.scenarioPath())
		}
		b.WriteString("| `" + r.Name + "` | " + r.Seed + " | " + strings.Join(decided, ", ") + " | " +
			link(r.checkerPath()) + " | " + scenario + " |\n")
	}
	return b.String() + "\n"
}

const (
	archTableBegin = "<!-- The rows below are sim/check.Rules: go test ./sim/check -run TestArchitectureRuleTable -update -->\n\n"
	archTableEnd   = "<!-- end of the rule table -->"
)

// TestArchitectureRuleTable keeps ARCHITECTURE.md's rule table equal to
// the registry (TestRulesComplete checks that every file it names exists).
func TestArchitectureRuleTable(t *testing.T) {
	replaceBetween(t, filepath.Join("..", "..", "ARCHITECTURE.md"), archTableBegin, archTableEnd, architectureTable())
}

// replaceBetween checks that path holds want between begin and end, or
// writes it there with -update.
func replaceBetween(t *testing.T, path, begin, end, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, begin)
	if i < 0 {
		t.Fatalf("%s lacks the marker %q", path, begin)
	}
	i += len(begin)
	j := strings.Index(s[i:], end)
	if j < 0 {
		t.Fatalf("%s lacks the marker %q", path, end)
	}
	if *updateIndex {
		if err := os.WriteFile(path, []byte(s[:i]+want+s[i+j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := s[i : i+j]; got != want {
		t.Fatalf("%s is out of date: go test ./sim/check -run %s -update\n got: %q\nwant: %q", path, t.Name(), got, want)
	}
}

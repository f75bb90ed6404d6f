package check

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// Oracles are independent of the code they judge: the checkers never call
// a function or method of the machines (packages core and daemon, their
// subpackages included) nor read a package variable of theirs. Their
// types, struct fields and constants are vocabulary and stay allowed.
var machinePackages = []string{
	"github.com/turnstile-sim/turnstile/core",
	"github.com/turnstile-sim/turnstile/daemon",
}

// oracleAllowed lists the machine functions a checker may call, each with
// the reason it decides nothing.
var oracleAllowed = map[string]string{
	"github.com/turnstile-sim/turnstile/core.DescribeFrame":   "renders a frame for a message; judges nothing",
	"github.com/turnstile-sim/turnstile/daemon.DescribeFrame": "renders a frame for a message; judges nothing",
}

func machinePackage(path string) bool {
	for _, p := range machinePackages {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// oracleViolation reports a use of machine code: a function or method of
// a machine package, or one of its package variables.
func oracleViolation(id *ast.Ident, obj types.Object) string {
	if obj == nil || obj.Pkg() == nil || !machinePackage(obj.Pkg().Path()) {
		return ""
	}
	switch o := obj.(type) {
	case *types.Func:
		name := o.FullName()
		if _, ok := oracleAllowed[name]; ok {
			return ""
		}
		return "calls machine code " + name
	case *types.Var:
		if o.IsField() || o.Parent() != o.Pkg().Scope() {
			return ""
		}
		return "reads machine variable " + o.Pkg().Path() + "." + o.Name()
	}
	return ""
}

func oracleViolations(fset *token.FileSet, files []*ast.File, info *types.Info) []string {
	var out []string
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if msg := oracleViolation(id, info.Uses[id]); msg != "" {
					out = append(out, fset.Position(id.Pos()).String()+": "+msg)
				}
			}
			return true
		})
	}
	return out
}

func TestTidyOraclesCallNoMachineCode(t *testing.T) {
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	for _, p := range oraclePackages {
		files := machineFiles(t, fset, p.dir)
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.name, fset, files, info); err != nil {
			t.Fatalf("type check of %s: %v", p.name, err)
		}
		for _, msg := range oracleViolations(fset, files, info) {
			t.Error(msg)
		}
	}
}

// The rule catches calls, method calls, function values and package
// variables of both machines, and lets types, fields, constants and the
// allowlist through.
func TestTidyOracleRuleCatchesMachineCalls(t *testing.T) {
	testgate.Long(t) // the rule's own cases, each type-checked from source
	src := `package x
import (
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)
func f(s core.SessionRecord, st core.TurnState, m *core.Machine) {
	_ = core.Requirements(s, core.EngineProfile{}, false)
	_ = st.Terminal()
	_ = m.Devices()
	req := core.Requirements
	_ = req
	_ = daemon.DefaultLimits()
	_ = daemon.ErrInvalidConfig
	_ = s.Agent.Model
	_ = core.TurnCompleted
	_ = core.DescribeFrame(wire.Frame{})
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("x", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range oracleViolations(fset, []*ast.File{f}, info) {
		_, what, _ := strings.Cut(msg, ": ")
		got = append(got, what)
	}
	want := []string{
		"calls machine code github.com/turnstile-sim/turnstile/core.Requirements",
		"calls machine code (github.com/turnstile-sim/turnstile/core.TurnState).Terminal",
		"calls machine code (*github.com/turnstile-sim/turnstile/core.Machine).Devices",
		"calls machine code github.com/turnstile-sim/turnstile/core.Requirements",
		"calls machine code github.com/turnstile-sim/turnstile/daemon.DefaultLimits",
		"reads machine variable github.com/turnstile-sim/turnstile/daemon.ErrInvalidConfig",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

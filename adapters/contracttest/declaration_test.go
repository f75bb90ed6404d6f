package contracttest_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestEveryContractInterfaceIsClassified fails when package agent gains
// an interface the kit does not classify: a new contract must be judged
// by the completeness check from the day it exists.
func TestEveryContractInterfaceIsClassified(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("../agent/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("agent sources: %v", err)
	}
	var found []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if _, ok := ts.Type.(*ast.InterfaceType); ok && ts.Name.IsExported() {
					found = append(found, ts.Name.Name)
				}
			}
		}
	}
	var classified []string
	for _, c := range contracttest.Contracts() {
		classified = append(classified, c.Interface)
	}
	for _, name := range found {
		if !slices.Contains(classified, name) {
			t.Errorf("agent.%s is not classified in contracttest.Contracts", name)
		}
	}
	for _, name := range classified {
		if !slices.Contains(found, name) {
			t.Errorf("contracttest.Contracts classifies agent.%s, which does not exist", name)
		}
	}
}

func TestDeclarationNamesUndecidedCapabilities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		d := synthetic.Declaration(h)
		d.Capabilities.Usage = wire.CapabilityUnspecified
		d.Capabilities.Resume = wire.CapabilityUnspecified
		rep := contracttest.CheckDeclaration(d, contracttest.DeclarationOptions{Config: fixture(h).Config, Dir: "../synthetic"})
		for _, want := range []string{"capability usage is not decided", "capability resume is not decided"} {
			if !strings.Contains(rep.Failures(), "[declaration completeness] declaration: "+want) {
				t.Errorf("report lacks %q:\n%s", want, rep.Failures())
			}
		}
	})
}

func TestDeclarationNeedsEveryAssertion(t *testing.T) {
	src, err := os.ReadFile("../synthetic/contracts.go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var kept []string
	for line := range strings.Lines(string(src)) {
		if !strings.Contains(line, "agent.Steerer ") && !strings.Contains(line, "agent.WorkspaceWriter          = (*Executor)") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "contracts.go"), []byte(strings.Join(kept, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		fx := fixture(h)
		rep := contracttest.CheckDeclaration(synthetic.Declaration(h), contracttest.DeclarationOptions{
			Config: fx.Config, Dir: dir, Hold: fx.Hold})
		for _, want := range []string{"var _ agent.Steerer = (*Turn)(nil)", "var _ agent.WorkspaceWriter = (*Executor)(nil)"} {
			if !strings.Contains(rep.Failures(), "[declaration completeness] contracts.go: missing compile-time assertion "+want) {
				t.Errorf("report lacks %q:\n%s", want, rep.Failures())
			}
		}
	})
}

func TestDeclarationRefusesInstalledClaims(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		d := synthetic.Declaration(h)
		d.Capabilities.Steering = wire.CapabilityUnsupported // installed says supported
		rep := contracttest.CheckDeclaration(d, contracttest.DeclarationOptions{Config: fixture(h).Config, Dir: "../synthetic"})
		if !strings.Contains(rep.Failures(), "capability steering is installed supported but not declared") {
			t.Errorf("report:\n%s", rep.Failures())
		}
	})
}

// TestDeclarationRefusesDeclaredButRefused: a declaration that claims an
// operation the adapter refuses is a contract violation.
func TestDeclarationRefusesDeclaredButRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		d := synthetic.Declaration(h)
		d.Capabilities.FunctionTools = wire.CapabilitySupported
		discover := d.Discover
		d.Discover = func(ctx context.Context, p map[string]string, w io.Writer) (*agent.Runtime, error) {
			rt, err := discover(ctx, p, w)
			rt.Descriptor.Capabilities.FunctionTools = wire.CapabilitySupported
			return rt, err
		}
		fx := fixture(h)
		rep := contracttest.CheckDeclaration(d, contracttest.DeclarationOptions{Config: fx.Config, Dir: "../synthetic", Hold: fx.Hold})
		if !strings.Contains(rep.Failures(), "[declaration completeness] Turn.FunctionResultSubmitter: declared supported but answered Unsupported") {
			t.Errorf("report:\n%s", rep.Failures())
		}
	})
}

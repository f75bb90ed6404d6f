package contracttest

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// agentImportPath is the import path of the contract package.
const agentImportPath = "github.com/turnstile-sim/turnstile/adapters/agent"

// DeclarationOptions configure CheckDeclaration.
type DeclarationOptions struct {
	// Profile is handed to Discover; it must configure the adapter.
	Profile map[string]string
	// Config prepares the Executor and the preparation whose interfaces
	// are checked.
	Config agent.ExecutorConfig
	// Dir is the adapter package's directory, holding contracts.go.
	// Default "." (a test's working directory is its package).
	Dir string
	// Hold, when set, arms the next Turn to run until cancelled, so that
	// a durable input's receipt can be checked too.
	Hold func()
	// Timeout bounds each call. Default 10s.
	Timeout time.Duration
	// NotApplicable marks clauses of DeclarationClauses that cannot apply,
	// each with the reason the report prints.
	NotApplicable map[Clause]string
}

// Declaration runs CheckDeclaration and reports through t.
func Declaration(t testing.TB, d agent.Declaration, opts DeclarationOptions) {
	t.Helper()
	Assert(t, "Declaration", CheckDeclaration(d, opts))
}

// CheckDeclaration checks a declaration is complete and agrees with what
// the adapter implements: every capability member decided (each undecided
// one named); the declaration valid; discovery keeps the kind, renders a
// complete descriptor that claims nothing the declaration does not, and
// registers; the Preparation capability matches an installed Executor
// factory; every contract interface (Contracts) is implemented by the
// objects that own it — factories, an Executor, a Turn, a receipt (with
// Hold) and a Prepared — and asserted in the package's contracts.go
// (one `var _ agent.X = (*T)(nil)` line per interface and type); and
// no operation the declaration claims answers ErrUnsupportedOperation.
// Core admits a text Turn of the kind (ClauseCoreAdmits) only when the
// installed descriptor declares every capability Core requires of a
// text-only Turn without an environment (core.Requirements): a missing
// one leaves that clause unexercised, and it fails naming the capability
// unless DeclarationOptions.NotApplicable marks it. A descriptor that
// declares local_environment is held the same way against what Core
// requires of a Turn in a local Environment (ClauseCoreAdmitsLocal; not
// applicable, with the reason printed, without local_environment).
func CheckDeclaration(d agent.Declaration, opts DeclarationOptions) *Report {
	rep := checkDeclaration(d, opts)
	rep.judgeExercised(DeclarationClauses(), opts.NotApplicable, func(c Clause) string {
		if fails := rep.Result(ClauseDeclaration).Failures; len(fails) > 0 {
			return "the declaration could not be installed: " + fails[0]
		}
		return "discovery installed no available kind"
	})
	return rep
}

func checkDeclaration(d agent.Declaration, opts DeclarationOptions) *Report {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	rep := newReport()
	rep.exercise(ClauseDeclaration)
	checkDecided(rep, "declaration", d.Capabilities)
	if err := d.Validate(); err != nil {
		rep.fail(ClauseDeclaration, "Validate", "%v", err)
		return rep
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()
	rt, err := d.Discover(ctx, opts.Profile, io.Discard)
	switch {
	case err != nil:
		rep.fail(ClauseDeclaration, "Discover", "%v", err)
		return rep
	case rt == nil:
		rep.fail(ClauseDeclaration, "Discover", "returned nil: the profile does not configure the adapter, nothing to qualify")
		return rep
	}
	checkDescriptor(rep, d, rt)
	checkCoreAdmits(rep, d, rt)
	var reg agent.Registry
	if err := reg.Register(d, rt); err != nil {
		rep.fail(ClauseDeclaration, "Register", "%v", err)
	}
	objects := map[Owner]any{OwnerFactory: rt.Sessions}
	if rt.Executors != nil {
		objects[OwnerExecutorFactory] = rt.Executors
		collectExecutorObjects(rep, opts, d.Capabilities, rt.Executors, objects)
	}
	if rt.Preparations != nil {
		objects[OwnerPreparationFactory] = rt.Preparations
		cfg, done := withWorkspace(opts.Config)
		defer done()
		if p, err := rt.Preparations.Prepare(ctx, cfg); err != nil || p == nil {
			rep.fail(ClauseDeclaration, "Prepare", "%v", err)
		} else {
			objects[OwnerPrepared] = p
			defer func() { _ = p.Release(context.Background()) }()
		}
	}
	checkImplemented(rep, objects)
	checkAssertions(rep, opts.Dir, objects)
	return rep
}

// checkCoreAdmits holds the installed descriptor against what Core
// requires of every text Turn without an environment: each capability
// Core requires and the descriptor declares exercises the clause once; a
// missing one means Core refuses every such Turn.
func checkCoreAdmits(rep *Report, d agent.Declaration, rt *agent.Runtime) {
	checkCoreAdmitsLocal(rep, d, rt)
	if !rt.Descriptor.Available {
		rep.notExercisedBecause(ClauseCoreAdmits, "discovery installed the kind unavailable: Core refuses its Turns")
		return
	}
	s := core.SessionRecord{Agent: core.AgentConfig{Kind: d.Kind, Environment: core.EnvNone}}
	required := core.Requirements(s, core.EngineProfile{}, false)
	var missing []string
	for _, name := range required {
		if v, ok := rt.Descriptor.Capabilities.Lookup(name); !ok || !v.IsSupported() {
			missing = append(missing, "`"+name+"`")
		}
	}
	if len(missing) > 0 {
		rep.notExercisedBecause(ClauseCoreAdmits, "Core refuses every Turn: capability %s not declared (undeclared of what Core requires of every text Turn: %s)",
			missing[0], strings.Join(missing, ", "))
		return
	}
	rep.clause(ClauseCoreAdmits).Exercised += len(required)
}

// checkCoreAdmitsLocal holds a descriptor that declares local_environment
// against what Core requires of a text Turn in a local Environment (a
// self_hosted or openai_hosted Session): a missing capability means Core
// refuses every such Turn although the kind claims to run there. A kind
// without local_environment makes the clause not applicable.
func checkCoreAdmitsLocal(rep *Report, d agent.Declaration, rt *agent.Runtime) {
	if !rt.Descriptor.Capabilities.LocalEnvironment.IsSupported() {
		rep.notApplicable(ClauseCoreAdmitsLocal, "the kind does not declare `local_environment`: Core admits its Turns only without an environment")
		return
	}
	if !rt.Descriptor.Available {
		rep.notExercisedBecause(ClauseCoreAdmitsLocal, "discovery installed the kind unavailable: Core refuses its Turns")
		return
	}
	s := core.SessionRecord{Agent: core.AgentConfig{Kind: d.Kind, Environment: core.EnvSelfHosted}}
	required := core.Requirements(s, core.EngineProfile{}, false)
	var missing []string
	for _, name := range required {
		if v, ok := rt.Descriptor.Capabilities.Lookup(name); !ok || !v.IsSupported() {
			missing = append(missing, "`"+name+"`")
		}
	}
	if len(missing) > 0 {
		rep.notExercisedBecause(ClauseCoreAdmitsLocal, "Core refuses every Turn in a local Environment: capability %s not declared "+
			"(undeclared of what Core requires of a text Turn in a local Environment: %s)", missing[0], strings.Join(missing, ", "))
		return
	}
	rep.clause(ClauseCoreAdmitsLocal).Exercised += len(required)
}

// checkDecided names every capability member left unspecified.
func checkDecided(rep *Report, where string, c wire.AgentKindCapabilities) {
	for _, f := range c.Fields() {
		if !f.Value.Valid() {
			rep.fail(ClauseDeclaration, where, "capability %s is not decided: set it supported or unsupported", f.Name)
		}
	}
}

func checkDescriptor(rep *Report, d agent.Declaration, rt *agent.Runtime) {
	desc := rt.Descriptor
	if desc.Kind != d.Kind {
		rep.fail(ClauseDeclaration, "Discover", "descriptor kind differs from the declared kind")
	}
	checkDecided(rep, "descriptor", desc.Capabilities)
	declared, installed := d.Capabilities, desc.Capabilities
	df, inf := declared.Fields(), installed.Fields()
	for i := range df {
		if inf[i].Value.IsSupported() && !df[i].Value.IsSupported() {
			rep.fail(ClauseDeclaration, "descriptor", "capability %s is installed supported but not declared", df[i].Name)
		}
	}
	if rt.Sessions == nil {
		rep.fail(ClauseDeclaration, "Discover", "no direct-call Factory installed")
	}
	if d.Capabilities.Preparation.IsSupported() != (rt.Executors != nil) && desc.Available {
		rep.fail(ClauseDeclaration, "Discover", "capability preparation is %s but an Executor factory is %s",
			support(d.Capabilities.Preparation), installedWord(rt.Executors != nil))
	}
}

func support(s wire.CapabilitySupport) string {
	if s.IsSupported() {
		return "supported"
	}
	return "unsupported"
}

func installedWord(ok bool) string {
	if ok {
		return "installed"
	}
	return "not installed"
}

// collectExecutorObjects prepares an Executor, starts one Turn and (with
// Hold) writes one durable input, to check the interfaces each implements.
func collectExecutorObjects(rep *Report, opts DeclarationOptions, caps wire.AgentKindCapabilities, f agent.ExecutorFactory, objects map[Owner]any) {
	fx := Fixture{Config: opts.Config, Capabilities: caps, Hold: opts.Hold, Timeout: opts.Timeout}.withDefaults()
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return
	}
	defer closeExecutor(rep, fx, ex)
	objects[OwnerExecutor] = ex
	if opts.Hold != nil {
		opts.Hold()
	}
	r := start(rep, fx, ex, "declaration-1", fx.Input)
	if r.turn == nil {
		rep.fail(ClauseDeclaration, r.runID, "a Turn did not start: %v", r.startErr)
		return
	}
	objects[OwnerTurn] = r.turn
	checkDeclaredNotRefused(rep, fx, map[Owner]any{OwnerExecutor: ex, OwnerTurn: r.turn}, r.runID)
	if opts.Hold != nil {
		if rc, err := steer(fx, r, "declaration-input", "declaration"); err == nil && rc != nil {
			objects[OwnerReceipt] = rc
		}
		cancelTurn(rep, fx, r)
	}
	settle(rep, fx, r)
}

// checkDeclaredNotRefused calls every extension the declaration claims;
// answering ErrUnsupportedOperation for it is a contract violation.
func checkDeclaredNotRefused(rep *Report, fx Fixture, objects map[Owner]any, runID string) {
	for _, c := range Contracts() {
		if c.Required || c.Capability == nil || !c.Capability(fx.Capabilities).IsSupported() {
			continue
		}
		for _, o := range c.Owners {
			v, ok := objects[o]
			if !ok || !c.Implemented(v) {
				continue
			}
			if err := call(fx, c, v, runID, canary); errors.Is(err, agent.ErrUnsupportedOperation) {
				rep.fail(ClauseDeclaration, string(o)+"."+c.Interface, "declared supported but answered Unsupported")
			}
		}
	}
}

func checkImplemented(rep *Report, objects map[Owner]any) {
	for _, c := range Contracts() {
		for _, o := range c.Owners {
			v, ok := objects[o]
			if ok && !c.Implemented(v) {
				rep.fail(ClauseDeclaration, string(o), "%s does not implement agent.%s", typeName(v), c.Interface)
			}
		}
	}
}

func typeName(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// checkAssertions reads the compile-time assertions of dir/contracts.go
// and requires one per contract interface each owner object implements.
func checkAssertions(rep *Report, dir string, objects map[Owner]any) {
	path := filepath.Join(dir, "contracts.go")
	have, err := parseAssertions(path)
	if err != nil {
		rep.fail(ClauseDeclaration, "contracts.go", "%v", err)
		return
	}
	pkg := packagePath(objects)
	var missing []string
	for _, c := range Contracts() {
		for _, o := range c.Owners {
			v, ok := objects[o]
			if !ok || !c.Implemented(v) || !samePackage(v, pkg) {
				continue
			}
			pair := typeName(v) + " " + c.Interface
			if !have[pair] {
				missing = append(missing, fmt.Sprintf("var _ agent.%s = (*%s)(nil)", c.Interface, typeName(v)))
			}
		}
	}
	slices.Sort(missing)
	for _, m := range slices.Compact(missing) {
		rep.fail(ClauseDeclaration, "contracts.go", "missing compile-time assertion %s", m)
	}
}

// packagePath is the adapter's package: that of its Turn, else of the
// first owner object found. Objects of other packages (shared helpers)
// are asserted where they are defined.
func packagePath(objects map[Owner]any) string {
	for _, o := range []Owner{OwnerTurn, OwnerExecutor, OwnerExecutorFactory, OwnerFactory, OwnerPrepared} {
		if v, ok := objects[o]; ok {
			return pkgOf(v)
		}
	}
	return ""
}

func pkgOf(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath()
}

func samePackage(v any, pkg string) bool { return pkg == "" || pkgOf(v) == pkg }

// parseAssertions returns "Type Interface" for every `var _ agent.I = X`
// declaration of the file, where X is (*T)(nil), T(nil), T{} or &T{}.
func parseAssertions(path string) (map[string]bool, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot read the compile-time assertions: %w", err)
	}
	alias := "agent"
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == agentImportPath && imp.Name != nil {
			alias = imp.Name.Name
		}
	}
	have := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "_" || len(vs.Values) != 1 {
			return true
		}
		sel, ok := vs.Type.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); !ok || id.Name != alias {
			return true
		}
		if t := assertedType(vs.Values[0]); t != "" {
			have[t+" "+sel.Sel.Name] = true
		}
		return true
	})
	return have, nil
}

func assertedType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.CallExpr: // (*T)(nil) or T(nil)
		return typeIdent(x.Fun)
	case *ast.CompositeLit: // T{}
		return typeIdent(x.Type)
	case *ast.UnaryExpr: // &T{}
		return assertedType(x.X)
	}
	return ""
}

func typeIdent(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return typeIdent(x.X)
	case *ast.StarExpr:
		return typeIdent(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return typeIdent(x.X)
	}
	return ""
}

package sim

import (
	"go/ast"
	"go/parser"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// Each case is a small in-memory package file; want is the rule that must
// fire ("" when the snippet is clean).
var guardCases = []struct {
	name, rel, file, want, src string
}{
	{"time.Now", "core", "a.go", "time", `import "time"; func f() time.Time { return time.Now() }`},
	{"time.Since", "core", "a.go", "time", `import "time"; func f(t time.Time) time.Duration { return time.Since(t) }`},
	{"time.Until", "wire", "a.go", "time", `import "time"; func f(t time.Time) time.Duration { return time.Until(t) }`},
	{"time.Sleep", "daemon", "a.go", "time", `import "time"; func f() { time.Sleep(1) }`},
	{"time.After", "sim", "a.go", "time", `import "time"; func f() { _ = time.After }`},
	{"time.AfterFunc", "sim", "a.go", "time", `import "time"; func f() { time.AfterFunc(1, nil) }`},
	{"time.NewTimer", "sim/internal/x", "a.go", "time", `import "time"; func f() { time.NewTimer(1) }`},
	{"time.NewTicker", "core/store", "a.go", "time", `import "time"; func f() { time.NewTicker(1) }`},
	{"time.Tick", "core", "a.go", "time", `import "time"; func f() { time.Tick(1) }`},
	{"aliased time", "core", "a.go", "time", `import clk "time"; func f() { clk.Now() }`},
	{"time types ok", "core", "a.go", "", `import "time"; func f(t time.Time, d time.Duration) time.Time { return t.Add(d) }`},
	{"shadowed time ok", "core", "a.go", "", `import "time"; var _ time.Duration; type c struct{}; func (c) Now() int { return 0 }; func f() int { time := c{}; return time.Now() }`},
	{"go statement", "core", "a.go", "go", `func f() { go f() }`},
	{"chan type", "core", "a.go", "channel", `var c chan int`},
	{"chan send", "core", "a.go", "channel", `func f(c chan<- int) { c <- 1 }`},
	{"chan receive", "core", "a.go", "channel", `func f(c <-chan int) int { return <-c }`},
	{"select", "core", "a.go", "select", `func f() { select {} }`},
	{"global rand v2", "core", "a.go", "global-rand", `import "math/rand/v2"; func f() int { return rand.IntN(3) }`},
	{"global rand v1", "daemon", "a.go", "global-rand", `import "math/rand"; func f() { rand.Shuffle(1, nil) }`},
	{"seeded rand ok", "core", "a.go", "", `import "math/rand/v2"; func f(r *rand.Rand) int { x := rand.New(rand.NewPCG(1, 2)); return r.IntN(3) + x.IntN(2) }`},
	{"crypto/rand", "core", "a.go", "import", `import _ "crypto/rand"`},
	{"os", "wire", "a.go", "import", `import _ "os"`},
	{"os/exec", "wire", "a.go", "import", `import _ "os/exec"`},
	{"net", "daemon", "a.go", "import", `import _ "net"`},
	{"net/http", "core", "a.go", "import", `import _ "net/http"`},
	{"sync", "sim", "a.go", "import", `import _ "sync"`},
	{"sync/atomic", "sim", "a.go", "import", `import _ "sync/atomic"`},
	{"plain map append", "core", "a.go", "map-range",
		`func f(m map[string]int) (out []int) { for k, v := range m { out = append(out, len(k)+v) }; return }`},
	{"map range output", "core", "a.go", "map-range",
		`func f(m map[string]int, emit func(string)) { for k := range m { emit(k) } }`},
	{"first match", "daemon", "a.go", "map-range",
		`func f(m map[string]int) string { for k, v := range m { if v > 0 { return k } }; return "" }`},
	{"last write", "daemon", "a.go", "map-range",
		`func f(m map[string]int) (x int) { for _, v := range m { x = v }; return }`},
	{"map via struct field", "core", "a.go", "map-range",
		`type s struct{ m map[int]bool }; func f(x *s) (o []int) { for k := range x.m { o = append(o, k) }; return }`},
	{"collect then sort ok", "core", "a.go", "",
		`import "slices"; func f(m map[string]int) []string { var ks []string; for k, v := range m { if v > 0 { ks = append(ks, k) } }; slices.Sort(ks); return ks }`},
	{"collect values then sortfunc ok", "core", "a.go", "",
		`import "sort"; func f(m map[string]int) []int { var vs []int; for _, v := range m { vs = append(vs, v) }; sort.Ints(vs); return vs }`},
	{"count ok", "daemon", "a.go", "",
		`func f(m map[string]int) (n int) { for _, v := range m { if v > 1 { n++ } }; return }`},
	{"assert ok", "daemon", "a.go", "",
		`func assert(bool, string) {}; func f(m map[string]int) { for k, v := range m { assert(v > 0, k) } }`},
	{"assert scope ok", "daemon", "a.go", "",
		`type scope string; func (scope) That(bool, string, ...any) {}; const assert = scope(""); func f(m map[string]int) { for k, v := range m { assert.That(v > 0, k) } }`},
	{"panicf ok", "daemon", "a.go", "",
		`func panicf(string, ...any) {}; func f(m map[string]int) { for k, v := range m { if v < 0 { panicf("bad %s", k) } } }`},
	{"delete ok", "daemon", "a.go", "",
		`func f(m map[string]int) { for k := range m { delete(m, k) } }`},
	{"constant early exit ok", "daemon", "a.go", "",
		`func f(m map[string]int) bool { for _, v := range m { if v < 0 { return false } }; return true }`},
	{"justified", "core", "a.go", "",
		"func f(m map[string]int, emit func(string)) {\n\t//tidy:sorted emit is a set insert\n\tfor k := range m { emit(k) }\n}"},
	{"slice range ok", "core", "a.go", "", `func f(s []int) (n int) { for _, v := range s { n = v }; return }`},
	{"core imports daemon", "core", "a.go", "import-direction", `import _ "github.com/turnstile-sim/turnstile/daemon"`},
	{"shell imports daemon", "core/gateway", "a.go", "import-direction", `import _ "github.com/turnstile-sim/turnstile/daemon/transport"`},
	{"daemon imports core/store", "daemon", "a.go", "import-direction", `import _ "github.com/turnstile-sim/turnstile/core/store"`},
	{"shell may use net and goroutines", "daemon/transport", "a.go", "", `import _ "net"; func f() { go f() }`},
	{"allowlisted file still no time.Now", "sim", "audit.go", "time", `import "time"; func f() { time.Now() }`},
	// dot imports
	{"dot-import time", "core", "a.go", "dot-import", `import . "time"; var _ Duration`},
	{"dot-imported Now", "core", "a.go", "time", `import . "time"; func f() Time { return Now() }`},
	{"dot-imported Sleep value", "daemon", "a.go", "time", `import . "time"; var f = Sleep`},
	{"dot-import rand", "daemon", "a.go", "dot-import", `import . "math/rand/v2"; func f(r *Rand) int { return r.IntN(2) }`},
	{"dot-imported IntN", "sim", "a.go", "global-rand", `import . "math/rand/v2"; func f() int { return IntN(3) }`},
	{"dot-imported rand v1", "sim", "a.go", "global-rand", `import . "math/rand"; func f() int { return Intn(3) }`},
	{"dot-import maps", "sim", "a.go", "dot-import", `import . "maps"; func f(m map[int]int) map[int]int { return Clone(m) }`},
	// newly banned imports
	{"clock in a machine", "sim", "a.go", "import", `import _ "github.com/benbjohnson/clock"`},
	{"clock in core", "core", "a.go", "import", `import _ "github.com/benbjohnson/clock"`},
	{"runtime in the auditor ok", "sim", "audit.go", "", `import _ "runtime"`},
	{"log", "core", "a.go", "import", `import _ "log"`},
	{"log/slog", "sim", "a.go", "import", `import _ "log/slog"`},
	{"runtime", "daemon", "a.go", "import", `import _ "runtime"`},
	{"runtime/debug", "sim", "a.go", "import", `import _ "runtime/debug"`},
	{"syscall", "wire", "a.go", "import", `import _ "syscall"`},
	{"unsafe", "wire", "a.go", "import", `import _ "unsafe"`},
	{"runtime in the auditor ok", "sim", "audit.go", "", `import _ "runtime"`},
	{"the auditor still no sync", "sim", "audit.go", "import", `import _ "sync"`},
	{"reflect ok", "wire", "a.go", "", `import _ "reflect"`},
	// maps iterators
	{"collect keys", "core", "a.go", "maps-iter",
		`import ("maps"; "slices"); func f(m map[string]int) []string { return slices.Collect(maps.Keys(m)) }`},
	{"values to a function", "daemon", "a.go", "maps-iter",
		`import ("iter"; "maps"); func use(iter.Seq[int]) {}; func f(m map[string]int) { use(maps.Values(m)) }`},
	{"all stored", "sim", "a.go", "maps-iter",
		`import "maps"; func f(m map[string]int) { s := maps.All(m); _ = s }`},
	{"aliased maps", "sim", "a.go", "maps-iter",
		`import ("slices"; mp "maps"); func f(m map[string]int) []int { return slices.Collect(mp.Values(m)) }`},
	{"dot-imported Keys", "sim", "a.go", "maps-iter",
		`import ("slices"; . "maps"); func f(m map[string]int) []string { return slices.Collect(Keys(m)) }`},
	{"range keys leaks", "core", "a.go", "map-range",
		`import "maps"; func f(m map[string]int, emit func(string)) { for k := range maps.Keys(m) { emit(k) } }`},
	{"range all leaks", "core", "a.go", "map-range",
		`import "maps"; func f(m map[string]int) (out []string) { for k := range maps.All(m) { out = append(out, k) }; return }`},
	{"range keys order-free ok", "core", "a.go", "",
		`import "maps"; func f(m map[string]int) (n int) { for k := range maps.Keys(m) { n += len(k) }; return }`},
	{"sorted keys ok", "core", "a.go", "",
		`import ("maps"; "slices"); func f(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }`},
	{"sorted values func ok", "daemon", "a.go", "",
		`import ("cmp"; "maps"; "slices"); func f(m map[string]int) []int { return slices.SortedFunc(maps.Values(m), cmp.Compare[int]) }`},
	{"justified collect ok", "sim", "a.go", "",
		"import (\"maps\"; \"slices\")\nfunc f(m map[string]int) []string {\n\treturn slices.Collect(maps.Keys(m)) //tidy:sorted set of one\n}"},
	{"maps.Clone ok", "sim", "a.go", "", `import "maps"; func f(m map[string]int) map[string]int { return maps.Clone(m) }`},
	// import edges (STYLE.md §3)
	{"wire imports the module", "wire", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/core"`},
	{"wire imports a library", "wire", "a.go", "import-edge", `import _ "pgregory.net/rapid"`},
	{"wire subpackage imports a library", "wire/x", "a.go", "import-edge", `import _ "github.com/a/b"`},
	{"wire imports invariant ok", "wire", "a.go", "", `import _ "github.com/turnstile-sim/turnstile/internal/invariant"`},
	{"machine imports invariant ok", "core", "a.go", "", `import _ "github.com/turnstile-sim/turnstile/internal/invariant"`},
	{"wire stdlib ok", "wire", "a.go", "", `import ("encoding/json"; "unicode/utf8"); var _ json.Number; var _ = utf8.RuneLen`},
	{"core imports a stdlib package off the allowlist", "core", "a.go", "import-edge", `import _ "encoding/json"`},
	{"daemon imports a library", "daemon", "a.go", "import-edge", `import _ "pgregory.net/rapid"`},
	{"core imports sim/check", "core", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/sim/check"`},
	{"core imports its store", "core", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/core/store"`},
	{"daemon imports adapters/agent", "daemon", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/adapters/agent"`},
	{"core allowlist ok", "core", "a.go", "",
		`import ("github.com/turnstile-sim/turnstile/wire"; "time"; "strconv"; "errors"); var _ wire.Frame; var _ time.Duration; var _ = strconv.Itoa; var _ = errors.New`},
	{"core/store imports sim", "core/store", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/sim"`},
	{"core/store imports core ok", "core/store", "a.go", "", `import _ "github.com/turnstile-sim/turnstile/core"`},
	{"core shell imports adapters", "core/gateway", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/adapters/agent"`},
	{"runtime shell imports agent ok", "daemon/transport", "a.go", "", `import ("github.com/turnstile-sim/turnstile/daemon"; _ "github.com/turnstile-sim/turnstile/adapters/agent")`},
	{"runtime shell imports core/store", "daemon/transport", "a.go", "import-direction", `import _ "github.com/turnstile-sim/turnstile/core/store"`},
	{"effect runner drives the machine over the transport", "daemon/runner", "a.go", "", `import ("github.com/turnstile-sim/turnstile/daemon"; _ "github.com/turnstile-sim/turnstile/daemon/transport"; _ "github.com/turnstile-sim/turnstile/adapters/agent"); func f() { go f() }`},
	{"effect runner imports a concrete adapter", "daemon/runner", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/adapters/synthetic"`},
	{"sim imports the effect runner", "sim/harness", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/daemon/runner"`},
	{"sim imports a core shell", "sim", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/core/gateway"`},
	{"sim/world imports a runtime shell", "sim/world", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/daemon/transport"`},
	{"sim imports an adapter", "sim/harness", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/adapters/synthetic"`},
	{"sim imports the api shell", "sim/check", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/core/api/v1"`},
	{"sqlite store shell opens files ok", "core/store/sqlitestore", "a.go", "",
		`import ("database/sql"; "os"; "sync"; "github.com/turnstile-sim/turnstile/core"; _ "modernc.org/sqlite"; _ "modernc.org/sqlite/lib"); var _ sync.Mutex; var _ = os.MkdirAll; var _ sql.DB; var _ core.Store`},
	{"core/store imports the sqlite driver", "core/store", "a.go", "import-edge", `import _ "modernc.org/sqlite"`},
	{"postgres store shell connects ok", "core/store/pgstore", "a.go", "",
		`import ("net"; "sync"; "github.com/jackc/pgx/v5/pgxpool"); var _ sync.Mutex; var _ net.Conn; var _ *pgxpool.Pool`},
	{"core/server imports the postgres driver", "core/server", "a.go", "import-edge", `import _ "github.com/jackc/pgx/v5"`},
	{"gateway imports the sqlite driver", "core/gateway", "a.go", "import-edge", `import _ "zombiezen.com/go/sqlite"`},
	{"sim imports the sqlite store", "sim/world", "a.go", "import-edge", `import _ "github.com/turnstile-sim/turnstile/core/store/sqlitestore"`},
	{"server loop shell ok", "core/server", "a.go", "",
		`import ("context"; "sync"; "github.com/benbjohnson/clock"; "github.com/prometheus/client_golang/prometheus"; "github.com/turnstile-sim/turnstile/core"); var _ sync.Mutex; var _ context.Context; var _ clock.Clock; var _ prometheus.Gauge; var _ core.Store`},
	{"gateway shell imports websocket ok", "core/gateway/scripted", "a.go", "", `import _ "github.com/coder/websocket"`},
	{"api imports websocket", "core/api", "a.go", "import-edge", `import _ "github.com/coder/websocket"`},
	{"gateway imports prometheus", "core/gateway", "a.go", "import-edge", `import _ "github.com/prometheus/client_golang/prometheus"`},
	{"core machine imports websocket", "core", "a.go", "import-edge", `import _ "github.com/coder/websocket"`},
	{"storetest is a machine package", "core/store/storetest", "a.go", "import", `import _ "os"`},
	{"sim imports machines ok", "sim/world", "a.go", "",
		`import (_ "github.com/turnstile-sim/turnstile/core"; _ "github.com/turnstile-sim/turnstile/core/store"; _ "github.com/turnstile-sim/turnstile/daemon"; _ "github.com/turnstile-sim/turnstile/wire"; _ "github.com/turnstile-sim/turnstile/sim/check")`},
}

func TestDeterminismGuardRules(t *testing.T) {
	testgate.Long(t) // the guard's own cases, each type-checked from source
	g := newGuard()
	for _, tc := range guardCases {
		t.Run(tc.name, func(t *testing.T) {
			src := "package x\n" + tc.src + "\n"
			f, err := parser.ParseFile(g.fset, tc.file, src, parser.ParseComments)
			if err != nil {
				t.Fatalf("snippet does not parse: %v", err)
			}
			found := g.checkPackage(tc.rel, []*ast.File{f}, !isShell(tc.rel))
			var rules []string
			for _, fd := range found {
				rules = append(rules, fd.rule)
			}
			switch {
			case tc.want == "" && len(found) > 0:
				t.Fatalf("clean snippet flagged: %v", found)
			case tc.want != "" && !strings.Contains(strings.Join(rules, ","), tc.want):
				t.Fatalf("rule %s did not fire; got %v", tc.want, found)
			}
		})
	}
}

// The guard reads every non-test file of a package, whatever its build
// constraints or target platform.
func TestDeterminismGuardScansEveryFile(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"core/machine.go":      "package core\n\nfunc Step() int { return 1 }\n",
		"core/zz_windows.go":   "package core\n\nimport \"time\"\n\nfunc wait() { time.Sleep(1) }\n",
		"core/tagged.go":       "//go:build sometag\n\npackage core\n\nfunc spawn() { go spawn() }\n",
		"core/machine_test.go": "package core\n\nimport \"os\"\n\nvar _ = os.Args\n",
		"wire/gen.go":          "//go:build ignore\n\npackage main\n\nimport \"os\"\n\nfunc main() { os.Exit(0) }\n",
	}
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	found, scanned := newGuard().scanTree(t, root)
	var got []string
	for _, f := range found {
		got = append(got, f.pos+" "+f.rule)
	}
	want := []string{"core/tagged.go:5 go", "core/zz_windows.go:5 time", "wire/gen.go:5 import"}
	slices.Sort(got)
	if scanned != 2 || !slices.Equal(got, want) {
		t.Fatalf("scanned %d packages, found %v, want %v", scanned, got, want)
	}
}

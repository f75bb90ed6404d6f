package sim

import (
	"go/ast"
	"go/parser"
	"strings"
	"testing"
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
	{"allowlisted file channels ok", "sim", "shellclock.go", "", `import "sync"; var mu sync.Mutex; func f(c chan int) { go f(c); c <- 1 }`},
	{"allowlisted file still no time.Now", "sim", "shellclock.go", "time", `import "time"; func f() { time.Now() }`},
}

func TestDeterminismGuardRules(t *testing.T) {
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

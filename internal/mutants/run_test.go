package mutants

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// fakeModule is a tiny module with the shape the runner needs: a wire
// package with a limit and its unit test, and a cmd/turnstile whose
// `sim -json` fails every third seed (check "limit") when the limit is not
// 64, and panics-only seeds when it is 63.
var fakeModule = map[string]string{
	"go.mod": "module example.com/fake\n\ngo 1.22\n",
	"wire/limit.go": `package wire

// Limit is the documented limit.
const Limit = 64
`,
	"wire/limit_test.go": `package wire

import "testing"

func TestLimit(t *testing.T) {
	if Limit != 64 {
		t.Fatal(Limit)
	}
}
`,
	"cmd/turnstile/main.go": `package main

import (
	"flag"
	"fmt"
	"os"

	"example.com/fake/wire"
)

func main() {
	fs := flag.NewFlagSet("sim", flag.ExitOnError)
	seeds := fs.Int("seeds", 1, "")
	fs.Bool("json", false, "")
	fs.Int("workers", 1, "")
	fs.Uint64("first", 1, "")
	fs.String("commit", "", "")
	untilFail := fs.Bool("until-fail", false, "")
	fs.String("out", "", "")
	fs.Parse(os.Args[2:])
	fmt.Println(` + "`" + `{"first":1,"seeds":1}` + "`" + `)
	failed := false
	for s := 1; s <= *seeds; s++ {
		check := ""
		if wire.Limit != 64 && s%3 == 0 {
			check = "limit"
			if wire.Limit == 63 {
				check = "panic"
			}
		}
		if check == "" {
			fmt.Printf("{\"seed\":%d,\"violations\":[]}\n", s)
			continue
		}
		failed = true
		fmt.Printf("{\"seed\":%d,\"violations\":[{\"check\":%q}]}\n", s, check)
		if *untilFail {
			break
		}
	}
	if failed {
		os.Exit(1)
	}
}
`,
}

func fakeRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range fakeModule {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

func TestRunMeasuresEachMutantInItsOwnCopy(t *testing.T) {
	testgate.Long(t) // five builds and unit test runs of a scratch module
	root := fakeRepo(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	limit := func(name, new string) Mutant {
		return Mutant{Name: name, Family: "wire/limits", File: "wire/limit.go", Old: "Limit = 64", New: new}
	}
	ms := []Mutant{
		limit("001-limit-65", "Limit = 65"),
		limit("002-limit-63", "Limit = 63"),
		{Name: "003-comment", Family: "wire/limits", File: "wire/limit.go", Old: "documented", New: "written"},
		{Name: "004-stale", Family: "wire/limits", File: "wire/limit.go", Old: "Limit = 99", New: "Limit = 1"},
		limit("005-no-build", "Limit = 64 +"),
	}
	var log bytes.Buffer
	var calls int
	o := Options{Root: root, Scratch: t.TempDir(), Out: t.TempDir(), Seeds: 7, Workers: 1, Jobs: 2, Unit: true,
		Timeout: 5 * time.Minute, Go: goCmd, Log: &log, Done: func([]Result) { calls++ }}
	rs, err := Run(context.Background(), o, ms)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		status     Status
		first      uint64
		failing    int
		check      string
		unit       Unit
		detailPart string
	}
	want := []row{
		{StatusCaught, 3, 2, "limit", UnitCaught, ""},
		{StatusPanicOnly, 3, 2, "panic", UnitCaught, ""},
		{StatusMissed, 0, 0, "", UnitMissed, ""},
		{StatusStale, 0, 0, "", UnitSkipped, "occurs 0 times"},
		{StatusBuildFailed, 0, 0, "", UnitSkipped, "limit.go"},
	}
	for i, w := range want {
		r := rs[i]
		got := row{r.Status, r.FirstSeed, r.FailingSeeds, r.FirstCheck, r.Unit, ""}
		if w.detailPart != "" && strings.Contains(r.Detail, w.detailPart) {
			got.detailPart = w.detailPart
		}
		if got != w {
			t.Errorf("%s: got %+v (detail %q), want %+v", r.Name, got, r.Detail, w)
		}
	}
	if rs[0].Seeds != 7 || calls != len(ms) {
		t.Errorf("seeds %d, Done called %d times", rs[0].Seeds, calls)
	}
	// The original tree is untouched and every campaign left a log.
	if b, _ := os.ReadFile(filepath.Join(root, "wire", "limit.go")); !strings.Contains(string(b), "Limit = 64\n") {
		t.Errorf("the original tree was mutated:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(o.Out, "logs", "001-limit-65.txt")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(log.String(), "001-limit-65: yes (first seed 3, 2 failing, first check limit); unit tests yes") {
		t.Errorf("progress log:\n%s", log.String())
	}
}

func TestRunUntilCaughtStopsAtTheFirstFailingSeed(t *testing.T) {
	root := fakeRepo(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	ms := []Mutant{
		{Name: "001-limit-65", Family: "wire/limits", File: "wire/limit.go", Old: "Limit = 64", New: "Limit = 65"},
		{Name: "002-comment", Family: "wire/limits", File: "wire/limit.go", Old: "documented", New: "written"},
	}
	o := Options{Root: root, Scratch: t.TempDir(), Seeds: 7, Workers: 1, Jobs: 1, UntilCaught: true,
		Timeout: 5 * time.Minute, Go: goCmd}
	rs, err := Run(context.Background(), o, ms)
	if err != nil {
		t.Fatal(err)
	}
	if r := rs[0]; r.Status != StatusCaught || r.FirstSeed != 3 || r.FailingSeeds != 1 || r.Seeds != 3 {
		t.Errorf("caught mutant: got %+v, want caught at seed 3 after 3 seeds", r)
	}
	if r := rs[1]; r.Status != StatusMissed || r.Seeds != 7 {
		t.Errorf("missed mutant: got %+v, want missed after all 7 seeds", r)
	}
}

package example_test

import (
	"bufio"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// guideStep is one fenced block of the guide.
type guideStep struct {
	lang, from, text string
	line             int
}

// readGuide returns the fenced blocks of adapters/README.md with the
// source file each Go excerpt names (an HTML comment on the line before).
func readGuide(t *testing.T) []guideStep {
	t.Helper()
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []guideStep
	var cur *guideStep
	from := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "<!-- from: "):
			from = strings.TrimSuffix(strings.TrimPrefix(line, "<!-- from: "), " -->")
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &guideStep{lang: strings.TrimPrefix(line, "```"), from: from, line: n}
			from = ""
		case cur != nil && line == "```":
			cur.text = strings.TrimSuffix(cur.text, "\n")
			steps = append(steps, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return steps
}

// TestGuide follows adapters/README.md: every Go excerpt is verbatim in the
// file it names, every test a command runs exists, and every command runs
// and passes; the run against the simulated Core must report Runs started,
// so a guide whose adapter Core refuses fails here.
func TestGuide(t *testing.T) {
	testgate.Long(t) // runs the guide's go test commands
	steps := readGuide(t)
	excerpts, commands, runs := 0, 0, 0
	for _, s := range steps {
		switch s.lang {
		case "go":
			excerpts++
			checkExcerpt(t, s)
		case "sh":
			for _, cmd := range strings.Split(s.text, "\n") {
				commands++
				runs += runGuideCommand(t, s.line, cmd)
			}
		}
	}
	if excerpts < 10 || commands < 5 {
		t.Fatalf("the guide shows %d excerpts and %d commands: its steps are gone", excerpts, commands)
	}
	if runs == 0 {
		t.Fatal("no step of the guide ran a Turn of the adapter through the simulated Core: Core admitted none of its work")
	}
}

// runsStarted reads the Runs the adapter started from an adaptertest
// report in a command's output (-1 when it shows no report).
func runsStarted(out string) int {
	m := regexp.MustCompile(`admitted: .*, (\d+) Runs started`).FindStringSubmatch(out)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func checkExcerpt(t *testing.T, s guideStep) {
	t.Helper()
	if s.from == "" {
		t.Errorf("README.md:%d: a Go excerpt does not name its source file", s.line)
		return
	}
	src, err := os.ReadFile(filepath.Join("..", s.from))
	if err != nil {
		t.Errorf("README.md:%d: %v", s.line, err)
		return
	}
	if !strings.Contains(string(src), s.text) {
		t.Errorf("README.md:%d: the excerpt is no longer in %s", s.line, s.from)
	}
}

// runGuideCommand checks a `go test` command's tests exist, then runs it
// from the repository root; a `make` target must exist (running it would
// run this test again). It returns the Runs an adaptertest report in the
// command's output shows started (0 when none is shown); a report of zero
// Runs fails t.
func runGuideCommand(t *testing.T, line int, cmd string) int {
	t.Helper()
	args := splitCommand(cmd)
	switch {
	case len(args) >= 2 && args[0] == "make":
		mk, err := os.ReadFile("../../Makefile")
		if err != nil || !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(args[1])+`:`).Match(mk) {
			t.Errorf("README.md:%d: make target %q not in the Makefile", line, args[1])
		}
		return 0
	case len(args) < 2 || args[0] != "go" || args[1] != "test":
		t.Errorf("README.md:%d: the guide runs %q, which this test cannot follow", line, cmd)
		return 0
	}
	pkg, run := "", ""
	for i, a := range args {
		if a == "-run" && i+1 < len(args) {
			run = args[i+1]
		}
		if strings.HasPrefix(a, "./") {
			pkg = a
		}
	}
	names := testNames(t, filepath.Join("../..", pkg))
	re, err := regexp.Compile(run)
	if err != nil || run == "" || re.MatchString("TestGuide") {
		t.Errorf("README.md:%d: -run %q must select tests other than TestGuide", line, run)
		return 0
	}
	matched := ""
	for _, n := range names {
		if re.MatchString(n) {
			matched = n
		}
	}
	if matched == "" {
		t.Errorf("README.md:%d: -run %q selects no test of %s", line, run, pkg)
		return 0
	}
	c := exec.Command(args[0], args[1:]...)
	c.Dir = "../.."
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+matched) {
		t.Errorf("README.md:%d: %s: %v\n%s", line, cmd, err, out)
	}
	switch n := runsStarted(string(out)); {
	case n == 0:
		t.Errorf("README.md:%d: %s: the adapter started no Run:\n%s", line, cmd, out)
	case n > 0:
		return n
	}
	return 0
}

func testNames(t *testing.T, dir string) []string {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
		return strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			for name, obj := range f.Scope.Objects {
				if obj.Kind.String() == "func" && strings.HasPrefix(name, "Test") {
					names = append(names, name)
				}
			}
		}
	}
	return names
}

// splitCommand splits a shell line on blanks, keeping single-quoted words.
func splitCommand(s string) []string {
	var out []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

func TestRunsStartedReadsTheReport(t *testing.T) {
	for out, want := range map[string]int{
		"admitted: 3 Sessions (0 refused), 22 Turns (0 refused), 16 Runs started; Turns ended: 14 completed": 16,
		"admitted: 2 Sessions (0 refused), 18 Turns (0 refused), 0 Runs started; Turns ended: 18 failed":     0,
		"--- PASS: TestSharedTextLifecycle": -1,
	} {
		if got := runsStarted(out); got != want {
			t.Errorf("runsStarted(%q) = %d, want %d", out, got, want)
		}
	}
}

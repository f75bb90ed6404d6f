package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// readmeCommand is one command the README shows, with its line.
type readmeCommand struct {
	line int
	text string
}

// literalSections are README sections whose sh block another test runs
// as a whole, as a user pasting it would: TestReadmeCommandsWork leaves
// that block to it (their inline commands it checks like any other).
var literalSections = map[string]string{
	"## Running Core":            "TestReadmeRunningCore",
	"## Two Cores on PostgreSQL": "TestReadmeTwoCores",
	"## Operating Core":          "TestReadmeOperatingCore",
}

// readmeCommands collects the commands of the README's sh blocks (without
// their trailing comments), except the blocks of the literal sections, and
// every inline code span that starts a command.
func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	inline := regexp.MustCompile("`((?:make|go run|go test|turnstile|bin/turnstile) [^`]*)`")
	var out []readmeCommand
	inBlock, literal := false, false
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			_, literal = literalSections[line]
		}
		switch {
		case strings.HasPrefix(line, "```sh"):
			inBlock = true
		case strings.HasPrefix(line, "```"):
			inBlock = false
		case inBlock && literal:
		case inBlock:
			if cmd, _, _ := strings.Cut(line, " # "); strings.TrimSpace(cmd) != "" {
				out = append(out, readmeCommand{i + 1, strings.TrimSpace(cmd)})
			}
		default:
			for _, m := range inline.FindAllStringSubmatch(line, -1) {
				out = append(out, readmeCommand{i + 1, m[1]})
			}
		}
	}
	return out
}

// readmePlaceholders stand in for the README's placeholders, token by token.
func readmePlaceholders(dir string) map[string]string {
	return map[string]string{
		"S": "5", "N": "4", "F": "1", "i/n": "0/2", "DIR": filepath.Join(dir, "out"), "FILE": "../../sim/testdata/regressions/pin-seed-706.json",
		"out/sim/seed-S/shrunk.json": "../../sim/testdata/regressions/pin-seed-706.json",
		"trace.txt":                  filepath.Join(dir, "trace.txt"), "<command>": "sim", "10m": "1s",
		"shard-*.jsonl":  filepath.Join(dir, "shard.jsonl"),
		"turnstile-data": filepath.Join(dir, "turnstile-data"),
	}
}

// TestReadmeCommandsWork keeps every command the README shows true: make
// targets exist and parse (make -n), every turnstile command line runs with
// its placeholders filled in and exits 0 or 1 (a seed may fail; usage and
// tool errors may not), and every go test command names tests, fuzz
// targets and packages that exist.
func TestReadmeCommandsWork(t *testing.T) {
	testgate.Long(t)
	for heading, test := range literalSections { //tidy:sorted each is checked alone
		if !testExists(t, test) || !strings.Contains(readmeText(t), "\n"+heading+"\n") {
			t.Errorf("README section %q must exist and be run by %s", heading, test)
		}
	}
	dir := t.TempDir()
	// a shard file for the merge command
	_, shard, _ := cli{t: t}.run("sim", "-seeds", "2", "-first", "1", "-faults", "none", "-json")
	if err := os.WriteFile(filepath.Join(dir, "shard.jsonl"), []byte(shard), 0o644); err != nil {
		t.Fatal(err)
	}
	subst := readmePlaceholders(dir)
	// the device the README's revoke command retires
	if code, _, errOut := (cli{t: t}).run("core", "device", "add", "d1", "-data", subst["turnstile-data"]); code != exitOK {
		t.Fatalf("device add: exit %d: %s", code, errOut)
	}
	cmds := readmeCommands(t)
	if len(cmds) < 15 {
		t.Fatalf("found only %d README commands: the scan is broken", len(cmds))
	}
	for _, c := range cmds {
		fields := strings.Fields(c.text)
		for i, f := range fields {
			if v, ok := subst[f]; ok {
				fields[i] = v
			}
		}
		t.Run(strings.ReplaceAll(c.text, "/", "_"), func(t *testing.T) {
			switch {
			case fields[0] == "make":
				checkMake(t, c, fields[1:])
			case fields[0] == "go" && fields[1] == "test":
				checkGoTest(t, c, fields[2:])
			case fields[0] == "go" && fields[1] == "run" && fields[2] == "./cmd/mutants" && slices.Equal(fields[3:], []string{"-list"}):
				checkMutantsList(t, c)
			case fields[0] == "go" && fields[1] == "run" && fields[2] == "./cmd/turnstile":
				checkTurnstile(t, c, fields[3:])
			case fields[0] == "turnstile" || fields[0] == "bin/turnstile":
				checkTurnstile(t, c, fields[1:])
			default:
				t.Fatalf("README line %d: %q is a command no test exercises", c.line, c.text)
			}
		})
	}
}

// checkMake proves a make command's targets exist and its recipe parses:
// make -n prints the recipe without running it. Running them here would
// take minutes to hours (make sim, make test, make mutants); what they run
// is checked where it is defined (the turnstile and go test commands below,
// the Makefile's own recipes in CI).
func checkMake(t *testing.T, c readmeCommand, args []string) {
	cmd := exec.Command("make", append([]string{"-n", "--no-print-directory"}, args...)...)
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("README line %d: make -n %v: %v\n%s", c.line, args, err, out)
	}
}

// checkGoTest checks that the package exists and that -run, -fuzz and the
// flags the command passes name something the package has.
func checkGoTest(t *testing.T, c readmeCommand, args []string) {
	var pkg, pattern string
	var custom []string // the package's own flags, which its test binary must know
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "-") && !slices.Contains([]string{"-run", "-fuzz", "-fuzztime", "-fuzzminimizetime", "-count", "-v"}, a):
			custom = append(custom, regexp.MustCompile(`=N$`).ReplaceAllString(a, "=4"))
		case strings.HasPrefix(a, "./"):
			pkg = a
		case (a == "-run" || a == "-fuzz") && i+1 < len(args):
			if p := strings.Trim(args[i+1], "'"); p != "^$" {
				pattern = p
			}
			i++
		case a == "-fuzztime" || a == "-fuzzminimizetime":
			i++
		}
	}
	if pkg == "" {
		return // `go test -fuzz` named as a tool, not a command to run
	}
	if pattern == "" {
		pattern = "."
	}
	cmd := exec.Command("go", append([]string{"test", "-list", pattern, pkg, "-args"}, custom...)...)
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^(Test|Fuzz|Example)`).Match(out) {
		t.Fatalf("README line %d: go test -list %s %s lists nothing: %v\n%s", c.line, pattern, pkg, err, out)
	}
}

func checkTurnstile(t *testing.T, c readmeCommand, args []string) {
	// The servers run for real in the literal sections; elsewhere their
	// command lines are checked flag by flag: -h after them must parse.
	if len(args) > 0 && (args[0] == "daemon" || args[0] == "core" && (len(args) == 1 || args[1] != "device")) {
		args = append(args, "-h")
	}
	// A campaign of two seeds, not a thousand: the seed count only scales
	// the run, and the command line must parse and run as written.
	if i := slices.Index(args, "-seeds"); len(args) > 0 && args[0] == "sim" && i >= 0 && i+1 < len(args) {
		args = slices.Clone(args)
		args[i+1] = "2"
	} else if len(args) > 0 && args[0] == "sim" && !slices.Contains(args, "-seed") {
		args = append(args, "-seeds", "2")
	}
	if len(args) > 0 && args[0] == "sim" && !slices.Contains(args, "-faults") {
		args = append(args, "-faults", "none")
	}
	code, out, errOut := cli{t: t}.run(args...)
	if code != exitOK && code != exitFail {
		t.Fatalf("README line %d: turnstile %v: exit %d\n%s%s", c.line, args, code, out, errOut)
	}
}

func readmeText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testExists reports whether this package declares the test function.
func testExists(t *testing.T, name string) bool {
	t.Helper()
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), "\nfunc "+name+"(t *testing.T) {") {
			return true
		}
	}
	return false
}

// checkMutantsList runs the mutation suite's listing: every mutant must
// still apply.
func checkMutantsList(t *testing.T, c readmeCommand) {
	cmd := exec.Command("go", "run", "./cmd/mutants", "-list")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("README line %d: go run ./cmd/mutants -list: %v\n%s", c.line, err, out)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestFlagErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"-seeds", "0"}, {"-jobs", "0"}, {"-workers", "-1"}, {"-timeout", "0s"}, {"extra"},
		{"-run", "("}, {"-run", "no-such-mutant-name"}, {"-dir", t.TempDir()},
	} {
		if code, _, errOut := runCLI(args...); code != 2 || !strings.HasPrefix(errOut, "mutants: ") && !strings.Contains(errOut, "Usage") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

func TestListShowsAppliedAndStaleMutants(t *testing.T) {
	dir := t.TempDir()
	write := func(name, old string) {
		text := "family: wire/limits\ndescription: d\nfile: wire/message.go\nold:\n" + old + "\nnew:\nx\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("001-applies.txt", "package wire")
	write("002-stale.txt", "no such text in the file")
	code, out, _ := runCLI("-list", "-dir", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1 for a stale mutant\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "\tok") ||
		!strings.Contains(lines[1], "002-stale\twire/limits\twire/message.go\tstale: ") {
		t.Fatalf("list:\n%s", out)
	}
	if code, out, _ := runCLI("-list", "-dir", dir, "-run", "^001-"); code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

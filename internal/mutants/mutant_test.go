package mutants

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `# a comment
family: daemon/capacity
description: one more active preparation than allowed
file: daemon/admission.go
old:
	if n >= max {
		return
	}
new:
	if n > max {
		return
	}
`

func TestParseReadsHeaderAndBlocks(t *testing.T) {
	m, err := Parse("007-capacity", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := Mutant{Name: "007-capacity", Family: "daemon/capacity",
		Description: "one more active preparation than allowed", File: "daemon/admission.go",
		Old: "\tif n >= max {\n\t\treturn\n\t}", New: "\tif n > max {\n\t\treturn\n\t}"}
	if m != want {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	if m.Package() != "./daemon/" {
		t.Fatalf("package %q", m.Package())
	}
}

func TestParseEmptyNewIsADeletion(t *testing.T) {
	text := "family: wire/limits\ndescription: d\nfile: wire/codec.go\nold:\n\tcheck()\n\nnew:\n"
	m, err := Parse("001-x", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if m.Old != "\tcheck()\n" || m.New != "" {
		t.Fatalf("old %q new %q", m.Old, m.New)
	}
	// The same without the final newline after "new:".
	m2, err := Parse("001-x", []byte(strings.TrimSuffix(text, "\n")))
	if err != nil || m2 != m {
		t.Fatalf("got %+v, %v", m2, err)
	}
}

func TestParseRejectsMalformedFiles(t *testing.T) {
	header := "family: core/steering\ndescription: d\nfile: core/steer.go\n"
	cases := map[string]struct{ name, text string }{
		"bad name":         {"steer", header + "old:\na\nnew:\nb\n"},
		"no old":           {"001-a", header + "a\nnew:\nb\n"},
		"no new":           {"001-a", header + "old:\na\n"},
		"empty old":        {"001-a", header + "old:\n\nnew:\nb\n"},
		"same text":        {"001-a", header + "old:\na\nnew:\na\n"},
		"missing file":     {"001-a", "family: core/steering\ndescription: d\nold:\na\nnew:\nb\n"},
		"unknown header":   {"001-a", header + "owner: me\nold:\na\nnew:\nb\n"},
		"twice":            {"001-a", header + "file: core/run.go\nold:\na\nnew:\nb\n"},
		"not key value":    {"001-a", header + "just words\nold:\na\nnew:\nb\n"},
		"bad family":       {"001-a", "family: steering\ndescription: d\nfile: core/steer.go\nold:\na\nnew:\nb\n"},
		"family elsewhere": {"001-a", "family: wire/limits\ndescription: d\nfile: core/steer.go\nold:\na\nnew:\nb\n"},
		"outside machines": {"001-a", "family: sim/x\ndescription: d\nfile: sim/run.go\nold:\na\nnew:\nb\n"},
		"test file":        {"001-a", "family: core/x\ndescription: d\nfile: core/steer_test.go\nold:\na\nnew:\nb\n"},
		"unclean path":     {"001-a", "family: core/x\ndescription: d\nfile: core/../wire/x.go\nold:\na\nnew:\nb\n"},
	}
	for name, c := range cases {
		if _, err := Parse(c.name, []byte(c.text)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", name, err)
		}
	}
}

// TestModelFilesMayBeMutated: a simulator file that models a shell's rule
// is a target; its siblings are not.
func TestModelFilesMayBeMutated(t *testing.T) {
	for _, f := range ModelFiles {
		text := "family: sim/model\ndescription: d\nfile: " + f + "\nold:\na\nnew:\nb\n"
		if _, err := Parse("001-a", []byte(text)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		sibling := path.Join(path.Dir(f), "world.go")
		text = "family: sim/model\ndescription: d\nfile: " + sibling + "\nold:\na\nnew:\nb\n"
		if _, err := Parse("001-a", []byte(text)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want ErrFormat", sibling, err)
		}
	}
}

func TestMutateNeedsExactlyOneOccurrence(t *testing.T) {
	m := Mutant{Name: "001-a", Old: "x >= 1", New: "x > 1"}
	got, err := m.Mutate("if x >= 1 {}")
	if err != nil || got != "if x > 1 {}" {
		t.Fatalf("got %q, %v", got, err)
	}
	for _, src := range []string{"if x > 1 {}", "x >= 1; x >= 1"} {
		if _, err := m.Mutate(src); !errors.Is(err, ErrStale) {
			t.Errorf("%q: got %v, want ErrStale", src, err)
		}
	}
}

func TestApplyChangesTheCopyOrReportsStale(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "core", "steer.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package core\nconst a = 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := Mutant{Name: "001-a", File: "core/steer.go", Old: "a = 30", New: "a = 31"}
	if err := m.Apply(root); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "package core\nconst a = 31\n" {
		t.Fatalf("after apply: %q", b)
	}
	if err := m.Apply(root); !errors.Is(err, ErrStale) {
		t.Fatalf("second apply: %v, want ErrStale", err)
	}
	gone := Mutant{Name: "002-b", File: "core/gone.go", Old: "a", New: "b"}
	if err := gone.Apply(root); !errors.Is(err, ErrStale) {
		t.Fatalf("missing file: %v, want ErrStale", err)
	}
}

func TestLoadSortsAndReportsBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("002-b.txt", sample)
	write("001-a.txt", sample)
	write("README.md", "not a mutant")
	ms, err := Load(dir)
	if err != nil || len(ms) != 2 || ms[0].Name != "001-a" || ms[1].Name != "002-b" {
		t.Fatalf("got %v, %v", ms, err)
	}
	write("003-c.txt", "family: x\n")
	if _, err := Load(dir); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "003-c") {
		t.Fatalf("got %v, want ErrFormat naming 003-c", err)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Fatal("an empty directory loads")
	}
}

func TestSelectByPattern(t *testing.T) {
	ms := []Mutant{{Name: "001-a"}, {Name: "002-b"}, {Name: "010-a"}}
	got, err := Select(ms, "-a$")
	if err != nil || len(got) != 2 || got[1].Name != "010-a" {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := Select(ms, "zzz"); err == nil {
		t.Fatal("a pattern matching nothing is accepted")
	}
	if _, err := Select(ms, "("); err == nil {
		t.Fatal("a bad pattern is accepted")
	}
}

func TestCopyTreeCopiesListedFilesOnly(t *testing.T) {
	root, dst := t.TempDir(), t.TempDir()
	for _, f := range []string{"a.go", "sub/b.go", "untracked.go"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := CopyTree(root, dst, []string{"a.go", "sub/b.go", "deleted.go"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "sub", "b.go")); err != nil || string(b) != "sub/b.go" {
		t.Fatalf("sub/b.go: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "untracked.go")); err == nil {
		t.Fatal("an unlisted file was copied")
	}
}

func TestInterleaveAlternatesRoots(t *testing.T) {
	ms := []Mutant{{File: "daemon/a.go"}, {File: "daemon/b.go"}, {File: "daemon/c.go"},
		{File: "core/a.go"}, {File: "wire/a.go"}, {File: "wire/b.go"}}
	got := interleave(ms)
	want := []int{4, 3, 0, 5, 1, 2}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

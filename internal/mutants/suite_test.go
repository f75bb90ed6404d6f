package mutants

import (
	"path/filepath"
	"strings"
	"testing"
)

// The repository's suite parses, is large enough and covers every machine
// package. Whether each mutant still applies is the runner's business
// (stale is a reported status, not a test failure).
func TestRepositorySuiteParses(t *testing.T) {
	ms, err := Load(filepath.Join("..", "..", "sim", "testdata", "mutants"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 60 {
		t.Fatalf("%d mutants, want at least 60", len(ms))
	}
	perRoot := map[string]int{}
	names := map[string]bool{}
	for _, m := range ms {
		perRoot[strings.Split(m.Family, "/")[0]]++
		short := m.Name[4:]
		if names[short] {
			t.Errorf("two mutants named %s", short)
		}
		names[short] = true
	}
	for _, root := range Targets {
		if perRoot[root] < 10 {
			t.Errorf("%d mutants of %s, want at least 10", perRoot[root], root)
		}
	}
}

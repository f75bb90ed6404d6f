package harness

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// TestListingSortsTruncatesAndRefusesMissing: the simulated listing is
// sorted, implies directories from nested names, truncates explicitly at
// max_entries, and answers not_directory for a missing path.
func TestListingSortsTruncatesAndRefusesMissing(t *testing.T) {
	tree := map[string]string{"b.txt": "bb", "a.txt": "a", "dir/c.txt": "ccc"}
	req := wire.WorkspaceRead{Handle: "h", EnvironmentID: "e", Operation: wire.ReadOperationDirectory, MaxEntries: 8}
	res := listing(tree, req)
	if err := res.ValidateAgainst(req); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Directory.Entries {
		got = append(got, e.Name+":"+e.Kind)
	}
	if want := "a.txt:file b.txt:file dir:directory"; join(got) != want || res.Directory.Truncated {
		t.Fatalf("listing %q truncated=%v", join(got), res.Directory.Truncated)
	}
	req.MaxEntries = 2
	if res := listing(tree, req); len(res.Directory.Entries) != 2 || !res.Directory.Truncated {
		t.Fatalf("limited: %+v", res.Directory)
	}
	req.Path = "dir"
	if res := listing(tree, req); len(res.Directory.Entries) != 1 || *res.Directory.Entries[0].SizeBytes != 3 {
		t.Fatalf("nested: %+v", res.Directory)
	}
	req.Path = "none"
	if res := listing(tree, req); res.ErrorCode != wire.ReadNotDirectory {
		t.Fatalf("missing: %+v", res)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

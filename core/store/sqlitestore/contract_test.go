package sqlitestore_test

import (
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
)

func mustOpen(t *testing.T, dir string) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// opener returns the suite's open function over a fresh data directory;
// commit selects whether reopen commits before closing.
func opener(commit bool) func(t *testing.T) (core.Store, func() core.Store) {
	return func(t *testing.T) (core.Store, func() core.Store) {
		dir := t.TempDir()
		cur := mustOpen(t, dir)
		t.Cleanup(func() { _ = cur.Close() })
		return cur, func() core.Store {
			if commit {
				if err := cur.Commit(); err != nil {
					t.Fatalf("Commit: %v", err)
				}
			}
			if err := cur.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			cur = mustOpen(t, dir)
			return cur
		}
	}
}

// TestContract: reopen is Commit, Close and Open on the same file.
func TestContract(t *testing.T) { storetest.Run(t, opener(true)) }

// TestContractLosesUncommitted: reopen closes without Commit, as a crash
// between two group commits would; everything since the last Commit is
// gone, everything before it is there.
func TestContractLosesUncommitted(t *testing.T) {
	storetest.RunWith(t, storetest.Options{LosesUncommitted: true}, opener(false))
}

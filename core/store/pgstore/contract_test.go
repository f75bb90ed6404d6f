package pgstore_test

import (
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
)

func mustOpen(t *testing.T, dsn string) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// opener returns the suite's open function over a fresh schema; commit
// selects whether reopen commits before closing.
func opener(commit bool) func(t *testing.T) (core.Store, func() core.Store) {
	return func(t *testing.T) (core.Store, func() core.Store) {
		dsn := pgtest.Schema(t)
		cur := mustOpen(t, dsn)
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
			cur = mustOpen(t, dsn)
			return cur
		}
	}
}

// TestContract: reopen is Commit, Close and Open on the same schema.
func TestContract(t *testing.T) { storetest.Run(t, opener(true)) }

// TestContractLosesUncommitted: reopen closes without Commit, as a crash
// between two group commits would; everything since the last Commit is
// gone, everything before it is there.
func TestContractLosesUncommitted(t *testing.T) {
	storetest.RunWith(t, storetest.Options{LosesUncommitted: true}, opener(false))
}

// TestResourceContract: resource records are written at once (no Commit)
// and survive Close and Open.
func TestResourceContract(t *testing.T) {
	storetest.RunResources(t, true, func(t *testing.T) (storetest.Resources, func() storetest.Resources) {
		dsn := pgtest.Schema(t)
		cur := mustOpen(t, dsn)
		t.Cleanup(func() { _ = cur.Close() })
		return cur, func() storetest.Resources {
			if err := cur.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			cur = mustOpen(t, dsn)
			return cur
		}
	})
}

package sqlitestore_test

import (
	"testing"

	"github.com/turnstile-sim/turnstile/core/store/storetest"
)

// TestResourceContract: resource records are written at once (no Commit)
// and survive Close and Open.
func TestResourceContract(t *testing.T) {
	storetest.RunResources(t, true, func(t *testing.T) (storetest.Resources, func() storetest.Resources) {
		dir := t.TempDir()
		cur := mustOpen(t, dir)
		t.Cleanup(func() { _ = cur.Close() })
		return cur, func() storetest.Resources {
			if err := cur.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			cur = mustOpen(t, dir)
			return cur
		}
	})
}

package pgstore

import "testing"

// TestMigrationsAreOrdered: versions count up from 1 without gaps, up to
// SchemaVersion.
func TestMigrationsAreOrdered(t *testing.T) {
	for i, m := range migrations {
		if m.version != i+1 || m.name == "" || len(m.stmts) == 0 {
			t.Fatalf("migration %d: %+v", i, m)
		}
	}
	if migrations[len(migrations)-1].version != SchemaVersion {
		t.Fatalf("SchemaVersion %d, last migration %d", SchemaVersion, migrations[len(migrations)-1].version)
	}
}

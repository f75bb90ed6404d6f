package sqlitestore_test

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
	zsqlite "zombiezen.com/go/sqlite"
)

// The driver benchmarks write the batch one Step of a streaming Turn
// produces (one event insert, one Turn upsert of a full record's JSON) in
// one transaction over the store's own schema, through modernc.org/sqlite
// via database/sql (what the store uses) and through zombiezen.com/go/sqlite
// (the same SQLite, called without database/sql). sync=OFF takes the disk
// out to show the drivers' own cost.

const (
	benchUpsertTurn = `INSERT INTO turns (id, seq, session, body) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, session = excluded.session, body = excluded.body`
	benchInsertEvent = `INSERT INTO events (turn, seq, type, kind, payload) VALUES (?, ?, ?, ?, ?)`
)

func benchFile(b *testing.B) (path, turn, event string) {
	dir := b.TempDir()
	s, err := sqlitestore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	tb, _ := json.Marshal(storetest.SampleTurn("t-1", "s-1", 1))
	eb, _ := json.Marshal(storetest.SampleEvent(1).Payload)
	return filepath.Join(dir, sqlitestore.FileName), string(tb), string(eb)
}

func BenchmarkDriverStepBatch(b *testing.B) {
	for _, sync := range []string{"FULL", "OFF"} {
		b.Run("driver=database-sql/sync="+sync, func(b *testing.B) { benchDatabaseSQL(b, sync) })
		b.Run("driver=zombiezen/sync="+sync, func(b *testing.B) { benchZombiezen(b, sync) })
	}
}

func benchDatabaseSQL(b *testing.B, sync string) {
	path, turn, event := benchFile(b)
	db, err := sql.Open("sqlite", path+"?_pragma=synchronous("+sync+")&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	up, err := db.Prepare(benchUpsertTurn)
	if err != nil {
		b.Fatal(err)
	}
	ins, err := db.Prepare(benchInsertEvent)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Stmt(ins).Exec("t-1", i+1, "delta", "delta", event); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Stmt(up).Exec("t-1", 1, "s-1", turn); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
}

func benchZombiezen(b *testing.B, sync string) {
	path, turn, event := benchFile(b)
	conn, err := zsqlite.OpenConn(path, zsqlite.OpenReadWrite)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	run := func(st *zsqlite.Stmt) {
		if _, err := st.Step(); err != nil {
			b.Fatal(err)
		}
		if err := st.Reset(); err != nil {
			b.Fatal(err)
		}
	}
	run(conn.Prep("PRAGMA synchronous = " + sync))
	begin, commit := conn.Prep("BEGIN IMMEDIATE"), conn.Prep("COMMIT")
	up, ins := conn.Prep(benchUpsertTurn), conn.Prep(benchInsertEvent)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		run(begin)
		ins.BindText(1, "t-1")
		ins.BindInt64(2, int64(i+1))
		ins.BindText(3, "delta")
		ins.BindText(4, "delta")
		ins.BindText(5, event)
		run(ins)
		up.BindText(1, "t-1")
		up.BindInt64(2, 1)
		up.BindText(3, "s-1")
		up.BindText(4, turn)
		run(up)
		run(commit)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
}

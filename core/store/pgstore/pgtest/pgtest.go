// Package pgtest gives tests a PostgreSQL schema of their own on the
// server named by TURNSTILE_PG_DSN (scripts/pg-cluster.sh starts one;
// `make test` and .ci/run export it). Without the variable a test skips,
// except under CI (CI set), where it fails: CI must run the PostgreSQL
// tests.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the server the tests use.
const EnvDSN = "TURNSTILE_PG_DSN"

// DSN returns the server's connection string, skipping t when none is
// given outside CI and failing it under CI.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" && os.Getenv("CI") != "" {
		t.Fatalf("CI must run the PostgreSQL tests: %s is empty (.ci/run starts scripts/pg-cluster.sh and exports it)", EnvDSN)
	}
	if dsn == "" {
		t.Skipf("no PostgreSQL: set %s (make pg; export %s=$(scripts/pg-cluster.sh dsn)); make test sets it", EnvDSN, EnvDSN)
	}
	return dsn
}

// Schema creates an empty schema on the server, drops it (with
// everything in it) when t ends, and returns a connection string whose
// search_path is that schema, so each test has its own tables.
func Schema(t testing.TB) string {
	t.Helper()
	base := DSN(t)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := "t_" + hex.EncodeToString(b[:])
	exec(t, base, "CREATE SCHEMA "+name)
	t.Cleanup(func() { exec(t, base, "DROP SCHEMA "+name+" CASCADE") })
	return WithSearchPath(t, base, name)
}

// WithSearchPath returns dsn with its search_path set to schema.
func WithSearchPath(t testing.TB, dsn, schema string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("%s: %v", EnvDSN, err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}

// Exec runs one statement on the server of dsn.
func Exec(t testing.TB, dsn, stmt string, args ...any) {
	t.Helper()
	exec(t, dsn, stmt, args...)
}

func exec(t testing.TB, dsn, stmt string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", EnvDSN, err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, stmt, args...); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// QueryInt runs a query of one integer on the server of dsn.
func QueryInt(t testing.TB, dsn, q string, args ...any) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", EnvDSN, err)
	}
	defer c.Close(ctx)
	var n int64
	if err := c.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// WithDatabase returns dsn naming another database.
func WithDatabase(t testing.TB, dsn, db string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("%s: %v", EnvDSN, err)
		}
		u.Path = "/" + db
		return u.String()
	}
	return dsn + " dbname=" + db
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
	"github.com/turnstile-sim/turnstile/core/store/pgstore/pgtest"
)

// TestKeepLeaseStopsWhenRenewalsFail: an active Core whose renewals fail
// (here a transaction holds the lease row, as a Core cut off from the
// database would see its renewals time out) gives up once a whole TTL
// passed without one: a standby may hold the lease by then. The error
// says so, and is no ErrFenced (nobody took the lease).
func TestKeepLeaseStopsWhenRenewalsFail(t *testing.T) {
	dsn := pgtest.Schema(t)
	lease, err := pgstore.OpenLease(dsn, "core-a", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if held, _, err := lease.Acquire(ctx); !held || err != nil {
		t.Fatalf("acquire: %v %v", held, err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, `SELECT 1 FROM lease FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	lost := make(chan error, 1)
	start := time.Now()
	go keepLease(ctx, lease, newLeaseWindow(time.Now(), time.Second), slog.New(slog.DiscardHandler), func(err error) {
		select {
		case lost <- err:
		default:
		}
	})
	select {
	case err := <-lost:
		if errors.Is(err, pgstore.ErrFenced) || !strings.Contains(err.Error(), "lease not renewed within 1s") {
			t.Fatalf("lost: %v", err)
		}
		if d := time.Since(start); d < time.Second {
			t.Fatalf("gave up after %v, before the TTL", d)
		}
	case <-ctx.Done():
		t.Fatal("keepLease never gave up")
	}
}

// TestStandbyRefusesTheOperatorAPIInItsShape: a standby answers /core/v1
// with the operator API's error body ({"error","detail"}, as the active
// Core and openapi.json do), so `core device add -core` pointed at it
// names core_standby instead of calling the URL no administration API.
func TestStandbyRefusesTheOperatorAPIInItsShape(t *testing.T) {
	srv := httptest.NewServer(standbyHandler())
	defer srv.Close()
	c := &adminClient{base: srv.URL, token: "t", hc: srv.Client()}
	var out api.EnrolledJSON
	err := c.call("POST", api.OperatorPrefix+"/devices", api.EnrolRequest{ID: "d2"}, &out)
	var refusal *adminRefusal
	if !errors.As(err, &refusal) || refusal.Status != http.StatusServiceUnavailable || refusal.Code != CodeStandby ||
		!strings.Contains(refusal.Detail, "standby") {
		t.Fatalf("device add against a standby: %v", err)
	}
	resp, err := http.Get(srv.URL + api.OperatorPrefix)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error, Detail string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Error != CodeStandby {
		t.Fatalf("standby %s: %v %+v", api.OperatorPrefix, err, body)
	}
}

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
)

// DefaultLeaseTTL is the lease's default time to live: a standby takes
// over at most this long (plus one poll, LeaseTTL/5, and loading the
// store) after the active Core last renewed.
const DefaultLeaseTTL = 5 * time.Second

// CodeStandby is the error code a standby Core answers every API and
// Runtime gateway request with (HTTP 503).
const CodeStandby = "core_standby"

// ErrLeaseTTLFlag is a -lease-ttl below one second.
var ErrLeaseTTLFlag = errors.New("-lease-ttl must be at least 1s (TURNSTILE_LEASE_TTL)")

// standbyMessage is the text of a standby's refusals.
const standbyMessage = "this Core is the standby of an active–standby pair: it serves nothing until it holds the lease; send requests to the active Core"

// switchHandler serves through the handler stored last: the standby's,
// then the active Core's.
type switchHandler struct{ h atomic.Pointer[http.Handler] }

func (s *switchHandler) set(h http.Handler) { s.h.Store(&h) }

func (s *switchHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

// standbyHandler answers a standby's requests: /healthz 200 (the process
// is alive), /readyz 503, the Runtime gateway and the operator API 503
// with their own error body ({"error","detail"}, as the active Core
// answers them) and every other route 503 with an OpenAI-shaped error,
// each with code core_standby.
func standbyHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/healthz" && r.Method == http.MethodGet:
			io.WriteString(w, "ok\n")
			return
		case r.URL.Path == "/readyz":
			http.Error(w, "standby", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		if strings.HasPrefix(r.URL.Path, gatewayPrefix) || isOperatorPath(r.URL.Path) {
			_ = json.NewEncoder(w).Encode(map[string]string{"error": CodeStandby, "detail": standbyMessage})
			return
		}
		code := CodeStandby
		_ = json.NewEncoder(w).Encode(api.V1Error{Error: api.V1ErrorDetail{Message: standbyMessage, Type: api.TypeServer, Code: &code}})
	})
}

// isOperatorPath reports whether path is under the operator API.
func isOperatorPath(path string) bool {
	return path == api.OperatorPrefix || strings.HasPrefix(path, api.OperatorPrefix+"/")
}

// gatewayPrefix is the common prefix of the Runtime gateway's routes.
var gatewayPrefix = gateway.BootstrapPath[:strings.LastIndexByte(gateway.BootstrapPath, '/')+1]

// leaseHolder names this process in the lease row: host, process ID and
// a random suffix, unique per start.
func leaseHolder() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// awaitLease polls the lease every TTL/5 until this Core holds it (nil)
// or ctx ends (ctx's error). It logs "turnstile core standby" once, when
// the first poll finds another holder, and every failed poll.
func awaitLease(ctx context.Context, lease *pgstore.Lease, log *slog.Logger, addr string) (*leaseWindow, error) {
	poll := lease.TTL() / 5
	waiting := time.Now()
	announced := false
	for {
		start := time.Now()
		pctx, cancel := context.WithTimeout(ctx, lease.TTL())
		held, other, err := lease.Acquire(pctx)
		cancel()
		switch {
		case held:
			if announced {
				log.Warn("lease acquired: taking over from the previous Core", "epoch", lease.Epoch(),
					"waited", time.Since(waiting).Round(time.Millisecond).String())
			} else {
				log.Info("lease acquired", "epoch", lease.Epoch())
			}
			return newLeaseWindow(start, lease.TTL()), nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			log.Warn("lease poll failed; retrying", "err", err)
		case !announced:
			announced = true
			log.Info("turnstile core standby", "addr", addr, "holder", other.ID, "epoch", other.Epoch,
				"expires_in", other.Left.Round(time.Millisecond).String())
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// leaseWindow is how long this process knows it holds the lease: a TTL
// from the start of the last successful acquire or renewal (the database
// set the expiry no earlier). The monotonic clock runs on while the
// process is paused, so after a pause past the lease the window is shut
// at once, before the renewal goroutine notices the takeover.
type leaseWindow struct {
	ttl   time.Duration
	mu    sync.Mutex
	start time.Time
}

func newLeaseWindow(start time.Time, ttl time.Duration) *leaseWindow {
	return &leaseWindow{ttl: ttl, start: start}
}

// renewed moves the window to a renewal that started at start.
func (w *leaseWindow) renewed(start time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if start.After(w.start) {
		w.start = start
	}
}

// held reports whether the lease is surely still this process's.
func (w *leaseWindow) held() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Since(w.start) < w.ttl
}

// leaseGuard serves through h while the window holds, and answers as a
// standby once it has shut: a Core that may have lost its lease answers
// no request, read or probe, from its possibly stale memory.
func leaseGuard(w *leaseWindow, h http.Handler) http.Handler {
	standby := standbyHandler()
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if !w.held() {
			standby.ServeHTTP(rw, r)
			return
		}
		h.ServeHTTP(rw, r)
	})
}

// keepLease renews the held lease every TTL/3 until ctx ends. It calls
// lost (which must not return) when another Core has taken the lease
// (ErrFenced), or when no renewal succeeded for a whole TTL and a last
// attempt fails too: a standby may hold the lease by then, so this Core
// must stop serving.
func keepLease(ctx context.Context, lease *pgstore.Lease, w *leaseWindow, log *slog.Logger, lost func(error)) {
	ttl := lease.TTL()
	renew := func(d time.Duration) error {
		rctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return lease.Renew(rctx)
	}
	renewed := make(chan time.Time, 1)
	go func() {
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			start := time.Now()
			err := renew(ttl / 3)
			switch {
			case err == nil:
				w.renewed(start)
				select {
				case <-renewed:
				default:
				}
				renewed <- start
			case ctx.Err() != nil:
				return
			case errors.Is(err, pgstore.ErrFenced):
				lost(err)
			default:
				log.Warn("lease renewal failed; retrying", "err", err)
			}
		}
	}()
	deadline := time.NewTimer(ttl)
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case at := <-renewed:
			deadline.Reset(ttl - time.Since(at))
		case <-deadline.C:
			start := time.Now()
			err := renew(time.Second)
			if err == nil {
				w.renewed(start)
				deadline.Reset(ttl - time.Since(start))
				continue
			}
			if ctx.Err() != nil {
				return
			}
			if !errors.Is(err, pgstore.ErrFenced) {
				err = fmt.Errorf("lease not renewed within %v: %w", ttl, err)
			}
			lost(err)
		}
	}
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
)

const usageCore = `usage: turnstile core [flags]
       turnstile core device add|list|revoke [flags] [id]
       turnstile core key add|list|revoke [flags] [name|key-id]

Runs Core: the Runtime gateway (/api/v1/agent-daemon/...), the public
API, which is the Agents API of the OpenAI SDK (/v1/..., authenticated by
the API keys of 'turnstile core key'; Vault credentials need -vault-key),
the operator API under /core/v1 (device enrolment, revocation and list,
API keys, the enabled Harness kinds, suspensions, preparations, a Turn's
delivery view, user-choice answers, workspace reads and export; the
operator token; 'turnstile core device' and 'core key' with -core call it), /healthz, /readyz and /metrics, over the embedded SQLite store in
-data, or over PostgreSQL with -store postgres://... (TURNSTILE_STORE).
Every flag can also
be set with the environment variable named in its description; a flag given
on the command line wins. Every request body (API routes and
the bootstrap) must arrive within -body-read-timeout (30 s; later is 408
body_timeout), headers within 10 s, and one remote IP keeps at most
-conns-per-addr (64) connections open; more are closed at accept.
With -tls-cert and -tls-key it serves everything over TLS (https, and
wss for Runtimes; the default public URL is https://<listen address>);
SIGHUP reloads the pair for new connections (a pair that fails to load is
logged and the previous one kept); an unloadable pair at start exits 3.
SIGTERM or SIGINT stops it gracefully: it stops
accepting, closes every connection with a reason, commits and exits 0.
Core initialises its store when -data does not exist yet (a first start;
'turnstile core device add' may create it first) and logs "store created"
with the path at warn level, so a mistyped -data shows in the first lines
of the log; 'core device list' and 'revoke' need an existing store. With
-store, Core creates its tables in an empty schema the same way (and logs
"store created"), refuses another program's tables, and -data is unused.

With -store, several Cores may run on one schema as an active–standby
pair: the one holding the schema's lease row is active; another serves
/healthz (200), answers /readyz 503 and every API and Runtime gateway
request 503 core_standby, logs "turnstile core standby", and polls the
lease every -lease-ttl/5. The active Core renews the lease every
-lease-ttl/3 (the database's clock judges expiry); when it stops renewing
(killed, paused, cut off), the standby takes the lease once it expires,
with the next epoch, loads the store and serves ("turnstile core
listening"). Every write transaction checks the epoch, so a Core that lost
the lease commits nothing: it logs the fencing error and exits 1 without
answering. SIGTERM releases the lease, so the standby takes over at its
next poll.

` + exitCodes

// coreFlags are the options of turnstile core.
type coreFlags struct {
	listen, publicURL, data, tokenFile, logLevel string
	store                                        string // PostgreSQL URL; empty: SQLite in data
	vaultKeyFile                                 string
	vaultKey                                     *api.VaultKey // nil: no -vault-key
	heartbeat                                    time.Duration
	bodyReadTimeout                              time.Duration
	connsPerAddr                                 int
	leaseTTL                                     time.Duration  // with store: the lease's time to live
	policy                                       *engine.Policy // the enabled kinds' profiles
	kinds                                        []string       // the enabled kinds, sorted
	tracing                                      tracingFlags
	tls                                          tlsFlags
	certs                                        *certReloader // nil: plain HTTP
}

// envDefault returns the environment variable's value, or def.
func envDefault(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func (sh *shell) coreFlagSet(name, text string) (*flag.FlagSet, *coreFlags) {
	fs := sh.newFlags(name, text)
	f := &coreFlags{}
	fs.StringVar(&f.data, "data", envDefault("TURNSTILE_DATA", "turnstile-data"), "data directory of the SQLite store (TURNSTILE_DATA)")
	fs.StringVar(&f.store, "store", envDefault("TURNSTILE_STORE", ""),
		"PostgreSQL URL of Core's store (postgres://user:password@host:5432/db?sslmode=require; search_path=SCHEMA picks a schema); empty: the SQLite store in -data (TURNSTILE_STORE)")
	return fs, f
}

// Errors of turnstile core's flags.
var (
	ErrNoTokenFile     = errors.New("-operator-token-file is required (TURNSTILE_OPERATOR_TOKEN_FILE)")
	ErrEmptyToken      = errors.New("the operator token file is empty")
	ErrHeartbeat       = errors.New("-heartbeat-interval must be a whole number of seconds, at least 1s")
	ErrLogLevel        = errors.New("-log-level must be debug, info, warn or error")
	ErrDataDirMissing  = errors.New("-data must not be empty")
	ErrBodyReadTimeout = errors.New("-body-read-timeout must be a positive duration")
	ErrConnsPerAddr    = errors.New("-conns-per-addr must be at least 1")
)

// envDuration returns the environment variable parsed as a duration, or
// def when it is unset or unparsable (the flag's check then reports a bad
// value given on the command line).
func envDuration(name string, def time.Duration) time.Duration {
	if v, ok := os.LookupEnv(name); ok {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
		return -1
	}
	return def
}

// envInt returns the environment variable parsed as an int, or def when
// unset; an unparsable value gives 0 (refused by the flag's check).
func envInt(name string, def int) int {
	if v, ok := os.LookupEnv(name); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0
		}
		return n
	}
	return def
}

func (sh *shell) cmdCore(args []string) int {
	if len(args) > 0 && args[0] == "device" {
		return sh.cmdDevice(args[1:])
	}
	if len(args) > 0 && args[0] == "key" {
		return sh.cmdKey(args[1:])
	}
	fs, f := sh.coreFlagSet("core", usageCore)
	fs.StringVar(&f.listen, "listen", envDefault("TURNSTILE_LISTEN", "127.0.0.1:8080"), "listen address (TURNSTILE_LISTEN)")
	fs.StringVar(&f.publicURL, "public-url", envDefault("TURNSTILE_PUBLIC_URL", ""),
		"public base URL Runtimes reach Core at; ws_url is derived from it (TURNSTILE_PUBLIC_URL; default http://<listen address>)")
	fs.StringVar(&f.tokenFile, "operator-token-file", envDefault("TURNSTILE_OPERATOR_TOKEN_FILE", ""),
		"file holding the operator token of the public API (TURNSTILE_OPERATOR_TOKEN_FILE)")
	fs.StringVar(&f.vaultKeyFile, "vault-key", envDefault("TURNSTILE_VAULT_KEY_FILE", ""),
		"file holding the key (64 hex digits: openssl rand -hex 32) that encrypts Vault credential secrets at rest; without it the credential routes answer 503 vault_key_unconfigured (TURNSTILE_VAULT_KEY_FILE)")
	hb := fs.String("heartbeat-interval", envDefault("TURNSTILE_HEARTBEAT_INTERVAL", "15s"),
		"heartbeat cadence Runtimes are told at bootstrap (TURNSTILE_HEARTBEAT_INTERVAL)")
	fs.StringVar(&f.logLevel, "log-level", envDefault("TURNSTILE_LOG_LEVEL", "info"), "debug, info, warn or error (TURNSTILE_LOG_LEVEL)")
	fs.DurationVar(&f.bodyReadTimeout, "body-read-timeout", envDuration("TURNSTILE_BODY_READ_TIMEOUT", DefaultBodyReadTimeout),
		"deadline for a request body to arrive in full, on every API route and the bootstrap; a later one is 408 body_timeout (TURNSTILE_BODY_READ_TIMEOUT)")
	fs.IntVar(&f.connsPerAddr, "conns-per-addr", envInt("TURNSTILE_CONNS_PER_ADDR", DefaultConnsPerAddr),
		"open connections allowed per remote IP; more are closed at accept (TURNSTILE_CONNS_PER_ADDR)")
	kinds := fs.String("kinds", envDefault("TURNSTILE_KINDS", ""),
		"comma-separated Harness kinds Core enables; default: the real Harnesses (every built-in kind but synthetic, a test fixture enabled only when listed) and every kind of -engine-profiles (TURNSTILE_KINDS)")
	profiles := fs.String("engine-profiles", envDefault("TURNSTILE_ENGINE_PROFILES", ""),
		"JSON file of engine profiles for kinds outside the built-in catalog, every operation named (turnstile conform profile prints the scenarios' contract kind's) (TURNSTILE_ENGINE_PROFILES)")
	fs.DurationVar(&f.leaseTTL, "lease-ttl", envDuration("TURNSTILE_LEASE_TTL", DefaultLeaseTTL),
		"with -store: time to live of the active Core's lease; a standby takes over within it (plus -lease-ttl/5) after the active Core stops renewing; at least 1s (TURNSTILE_LEASE_TTL)")
	f.tracing.register(fs)
	addTLSFlags(fs, &f.tls)
	if code, ok := sh.parse(fs, args); !ok {
		return code
	}
	var err error
	if f.policy, f.kinds, err = corePolicy(*kinds, *profiles); err != nil {
		return sh.usageError("core", err)
	}
	if fs.NArg() > 0 {
		return sh.usageError("core", fmt.Errorf("%w: %s", ErrArgs, strings.Join(fs.Args(), " ")))
	}
	d, err := time.ParseDuration(*hb)
	if err != nil || d < time.Second || d%time.Second != 0 {
		return sh.usageError("core", ErrHeartbeat)
	}
	f.heartbeat = d
	if f.bodyReadTimeout <= 0 {
		return sh.usageError("core", ErrBodyReadTimeout)
	}
	if f.connsPerAddr < 1 {
		return sh.usageError("core", ErrConnsPerAddr)
	}
	if err := f.tracing.check(); err != nil {
		return sh.usageError("core", err)
	}
	if f.leaseTTL < pgstore.MinLeaseTTL {
		return sh.usageError("core", ErrLeaseTTLFlag)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return sh.usageError("core", ErrLogLevel)
	}
	token, err := readToken(f.tokenFile)
	if err != nil {
		return sh.usageError("core", err)
	}
	if f.vaultKeyFile != "" {
		if f.vaultKey, err = api.LoadVaultKey(f.vaultKeyFile); err != nil {
			return sh.usageError("core", fmt.Errorf("-vault-key: %w", err))
		}
	}
	if err := checkStoreFlags(f); err != nil {
		return sh.usageError("core", err)
	}
	if (f.tls.cert == "") != (f.tls.key == "") {
		return sh.usageError("core", ErrTLSPair)
	}
	if f.tls.cert != "" {
		if f.certs, err = newCertReloader(f.tls.cert, f.tls.key); err != nil {
			fmt.Fprintf(sh.stderr, "turnstile core: %v\n", err)
			return exitTool
		}
	}
	red := &redactor{exact: []string{token}}
	log := newLogger(sh.stderr, level, red)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := runCore(ctx, f, token, log); err != nil {
		log.Error("turnstile core failed", "err", err)
		return exitFail
	}
	return exitOK
}

func readToken(path string) (string, error) {
	if path == "" {
		return "", ErrNoTokenFile
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("operator token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", ErrEmptyToken
	}
	return tok, nil
}

// runCore serves until ctx ends, then shuts down gracefully. With
// -store it first waits as a standby until it holds the lease.
func runCore(ctx context.Context, f *coreFlags, token string, log *slog.Logger) error {
	var lease *pgstore.Lease
	if f.store != "" {
		var err error
		if lease, err = pgstore.OpenLease(f.store, leaseHolder(), f.leaseTTL); err != nil {
			return err
		}
		defer lease.Close()
		if lease.Created() {
			log.Warn("store created: -store held no store, Core starts empty", "store", lease.Where())
		}
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	public := f.publicURL
	if public == "" && f.certs != nil {
		public = "https://" + ln.Addr().String()
	} else if public == "" {
		public = "http://" + ln.Addr().String()
	}
	addr := ln.Addr().String()
	ln = newLimitListener(ln, f.connsPerAddr, func(addr string) {
		log.Warn("connection refused: too many open connections from this address", "remote", addr, "limit", f.connsPerAddr)
	})
	if f.certs != nil {
		ln = f.certs.listen(ln)
		f.certs.reloadOnHangup(ctx, log)
	}
	sw := &switchHandler{}
	sw.set(standbyHandler())
	hs := &http.Server{Handler: bodyDeadline(f.bodyReadTimeout, sw), ReadHeaderTimeout: headerReadTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	serving := false
	serve := func() {
		serving = true
		go func() { served <- hs.Serve(ln) }()
	}
	stopHTTP := func() error {
		if !serving {
			return ln.Close()
		}
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return hs.Shutdown(sctx)
	}
	leaseCtx, stopLease := context.WithCancel(context.Background())
	defer stopLease()
	var window *leaseWindow
	if lease != nil {
		serve()
		if window, err = awaitLease(ctx, lease, log, addr); err != nil {
			log.Info("stopping: standby")
			_ = stopHTTP()
			log.Info("stopped")
			return nil
		}
		// Renewals start at once: loading a large store must not let the
		// lease expire under it.
		go keepLease(leaseCtx, lease, window, log, func(err error) {
			log.Error("fenced: the lease is lost; stopping without answering", "err", err)
			os.Exit(exitFail)
		})
	}
	st, err := openActiveStore(f, lease, log)
	if err != nil {
		_ = stopHTTP()
		return err
	}
	defer st.Close()
	tracer, stopTracing, err := f.tracing.start(ctx, "turnstile-core", log)
	if err != nil {
		return err
	}
	defer stopTracing()
	reg := prometheus.NewRegistry()
	metrics := registerCoreMetrics(reg)
	// A Vault credential an MCP server references reaches the Runtime only
	// on the wire: the Session record keeps its ID.
	vaults := api.NewVaults(st, f.vaultKey)
	srv, err := server.New(st, server.Options{Logger: log, Metrics: metrics, Config: core.Config{Policy: f.policy},
		PrepareFrame: vaults.FrameSecrets, Tracer: tracer,
		Fatal: func(err error) {
			if errors.Is(err, pgstore.ErrFenced) {
				log.Error("fenced: another Core holds the lease; stopping without answering", "err", err)
			} else {
				log.Error("store commit failed; stopping (the next start recovers)", "err", err)
			}
			os.Exit(exitFail)
		}})
	if err != nil {
		_ = stopHTTP()
		return err
	}
	reg.MustRegister(turnsCollector(srv))
	mux, gw, err := coreMux(srv, st, reg, f, public, token, log)
	if err != nil {
		_ = stopHTTP()
		return err
	}
	loopCtx, stopLoop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(loopCtx) }()
	if window != nil {
		sw.set(leaseGuard(window, mux))
	} else {
		sw.set(mux)
	}
	if !serving {
		serve()
	}
	attrs := []any{"addr", addr, "public_url", public, "store", storeLabel(f, st), "tls", f.certs != nil, "kinds", strings.Join(f.kinds, ",")}
	if lease != nil {
		attrs = append(attrs, "epoch", lease.Epoch())
	}
	log.Info("turnstile core listening", attrs...)
	select {
	case <-ctx.Done():
	case err := <-served:
		stopLoop()
		<-ran
		return err
	}
	log.Info("stopping: no new connections; closing connections; committing")
	shut := make(chan error, 1)
	go func() { shut <- stopHTTP() }()
	stopLoop()
	err = <-ran
	gw.Wait(10 * time.Second)
	if serr := <-shut; serr != nil && err == nil {
		log.Warn("http shutdown", "err", serr)
	}
	if err != nil {
		return fmt.Errorf("final commit: %w", err)
	}
	if lease != nil {
		stopLease()
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if rerr := lease.Release(rctx); rerr != nil {
			log.Warn("lease release failed; the standby takes over when it expires", "err", rerr)
		}
		cancel()
	}
	log.Info("stopped")
	return nil
}

// openActiveStore opens the store of the Core that serves: the SQLite
// store in -data, or the PostgreSQL store fenced by the held lease.
func openActiveStore(f *coreFlags, lease *pgstore.Lease, log *slog.Logger) (coreStore, error) {
	if lease != nil {
		s, err := lease.Store()
		if err != nil {
			return nil, err
		}
		return pgBackend{s}, nil
	}
	st, created, err := openCoreStore(f, true)
	if err != nil {
		return nil, err
	}
	if created {
		log.Warn("store created: -data held no store, Core starts empty", "path", storeLabel(f, st))
	}
	return st, nil
}

// coreMux mounts the gateway, the public API and the probes.
func coreMux(srv *server.Server, res api.ResourceStore, reg *prometheus.Registry, f *coreFlags, public, token string, log *slog.Logger) (*http.ServeMux, *gateway.Gateway, error) {
	gw, err := gateway.New(srv, gateway.Options{PublicURL: public, HeartbeatSeconds: int(f.heartbeat / time.Second), Logger: log})
	if err != nil {
		return nil, nil, err
	}
	// /v1 accepts the API keys Core issued (turnstile core key add).
	a, err := api.New(srv, api.Options{OperatorToken: token, Logger: log, Resources: res, Keys: api.NewKeys(res),
		VaultKey: f.vaultKey})
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	gw.Register(mux)
	a.Register(mux)
	registerProbes(mux, srv, reg)
	return mux, gw, nil
}

func registerProbes(mux *http.ServeMux, srv *server.Server, reg *prometheus.Registry) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := srv.Query(ctx, func(server.View) {}); err != nil {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
}

// registerCoreMetrics registers the Go runtime and process collectors
// and the server's on reg (turnsCollector follows once the server runs).
func registerCoreMetrics(reg prometheus.Registerer) *server.Metrics {
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return server.NewMetrics(reg)
}

// turnsCollector reports Turns by state, read on the loop at scrape time.
func turnsCollector(srv *server.Server) prometheus.Collector {
	desc := prometheus.NewDesc("turnstile_core_turns", "Turns by state.", []string{"state"}, nil)
	return collectorFunc{desc, func(ch chan<- prometheus.Metric) {
		counts := map[core.TurnState]int{}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Query(ctx, func(v server.View) {
			for _, t := range v.Backend().Turns() {
				counts[t.State]++
			}
		})
		for _, s := range []core.TurnState{core.TurnQueued, core.TurnStarting, core.TurnRunning,
			core.TurnCompleted, core.TurnFailed, core.TurnCancelled} {
			ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(counts[s]), string(s))
		}
	}}
}

type collectorFunc struct {
	desc    *prometheus.Desc
	collect func(chan<- prometheus.Metric)
}

func (c collectorFunc) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c collectorFunc) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

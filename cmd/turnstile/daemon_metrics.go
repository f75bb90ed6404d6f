package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/turnstile-sim/turnstile/daemon/runner"
)

// The daemon's probe address is off by default: a daemon opens no port
// unless -metrics-addr names one (a loopback address such as
// 127.0.0.1:9464 keeps it on the machine).
const daemonMetricsAddrHelp = "local address of the daemon's /metrics, /healthz and /readyz, e.g. 127.0.0.1:9464; empty: not served (TURNSTILE_METRICS_ADDR)"

// daemonRegistry is the daemon's Prometheus registry (registerDaemonMetrics).
func daemonRegistry() (*prometheus.Registry, *runner.Metrics) {
	reg := prometheus.NewRegistry()
	return reg, registerDaemonMetrics(reg)
}

// registerDaemonMetrics registers the Go runtime and process collectors
// and the runner's on reg.
func registerDaemonMetrics(reg prometheus.Registerer) *runner.Metrics {
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return runner.NewMetrics(reg)
}

// daemonProbes serves /metrics, /healthz (200 while the process runs) and
// /readyz (200 while the daemon is connected to Core, its device
// registered, and not shutting down; 503 otherwise).
func daemonProbes(d *runner.Daemon, reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !d.Ready() {
			http.Error(w, "not ready: not connected to Core", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

// serveDaemonProbes listens on addr and serves the probes until the
// returned function is called; an empty addr serves nothing.
func serveDaemonProbes(addr string, d *runner.Daemon, reg *prometheus.Registry, log *slog.Logger) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: daemonProbes(d, reg), ReadHeaderTimeout: headerReadTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("daemon probes stopped", "err", err)
		}
	}()
	log.Info("daemon metrics listening", "addr", ln.Addr().String())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		<-done
	}, nil
}

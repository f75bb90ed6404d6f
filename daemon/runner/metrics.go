package runner

import (
	"context"
	"reflect"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// Metrics are the daemon's Prometheus collectors. A nil *Metrics records
// nothing. Every label takes values from a closed set: executor phases,
// native operation names, receipt frame types and their outcomes.
type Metrics struct {
	Connected      prometheus.Gauge
	Connects       prometheus.Counter
	Reconnects     prometheus.Counter
	NativeInFlight *prometheus.GaugeVec
	NativeSeconds  *prometheus.HistogramVec
	Receipts       *prometheus.CounterVec

	executors *executorCollector
}

// NewMetrics creates the collectors and registers them on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "turnstile_daemon_connected", Help: "1 while the daemon holds an open connection to Core, else 0."}),
		Connects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "turnstile_daemon_connects_total", Help: "WebSocket connections to Core established."}),
		Reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "turnstile_daemon_reconnects_total", Help: "Connections to Core established after the first one."}),
		NativeInFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "turnstile_daemon_native_calls_in_flight", Help: "Harness adapter calls running, by operation."}, []string{"op"}),
		NativeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "turnstile_daemon_native_call_seconds", Help: "Harness adapter call latency, by operation.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 18)}, []string{"op"}),
		Receipts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_daemon_receipts_total",
			Help: "Receipts sent to Core, by frame type and outcome (prompt_steer_ack: written, accepted, refused; interaction_decision_ack: applied, refused; preparation_status: its state; runtime_prepare_result: its outcome)."},
			[]string{"type", "outcome"}),
		executors: &executorCollector{desc: prometheus.NewDesc("turnstile_daemon_executors",
			"Native executors the daemon owns, by phase (read at scrape time).", []string{"phase"}, nil)},
	}
	reg.MustRegister(m.Connected, m.Connects, m.Reconnects, m.NativeInFlight, m.NativeSeconds, m.Receipts, m.executors)
	return m
}

// ExecutorPhases are the phases turnstile_daemon_executors reports.
var ExecutorPhases = []string{"preparing", "reserved", "busy", "idle", "closing"}

func (m *Metrics) connected(first bool) {
	if m != nil {
		m.Connects.Inc()
		if !first {
			m.Reconnects.Inc()
		}
	}
}

func (m *Metrics) setConnected(up bool) {
	if m != nil {
		v := 0.0
		if up {
			v = 1
		}
		m.Connected.Set(v)
	}
}

// nativeStarted counts a call in flight; the returned function, called
// when it returns, counts it done and observes its latency.
func (m *Metrics) nativeStarted(op daemon.Op, now func() time.Time) func() {
	if m == nil {
		return func() {}
	}
	name := opName(op)
	g := m.NativeInFlight.WithLabelValues(name)
	g.Inc()
	start := now()
	return func() {
		g.Dec()
		m.NativeSeconds.WithLabelValues(name).Observe(now().Sub(start).Seconds())
	}
}

// sent counts a receipt among the frames sent.
func (m *Metrics) sent(f wire.Frame) {
	if m == nil {
		return
	}
	var outcome string
	switch p := f.Payload.(type) {
	case wire.PromptSteerAck:
		outcome = p.Stage()
	case wire.InteractionDecisionAck:
		outcome = "refused"
		if p.Applied {
			outcome = "applied"
		}
	case wire.PreparationStatus:
		outcome = p.State
	case wire.RuntimePrepareResult:
		outcome = p.Outcome
	default:
		return
	}
	m.Receipts.WithLabelValues(f.Type(), outcome).Inc()
}

// opName is the snake_case name of an operation's type (StartTurn:
// start_turn): a closed set.
func opName(op daemon.Op) string {
	t := reflect.TypeOf(op)
	if t == nil {
		return "none"
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var b strings.Builder
	for i, r := range t.Name() {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// executorCollector reads the machine's executors on the loop at scrape
// time.
type executorCollector struct {
	desc *prometheus.Desc
	d    atomic.Pointer[Daemon]
}

func (m *Metrics) attach(d *Daemon) {
	if m != nil {
		m.executors.d.Store(d)
	}
}

func (c *executorCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// scrapeWait bounds how long a scrape waits for the loop.
const scrapeWait = 2 * time.Second

func (c *executorCollector) Collect(ch chan<- prometheus.Metric) {
	counts := map[string]int{}
	if d := c.d.Load(); d != nil {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeWait)
		defer cancel()
		counts, _ = d.ExecutorPhases(ctx)
	}
	for _, p := range ExecutorPhases {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(counts[p]), p)
	}
}

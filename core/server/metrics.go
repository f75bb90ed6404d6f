package server

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the loop's Prometheus collectors. A nil *Metrics records
// nothing.
type Metrics struct {
	Connections prometheus.Gauge
	FramesIn    *prometheus.CounterVec
	FramesOut   *prometheus.CounterVec
	Overflows   prometheus.Counter
	CommitTime  prometheus.Histogram
}

// NewMetrics creates the collectors and registers them on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Connections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "turnstile_core_connections", Help: "Runtime connections open."}),
		FramesIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_core_frames_in_total", Help: "Frames received from Runtimes, by type."}, []string{"type"}),
		FramesOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_core_frames_out_total", Help: "Frames queued to Runtimes, by type."}, []string{"type"}),
		Overflows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "turnstile_core_outbound_overflows_total", Help: "Connections closed because their outbound queue was full."}),
		CommitTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "turnstile_core_store_commit_seconds", Help: "Store commit latency.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)}),
	}
	reg.MustRegister(m.Connections, m.FramesIn, m.FramesOut, m.Overflows, m.CommitTime)
	return m
}

func (m *Metrics) commit(d time.Duration) {
	if m != nil {
		m.CommitTime.Observe(d.Seconds())
	}
}

func (m *Metrics) frameIn(typ string) {
	if m != nil {
		if typ == "" {
			typ = "undecodable"
		}
		m.FramesIn.WithLabelValues(typ).Inc()
	}
}

func (m *Metrics) frameOut(typ string) {
	if m != nil {
		m.FramesOut.WithLabelValues(typ).Inc()
	}
}

func (m *Metrics) overflow() {
	if m != nil {
		m.Overflows.Inc()
	}
}

func (m *Metrics) connections(n int) {
	if m != nil {
		m.Connections.Set(float64(n))
	}
}

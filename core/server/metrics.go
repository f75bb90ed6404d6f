package server

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// Metrics are Core's Prometheus collectors: the loop's (frames,
// commits, connections), the Turn and preparation outcomes the loop
// derives from the machine's durable writes (turnobserve.go), and the
// gauges the gateway and the API move (refused messages, SSE streams). A
// nil *Metrics records nothing.
//
// Cardinality: every label takes values from a closed set (frame types,
// Turn and preparation states, protocol error codes, refusal reasons),
// except device on turnstile_core_device_connections, whose series exist
// only for devices connected at scrape time: at most the enrolled device
// pool (DevicesMax, 1024 by default).
type Metrics struct {
	Connections prometheus.Gauge
	FramesIn    *prometheus.CounterVec
	FramesOut   *prometheus.CounterVec
	Refused     *prometheus.CounterVec
	Overflows   prometheus.Counter
	CommitTime  prometheus.Histogram
	CommitSteps prometheus.Histogram

	TurnTransitions *prometheus.CounterVec
	TurnsFinished   *prometheus.CounterVec
	TurnDuration    *prometheus.HistogramVec
	TurnFirstEvent  prometheus.Histogram
	Preparation     *prometheus.HistogramVec
	SSEStreams      prometheus.Gauge

	devices *deviceCollector
}

// Metric names a dashboard or an alert may rely on.
const (
	MetricConnections       = "turnstile_core_connections"
	MetricDevicesConnected  = "turnstile_core_devices_connected"
	MetricDeviceConnections = "turnstile_core_device_connections"
)

// NewMetrics creates the collectors and registers them on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Connections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: MetricConnections, Help: "Runtime connections open."}),
		FramesIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_core_frames_in_total", Help: "Frames received from Runtimes, by type (undecodable: no readable type)."}, []string{"type"}),
		FramesOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_core_frames_out_total", Help: "Frames queued to Runtimes, by type."}, []string{"type"}),
		Refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_core_frames_refused_total",
			Help: "Runtime messages dropped before the machine could use them, by reason (a decode error's kind, wrong_direction, binary)."},
			[]string{"reason"}),
		Overflows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "turnstile_core_outbound_overflows_total", Help: "Connections closed because their outbound queue was full."}),
		CommitTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "turnstile_core_store_commit_seconds", Help: "Store commit latency.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)}),
		CommitSteps: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "turnstile_core_store_commit_batch_steps", Help: "Machine steps one store commit made durable (0: a batch of reads).",
			Buckets: []float64{0, 1, 2, 4, 8, 16, 32, 64, 128, 256}}),
		TurnTransitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_core_turn_transitions_total", Help: "Committed Turn state changes, by the state entered."}, []string{"state"}),
		TurnsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "turnstile_core_turns_finished_total",
			Help: "Turns that reached a terminal state, by state and error code (none: no code)."}, []string{"state", "code"}),
		TurnDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "turnstile_core_turn_duration_seconds",
			Help:    "From a Turn's submission to its terminal state, by that state (Turns submitted to this process only).",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 16)}, []string{"state"}),
		TurnFirstEvent: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "turnstile_core_turn_first_event_seconds",
			Help:    "From a Turn's submission to its first persisted run event (Turns submitted to this process only).",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 16)}),
		Preparation: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "turnstile_core_environment_preparation_seconds",
			Help:    "From an Environment preparation's start to its terminal state, by that state (preparations started by this process only).",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 16)}, []string{"state"}),
		SSEStreams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "turnstile_core_sse_subscribers", Help: "Server-Sent Event streams open on the API."}),
		devices: newDeviceCollector(),
	}
	reg.MustRegister(m.Connections, m.FramesIn, m.FramesOut, m.Refused, m.Overflows, m.CommitTime, m.CommitSteps,
		m.TurnTransitions, m.TurnsFinished, m.TurnDuration, m.TurnFirstEvent, m.Preparation, m.SSEStreams, m.devices)
	return m
}

// Metrics returns the collectors the server was given (nil: none).
func (s *Server) Metrics() *Metrics { return s.opt.Metrics }

func (m *Metrics) commit(d time.Duration, steps int) {
	if m != nil {
		m.CommitTime.Observe(d.Seconds())
		m.CommitSteps.Observe(float64(steps))
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

// Refusal reasons besides a decode error's kind.
const (
	RefusedWrongDirection = "wrong_direction" // a frame type only Core sends
	RefusedBinary         = "binary"          // a binary WebSocket message
)

// FrameRefused counts a Runtime message dropped for reason.
func (m *Metrics) FrameRefused(reason string) {
	if m != nil {
		m.Refused.WithLabelValues(reason).Inc()
	}
}

// decodeReasons name the codec's errors, most specific first.
var decodeReasons = []struct {
	err    error
	reason string
}{
	{wire.ErrTooLarge, "too_large"},
	{wire.ErrUnknownType, "unknown_type"},
	{wire.ErrUnknownField, "unknown_field"},
	{wire.ErrMissingField, "missing_field"},
	{wire.ErrDuplicateField, "duplicate_field"},
	{wire.ErrNull, "null"},
	{wire.ErrWrongType, "wrong_type"},
	{wire.ErrInvalidUTF8, "invalid_utf8"},
	{wire.ErrImageUnsupported, "image_unsupported"},
	{wire.ErrSyntax, "malformed"},
	{wire.ErrTrailingData, "malformed"},
	{wire.ErrInvalid, "invalid"},
}

// refusalReason is the closed-set label of a decode error.
func refusalReason(err error) string {
	for _, r := range decodeReasons {
		if errors.Is(err, r.err) {
			return r.reason
		}
	}
	return "other"
}

// StreamOpened counts an SSE stream open; the returned function counts it
// closed (call it once).
func (m *Metrics) StreamOpened() (closed func()) {
	if m == nil {
		return func() {}
	}
	m.SSEStreams.Inc()
	return m.SSEStreams.Dec
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

// deviceCollector reports, at scrape time, the devices connected and
// each one's open connections, read on the loop.
type deviceCollector struct {
	count, per *prometheus.Desc
	s          atomic.Pointer[Server]
}

func newDeviceCollector() *deviceCollector {
	return &deviceCollector{
		count: prometheus.NewDesc(MetricDevicesConnected, "Distinct devices with an open Runtime connection.", nil, nil),
		per: prometheus.NewDesc(MetricDeviceConnections,
			"Open Runtime connections of each connected device (series only for devices connected now; bounded by the enrolled pool).",
			[]string{"device"}, nil),
	}
}

func (m *Metrics) attach(s *Server) {
	if m != nil {
		m.devices.s.Store(s)
	}
}

func (c *deviceCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.count; ch <- c.per }

// scrapeWait bounds how long a scrape waits for the loop.
const scrapeWait = 2 * time.Second

func (c *deviceCollector) Collect(ch chan<- prometheus.Metric) {
	per := map[string]int{}
	if s := c.s.Load(); s != nil {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeWait)
		defer cancel()
		_ = s.Query(ctx, func(View) {
			for _, cs := range s.conns {
				per[cs.device]++
			}
		})
	}
	ch <- prometheus.MustNewConstMetric(c.count, prometheus.GaugeValue, float64(len(per)))
	devices := make([]string, 0, len(per))
	for d := range per {
		devices = append(devices, d)
	}
	slices.Sort(devices)
	for _, d := range devices {
		ch <- prometheus.MustNewConstMetric(c.per, prometheus.GaugeValue, float64(per[d]), d)
	}
}

// turnCode is the error-code label of a terminal Turn.
func turnCode(r core.TurnRecord) string {
	if r.ErrorCode == "" {
		return "none"
	}
	return r.ErrorCode
}

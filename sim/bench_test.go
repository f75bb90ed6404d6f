package sim

import (
	"testing"
	"time"
)

// pingNode answers every frame with the same frame until budget frames have
// been delivered to it. Its effects are built once, so the benchmark measures
// the kernel (queue, network, trace hashing), not the node.
type pingNode struct {
	dialer bool
	budget *int
	frame  []byte
	out    []Effect
}

func (p *pingNode) Step(now time.Time, ev Event) []Effect {
	switch e := ev.(type) {
	case Start:
		if p.dialer {
			return []Effect{Dial{Peer: "pong"}}
		}
	case ConnOpened:
		p.out = []Effect{Send{Conn: e.Conn, Frame: p.frame}}
		if p.dialer {
			return p.out
		}
	case Delivered:
		*p.budget--
		if *p.budget <= 0 {
			return nil
		}
		return p.out
	}
	return nil
}

func BenchmarkKernelEvent(b *testing.B) {
	frame := []byte(`{"type":"heartbeat","id":"h-000001","payload":{"seq":1}}`)
	budget := b.N
	sched := &Schedule{Seed: 1, Heal: time.Second,
		Network: NetworkConfig{LatencyMin: int64(time.Microsecond), LatencyMax: int64(50 * time.Microsecond)}}
	opts := Options{Schedule: sched, LivenessTimeout: 1 << 60, StepsMax: 1 << 62, Setup: func(w *Kernel) {
		w.AddNode("ping", func() Node { return &pingNode{dialer: true, budget: &budget, frame: frame} })
		w.AddNode("pong", func() Node { return &pingNode{budget: &budget, frame: frame} })
	}}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	r := Run(1, opts)
	elapsed := time.Since(start)
	b.StopTimer()
	if r.Stats.FramesDelivered < uint64(b.N) {
		b.Fatalf("delivered %d of %d frames", r.Stats.FramesDelivered, b.N)
	}
	b.ReportMetric(float64(r.Stats.Events)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(r.Stats.TraceLines)/float64(r.Stats.Events), "lines/event")
}

func BenchmarkToySeed(b *testing.B) {
	opts := toyOptions(toyConfig{})
	opts.TraceTail = 16
	b.ReportAllocs()
	start := time.Now()
	events := uint64(0)
	for i := 0; i < b.N; i++ {
		r := Run(uint64(i+1), opts)
		if r.Failed() {
			b.Fatalf("seed %d failed: %v", i+1, r.Violations)
		}
		events += r.Stats.Events
	}
	elapsed := time.Since(start)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "seeds/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/seed")
}

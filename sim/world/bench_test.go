package world

import (
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// BenchmarkCampaignSeed runs one default seed per iteration exactly as a
// campaign does (Run: world, checkers, linearizability), cycling through
// seeds so the figure is a campaign average. JSON is on the path: every
// frame is encoded by its sender, strictly decoded by its receiver and
// decoded once more for its trace line. It reports events/s, frames per
// seed and the wall time per delivered frame (the whole seed's cost
// divided by its frames).
func BenchmarkCampaignSeed(b *testing.B) {
	var events, frames uint64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		o := Run(uint64(i%500+1), Config{})
		events += o.Result.Stats.Events
		frames += o.Result.Stats.FramesDelivered
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/secs, "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/seed")
	b.ReportMetric(float64(frames)/float64(b.N), "frames/seed")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(frames, 1)), "ns/frame")
}

// BenchmarkLinearizeSeed times porcupine alone on the ledgers of default
// seeds (built outside the timer).
func BenchmarkLinearizeSeed(b *testing.B) {
	const seeds = 50
	ledgers := make([]*check.Ledger, seeds)
	for i := range ledgers {
		var u *universe
		opts := Options(Config{})
		opts.Setup = func(w *sim.World) { u = setup(w, Config{}, false) }
		sim.Run(uint64(i+1), opts)
		u.wl.flush(u.lt(u.w.Now()))
		ledgers[i] = u.led
	}
	for i := 0; b.Loop(); i++ {
		if r := check.Linearize(ledgers[i%seeds], check.LinearizeOptions{}); r.Partitions == 0 {
			b.Fatal("empty history")
		}
	}
}

// BenchmarkEnvelopeRoundTripHere encodes and strictly decodes one delta
// frame, so the per-frame cost of a campaign seed can be compared with one
// JSON round trip in the same run.
func BenchmarkEnvelopeRoundTripHere(b *testing.B) {
	f := wire.Frame{ID: "t-1", Payload: wire.Delta{ItemID: "item-1", Delta: "hello, world", Sequence: 7}}
	b.ReportAllocs()
	for b.Loop() {
		buf, err := wire.Encode(f)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := wire.Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFramePath is the JSON work the world does for one frame: the
// sender encodes it, the kernel describes it for the trace at send and at
// delivery (one decode, cached per run), and the receiver decodes it
// strictly. Compare with BenchmarkEnvelopeRoundTripHere.
func BenchmarkFramePath(b *testing.B) {
	f := wire.Frame{ID: "t-1", Payload: wire.Delta{ItemID: "item-1", Delta: "hello, world", Sequence: 7}}
	cache := newDescribeCache(wire.Decode)
	b.ReportAllocs()
	for b.Loop() {
		buf, err := wire.Encode(f)
		if err != nil {
			b.Fatal(err)
		}
		_ = cache.describe(buf)
		_ = cache.describe(buf)
		if _, err := wire.Decode(buf); err != nil {
			b.Fatal(err)
		}
		delete(cache.lines, &buf[0])
	}
}

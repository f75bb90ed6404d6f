package world

import (
	"encoding/json"
	"runtime/debug"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/cputime"
	"github.com/turnstile-sim/turnstile/internal/freelist"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/campaign"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/linearize"
	"github.com/turnstile-sim/turnstile/wire"
)

// BenchmarkCampaignSeed runs one default seed per iteration exactly as a
// campaign does (Run: world, checkers, linearizability, at the campaign
// workers' GC target, padded-frame buffers kept from seed to seed),
// cycling through seeds so the figure is a campaign average. JSON is on the path: every frame is encoded by its sender and
// strictly decoded once, the decoding shared by its trace line, the wire
// tap and its receiver. It reports events/s, frames per seed, the wall
// time per delivered frame (the whole seed's cost divided by its frames)
// and the process CPU time per seed (GC workers included), the figure to
// compare on a loaded machine.
func BenchmarkCampaignSeed(b *testing.B) {
	benchCampaignSeed(b, Config{Pads: &freelist.List{Max: 8}}, campaign.WorkerGCPercent)
}

// BenchmarkCampaignSeedGC100 is BenchmarkCampaignSeed at the runtime's
// default GC target: the code's share of the speed-up.
func BenchmarkCampaignSeedGC100(b *testing.B) {
	benchCampaignSeed(b, Config{Pads: &freelist.List{Max: 8}}, 100)
}

func benchCampaignSeed(b *testing.B, cfg Config, gcPercent int) {
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	var events, frames uint64
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for i := 0; b.Loop(); i++ {
		o := Run(uint64(i%500+1), cfg)
		events += o.Result.Stats.Events
		frames += o.Result.Stats.FramesDelivered
	}
	cpu := cputime.Process() - cpu0
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/secs, "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/seed")
	b.ReportMetric(float64(frames)/float64(b.N), "frames/seed")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(frames, 1)), "ns/frame")
	if cputime.Measured {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/seed")
	}
}

// BenchmarkLinearizeSeed times porcupine alone on the ledgers of default
// seeds (built outside the timer).
func BenchmarkLinearizeSeed(b *testing.B) {
	const seeds = 50
	ledgers := make([]*check.Ledger, seeds)
	for i := range ledgers {
		var u *universe
		opts := Options(Config{})
		opts.Setup = func(w *sim.Kernel) { u = setup(w, Config{}, false) }
		sim.Run(uint64(i+1), opts)
		u.wl.flush(u.lt(u.w.Now()))
		ledgers[i] = u.led
	}
	for i := 0; b.Loop(); i++ {
		if r := linearize.Check(ledgers[i%seeds].History(), linearize.Options{}); r.Partitions == 0 {
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

// benchFrames is a mix of the frames a default seed carries most: a Run's
// delta, a heartbeat with its full capability object, an admission
// request and its status.
func benchFrames() []wire.Frame {
	return []wire.Frame{
		{ID: "t-1", Payload: wire.Delta{ItemID: "item-1", Delta: "hello, world", Sequence: 7}},
		{Payload: wire.Heartbeat{TS: 1760000000000, ActiveRequests: 1, DaemonVersion: "1.2.3",
			SupportedAgentKinds: []wire.SupportedAgentKind{{Kind: agentKind, Available: true, Version: "1",
				Capabilities: wire.AllCapabilities(wire.CapabilitySupported)}}}},
		{ID: "p-1", Payload: wire.ExecutionPrepare{SessionID: "s-1", Configuration: wire.ExecutionConfiguration{
			AgentKind: agentKind, AgentStateKey: "agents-api-s-1", StrictResume: true, DisableExecutionEnvironment: true,
			AgentOptions: map[string]json.RawMessage{"model": json.RawMessage(`"m1"`)}}}},
		{ID: "p-1", Payload: wire.PreparationStatus{ExecutorID: "e-1", Handle: "h-1", Revision: 2, State: "ready", ExpiresAt: 1760000300000}},
	}
}

// BenchmarkFramePath is the JSON work the world does for each frame: the
// sender encodes it, the kernel describes it for the trace at send and at
// delivery and the wire tap reads it (one shared decoding), and the
// receiver decodes it strictly.
func BenchmarkFramePath(b *testing.B) {
	frames := benchFrames()
	u := &universe{}
	shared := u.decodeSent
	cache := newDescribeCache(shared)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf, err := wire.Encode(frames[i%len(frames)])
		if err != nil {
			b.Fatal(err)
		}
		_ = cache.describe(buf) // sent
		_, _ = shared(buf)      // tapped when sent
		_ = cache.describe(buf) // delivered
		if _, err := wire.Decode(buf); err != nil {
			b.Fatal(err)
		}
		delete(cache.lines, &buf[0])
		delete(u.tapped, &buf[0])
	}
}

package world

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

func hostileFaults() []sim.FaultKind {
	return []sim.FaultKind{kHostileProxy.kind, kHostileFrames.kind, kRogueDaemon.kind}
}

// TestHostilePeersAreRefusedAsDocumented: under the hostile kinds alone
// no seed fails, every honest turn still ends, and the forgeries of every
// family are judged and refused as the seeds document.
func TestHostilePeersAreRefusedAsDocumented(t *testing.T) {
	outs := sweep(t, 1, 16, Config{Faults: hostileFaults()})
	refused := map[string]int{}
	forged := uint64(0)
	for _, o := range outs {
		if o.Result.Failed() {
			t.Fatalf("seed %d failed under hostile peers: %v", o.Result.Seed, o.Result.Violations)
		}
		if !o.Result.Converged {
			t.Fatalf("seed %d did not converge: %s", o.Result.Seed, o.Result.Pending)
		}
		forged += o.Result.Stats.FramesForged
		for m, n := range o.Result.Marks {
			refused[m] += n
		}
	}
	if forged == 0 {
		t.Fatal("no frame was forged")
	}
	for _, a := range []string{check.HostileStartNeverGranted, check.HostileStartInvalid, check.HostileReleaseEmpty,
		check.HostilePrepareConflict, check.HostileCancelUnknownRun, check.HostileSteerLongInputID,
		check.HostileRogueForeignFrame, check.HostileRogueWrongVersion} {
		if refused[string(check.HostileMark(a))] == 0 {
			t.Errorf("no %s refused in 16 seeds", a)
		}
	}
}

// TestHostileKindsAreInTheDefaultSwarm: the default world offers the
// hostile kinds to the swarm, and a seed's schedule can draw them.
func TestHostileKindsAreInTheDefaultSwarm(t *testing.T) {
	kinds := FaultKinds()
	for _, k := range hostileFaults() {
		if !slices.Contains(kinds, k) {
			t.Fatalf("%s missing from FaultKinds %v", k, kinds)
		}
	}
	drawn := map[sim.FaultKind]bool{}
	for seed := uint64(1); seed <= 30 && len(drawn) < 3; seed++ {
		o := Run(seed, Config{Turns: 1})
		for _, k := range o.Result.Schedule.Enabled {
			if slices.Contains(hostileFaults(), k.Kind) {
				drawn[k.Kind] = true
			}
		}
	}
	if len(drawn) != 3 {
		t.Fatalf("the swarm drew only %v of the hostile kinds in 30 seeds", drawn)
	}
}

func TestPadToAndInflateIDKeepTheFrame(t *testing.T) {
	b := encodeFrame("p-1", wire.ExecutionRelease{Handle: "h-1"})
	u := &universe{}
	padded := u.padTo(b, 4096)
	f, err := wire.Decode(padded)
	if len(padded) != 4096 || err != nil || f.ID != "p-1" {
		t.Fatalf("padded frame: %d bytes, %v, id %q", len(padded), err, f.ID)
	}
	if got := u.padTo(b, 10); string(got) != string(b) {
		t.Fatal("padTo must not shorten a frame")
	}
	long, ok := inflateID(b, hostileRand(sim.Fault{Pick: 7}))
	if !ok {
		t.Fatal("inflateID refused a frame with an ID")
	}
	if _, err := wire.Decode(long); err == nil {
		t.Fatal("an inflated ID must be refused by the decoder")
	}
	if _, ok := inflateID(encodeFrame("", wire.Heartbeat{TS: 1}), hostileRand(sim.Fault{})); ok {
		t.Fatal("a frame without an ID has nothing to inflate")
	}
}

// TestInflatedIDsReachTheBoundary: inflated IDs are 129 to 1,024 bytes,
// and one byte over the limit is among them (an off-by-one limit check
// only shows there).
func TestInflatedIDsReachTheBoundary(t *testing.T) {
	b := encodeFrame("p-1", wire.ExecutionRelease{Handle: "h-1"})
	lengths := map[int]int{}
	for pick := range uint64(64) {
		long, ok := inflateID(b, hostileRand(sim.Fault{Pick: pick}))
		if !ok {
			t.Fatal("inflateID refused a frame with an ID")
		}
		var env struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(long, &env); err != nil {
			t.Fatalf("inflated frame is not JSON: %v", err)
		}
		if n := len(env.ID); n <= wire.IDBytesMax || n > 1024 {
			t.Fatalf("inflated ID of %d bytes, want 129..1024", n)
		}
		lengths[len(env.ID)]++
	}
	if lengths[wire.IDBytesMax+1] == 0 || len(lengths) < 2 {
		t.Fatalf("inflated ID lengths %v: want the boundary 129 and longer ones", lengths)
	}
}

// TestEncodeFrameSendsWhatTheEncoderRefuses: a forged frame the wire
// package's validation refuses is still sent, rendered by encoding/json,
// so the peer under test (not the encoder it shares) is judged.
func TestEncodeFrameSendsWhatTheEncoderRefuses(t *testing.T) {
	p := wire.PromptSteer{InputID: " ", Input: hostileInput("blank"), DurableReceipt: true}
	if _, err := wire.Encode(wire.Frame{ID: "r", Payload: p}); err == nil {
		t.Fatal("the probe must be one the encoder refuses")
	}
	b := string(encodeFrame("r", p))
	if !strings.Contains(b, `"type":"prompt_steer","id":"r"`) || !strings.Contains(b, `"input_id":" "`) {
		t.Fatalf("sent %s", b)
	}
	ok := wire.PromptSteer{InputID: "1", Input: hostileInput("fine"), DurableReceipt: true}
	want, err := wire.Encode(wire.Frame{ID: "r", Payload: ok})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(encodeFrame("r", ok)); got != string(want) {
		t.Fatalf("a valid frame: %s, want the canonical %s", got, want)
	}
}

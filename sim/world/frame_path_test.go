package world

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// A decoding shared by the trace, the wire tap, the ledger's checkers and
// the receiving machine is one value for all of them: at the end of the
// run each must still equal a fresh decoding of its bytes, so nobody
// changed a frame another one reads.
func TestSharedDecodingsUnchanged(t *testing.T) {
	testgate.Long(t) // five seeds, every frame decoded again
	cfg := Config{auditSharedFrames: true}
	for _, seed := range []uint64{3, 8, 21, 55, 144} {
		var u *universe
		opts := Options(cfg)
		opts.Setup = func(w *sim.Kernel) { u = setup(w, cfg, false) }
		sim.Run(seed, opts)
		if len(u.shared) == 0 {
			t.Fatalf("seed %d: no decoding was shared with a receiver", seed)
		}
		for _, s := range u.shared {
			f, err := wire.Decode(s.raw)
			if fmt.Sprint(err) != fmt.Sprint(s.err) || !reflect.DeepEqual(f, s.frame) {
				t.Fatalf("seed %d: a shared decoding changed:\nfresh  %#v (%v)\nshared %#v (%v)", seed, f, err, s.frame, s.err)
			}
		}
	}
}

// A receiver takes the tap's decoding only for the very bytes the tap
// saw delivered, and only once.
func TestDecodeDeliveredOnlyTheTappedBytes(t *testing.T) {
	u := &universe{}
	a, err := wire.Encode(wire.Frame{ID: "t-1", Payload: wire.Delta{ItemID: "i-1", Delta: "x", Sequence: 1}})
	if err != nil {
		t.Fatal(err)
	}
	planted := wire.Frame{ID: "planted", Payload: wire.Delta{ItemID: "i-9", Delta: "y", Sequence: 9}}
	u.delivering = tappedFrame{raw: a, frame: planted}
	if f, _ := u.decodeDelivered(append([]byte(nil), a...)); f.ID != "t-1" {
		t.Fatalf("a copy of the bytes took the tap's decoding: %+v", f)
	}
	u.delivering = tappedFrame{raw: a, frame: planted}
	if f, _ := u.decodeDelivered(a); f.ID != "planted" {
		t.Fatalf("the tapped bytes were decoded again: %+v", f)
	}
	if f, _ := u.decodeDelivered(a); f.ID != "t-1" {
		t.Fatalf("a decoding was handed out twice: %+v", f)
	}
	u.delivering = tappedFrame{raw: a, frame: planted}
	if f, _ := u.decodeDelivered(a[:len(a)-1]); f.ID == "planted" {
		t.Fatalf("a prefix of the tapped bytes took the tap's decoding")
	}
}

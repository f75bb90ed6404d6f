package world

import (
	"bytes"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// padStack is a Pads that never drops a buffer (sync.Pool may, at any
// GC), so the tests know a buffer was reused.
type padStack struct {
	bufs       []any
	gets, puts int
}

func (s *padStack) Get() any {
	if len(s.bufs) == 0 {
		return nil
	}
	s.gets++
	b := s.bufs[len(s.bufs)-1]
	s.bufs = s.bufs[:len(s.bufs)-1]
	return b
}

func (s *padStack) Put(b any) { s.puts++; s.bufs = append(s.bufs, b) }

// TestPadsReusedBufferPadsAsAFreshOne pads a long frame far over the
// limit, returns its buffer, and pads a short frame to fewer bytes in the
// same buffer: byte for byte what a fresh buffer gives.
func TestPadsReusedBufferPadsAsAFreshOne(t *testing.T) {
	pads := &padStack{}
	long := encodeFrame("p-1", wire.Heartbeat{TS: 1, DaemonVersion: strings.Repeat("v", 3000)})
	short := encodeFrame("p-2", wire.ExecutionRelease{Handle: "h-1"})

	first := &universe{cfg: Config{Pads: pads}}
	a := first.padTo(long, sim.FrameBytesMax+1+4096)
	first.returnPads()
	second := &universe{cfg: Config{Pads: pads}}
	b := second.padTo(short, sim.FrameBytesMax-4096)
	if pads.gets != 1 || &a[0] != &b[0] {
		t.Fatalf("the second frame was not cut from the returned buffer (%d gets)", pads.gets)
	}
	want := (&universe{}).padTo(short, sim.FrameBytesMax-4096)
	if !bytes.Equal(b, want) {
		t.Fatalf("a reused buffer pads %q… differently from a fresh one", b[:64])
	}
	if f, err := wire.Decode(b); err != nil || f.ID != "p-2" {
		t.Fatalf("the reused padded frame decodes as %+v, %v", f, err)
	}
	if cap(b) != len(b) {
		t.Fatal("a padded frame must not be appendable into its buffer's spaces")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("padding beyond the longest padded frame must panic")
		}
	}()
	second.padTo(short, padBytesMax+1)
}

// TestPadsKeepEveryFingerprint runs the hostile kinds, which pad frames,
// with and without lent buffers: the same fingerprints, and buffers were
// lent and reused.
func TestPadsKeepEveryFingerprint(t *testing.T) {
	pads := &padStack{}
	for seed := uint64(1); seed <= 12; seed++ {
		fresh := Run(seed, Config{Faults: hostileFaults()})
		lent := Run(seed, Config{Faults: hostileFaults(), Pads: pads})
		if fresh.Result.Fingerprint != lent.Result.Fingerprint {
			t.Fatalf("seed %d: fingerprint %s with lent pad buffers, %s without", seed,
				lent.Result.Fingerprint, fresh.Result.Fingerprint)
		}
	}
	if pads.puts == 0 || pads.gets == 0 {
		t.Fatalf("12 hostile seeds lent %d pad buffers and reused %d", pads.puts, pads.gets)
	}
}

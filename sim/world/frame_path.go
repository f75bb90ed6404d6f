package world

import "github.com/turnstile-sim/turnstile/wire"

// The frame path is the JSON work the world does for each frame. The
// campaign path decodes every frame once, with wire.Decode, when it is
// sent: its trace line, the wire tap (at sending and at delivery) and its
// receiver share that decoding, reused only for the very bytes that left
// (a frame rewritten in between is decoded anew). Every frame is still
// encoded by its sender and strictly decoded from its bytes; a decoding
// is a value no machine or checker changes (a test audits this).
// Config.referenceFramePath selects the path as it was before the
// one-pass decoder (benchmarks and their equivalence test only): every
// decoding goes through wire.DecodeReference, the trace line decodes a
// frame apart from the tap, and each receiver decodes it again. Both
// paths give the same trace, byte for byte.

// decode decodes a frame for the world's own nodes (Core, the tap, the
// hostile middle).
func (u *universe) decode(b []byte) (wire.Frame, error) {
	if u.cfg.referenceFramePath {
		return wire.DecodeReference(b)
	}
	return wire.Decode(b)
}

// traceDecoder is how the trace decodes a frame it has not rendered yet;
// u is the universe once Setup has run (before any frame is sent).
func traceDecoder(cfg Config, u **universe) func([]byte) (wire.Frame, error) {
	if cfg.referenceFramePath {
		return wire.DecodeReference
	}
	return func(b []byte) (wire.Frame, error) {
		if *u == nil {
			return wire.Decode(b)
		}
		return (*u).decodeSent(b)
	}
}

// decodeDelivered is how a receiver (Core, a daemon) decodes the frame
// being delivered to it: the tap's decoding of those very bytes, taken
// once; anything else is decoded here.
func (u *universe) decodeDelivered(b []byte) (wire.Frame, error) {
	t := u.delivering
	u.delivering = tappedFrame{}
	if u.cfg.referenceFramePath || len(b) == 0 || len(t.raw) != len(b) || &t.raw[0] != &b[0] {
		return u.decode(b)
	}
	if u.cfg.auditSharedFrames {
		u.shared = append(u.shared, t)
	}
	return t.frame, t.err
}

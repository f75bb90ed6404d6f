package world

import "github.com/turnstile-sim/turnstile/wire"

// The frame path is the JSON work the world does for each frame. The
// campaign path decodes every frame with wire.Decode and shares one
// decoding of a sent frame between its trace line and the wire tap.
// Config.referenceFramePath selects the path as it was before the
// one-pass decoder (benchmarks and their equivalence test only): every
// decoding goes through wire.DecodeReference, and the trace line decodes
// a frame apart from the tap. Both paths give the same trace, byte for
// byte.

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

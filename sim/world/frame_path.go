package world

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// The frame path is the JSON work the world does for each frame. The
// campaign path decodes every frame once, with wire.Decode, when it is
// sent: its trace line, the wire tap (at sending and at delivery) and its
// receiver share that decoding, reused only for the very bytes that left
// (a frame rewritten in between is decoded anew). Every frame is still
// encoded by its sender and strictly decoded from its bytes; a decoding
// is a value no machine or checker changes (a test audits this).

// decode decodes a frame for the world's own nodes (Core, the tap, the
// hostile middle).
func (u *universe) decode(b []byte) (wire.Frame, error) { return wire.Decode(b) }

// traceDecoder is how the trace decodes a frame it has not rendered yet;
// u is the universe once Setup has run (before any frame is sent).
func traceDecoder(u **universe) func([]byte) (wire.Frame, error) {
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
	if len(b) == 0 || len(t.raw) != len(b) || &t.raw[0] != &b[0] {
		return u.decode(b)
	}
	if u.cfg.auditSharedFrames {
		u.shared = append(u.shared, t)
	}
	return t.frame, t.err
}

// encodeSent is how a machine's shell (Core's, a daemon's) encodes a frame
// it sends. On the campaign path the encoder's own strict scan is left out:
// the frame is strictly decoded here at once instead, the decoding the tap
// and the receiver then reuse, so a frame the encoder gets wrong is still
// refused before it leaves, with the decoder's reason.
func (u *universe) encodeSent(f wire.Frame) ([]byte, error) {
	b, err := wire.EncodeUnverified(f)
	if err != nil {
		return nil, err
	}
	if u.cfg.breakEncoding != nil {
		b = u.cfg.breakEncoding(f, b)
	}
	if _, err := u.decodeSent(b); err != nil {
		delete(u.tapped, &b[0])
		return nil, fmt.Errorf("encoded frame fails the strict decoder: %w", err)
	}
	return b, nil
}

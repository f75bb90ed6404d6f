package world

import (
	"bytes"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// tapWire hands every network event to the ledger with its frame decoded.
// A frame is decoded when it is sent; its delivery or loss reuses that
// decoding only when the bytes that arrive are the very bytes that left
// (anything that rewrote them in between is decoded anew).
func (u *universe) tapWire(ev sim.TapEvent) {
	we := check.WireEvent{At: ev.At, Kind: ev.Kind.String(), Conn: uint64(ev.Conn),
		From: string(ev.From), To: string(ev.To), Raw: ev.Frame, Reason: ev.Reason,
		Forged: ev.Forged}
	if len(ev.Frame) > 0 {
		we.Frame, we.DecodeErr = u.decodeTapped(ev)
	}
	u.led.Wire(we)
	u.watchHostile(ev, we)
	u.scanTokens(ev, we)
}

// tappedFrame is a sent frame's decoding, kept until it is delivered or lost.
type tappedFrame struct {
	raw   []byte
	frame wire.Frame
	err   error
}

func (u *universe) decodeTapped(ev sim.TapEvent) (wire.Frame, error) {
	key := &ev.Frame[0]
	if ev.Kind == sim.TapSent {
		return u.decodeSent(ev.Frame)
	}
	t, ok := u.tapped[key]
	if ok && bytes.Equal(t.raw, ev.Frame) {
		delete(u.tapped, key)
	} else {
		t = tappedFrame{raw: ev.Frame}
		t.frame, t.err = u.decode(ev.Frame)
	}
	if ev.Kind == sim.TapDelivered {
		u.delivering = t
	}
	return t.frame, t.err
}

// decodeSent is the decoding of a frame being sent, made once for both its
// trace line and the tap (whichever asks first) and kept until the frame
// is delivered or lost.
func (u *universe) decodeSent(b []byte) (wire.Frame, error) {
	key := &b[0]
	if t, ok := u.tapped[key]; ok && bytes.Equal(t.raw, b) {
		return t.frame, t.err
	}
	f, err := u.decode(b)
	if u.tapped == nil {
		u.tapped = map[*byte]tappedFrame{}
	}
	u.tapped[key] = tappedFrame{raw: b, frame: f, err: err}
	return f, err
}

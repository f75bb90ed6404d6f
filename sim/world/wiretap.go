package world

import (
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// tapWire hands every network event to the ledger, each frame decoded on
// its own: a frame sent and the same frame delivered are decoded twice, so
// anything that changes bytes in between is seen as it arrives.
func (u *universe) tapWire(ev sim.TapEvent) {
	we := check.WireEvent{At: ev.At, Kind: ev.Kind.String(), Conn: uint64(ev.Conn),
		From: string(ev.From), To: string(ev.To), Raw: ev.Frame, Reason: ev.Reason,
		Forged: ev.Forged}
	if len(ev.Frame) > 0 {
		we.Frame, we.DecodeErr = wire.Decode(ev.Frame)
	}
	u.led.Wire(we)
	u.watchHostile(ev, we)
}

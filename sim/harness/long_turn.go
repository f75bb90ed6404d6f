package harness

import "time"

// Long turns armed by Run. A native engine may run one turn far longer
// than the Harness's usual draws (a long tool loop, a large edit), and a
// peer that keeps writing inputs into it meets the daemon's per-Run input
// limit while the Run is still live. ArmLongTurn makes the native turn of
// run, when it starts, a long one (longTurn) whatever the device's
// Config.LongTurnsMax; the world's rogue Core arms it for its own Run, so
// its 256 durable inputs one after the other fit in one native turn.

// ArmLongTurn arms the native turn of run to be a long one.
func (d *Device) ArmLongTurn(run string) {
	if d.longRun == nil {
		d.longRun = map[string]bool{}
	}
	d.longRun[run] = true
}

// armedLong reports, and consumes, an armed long turn for run.
func (d *Device) armedLong(run string) bool {
	if !d.longRun[run] {
		return false
	}
	delete(d.longRun, run)
	return true
}

// longTurn draws an armed long turn's shape: 8–10 steps 10–14 s apart,
// so 90–154 s of native work, longer than a write that overruns the
// daemon's budget (up to 60 s) and 256 writes one after the other.
func (h *Harness) longTurn() (int, time.Duration) {
	return 8 + h.r.IntN(3), h.ms(10000, 4000)
}

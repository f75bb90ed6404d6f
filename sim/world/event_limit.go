package world

// Run events per Turn: Core's limit is drawn small in a fifth of the seeds
// (from the "event-limit" stream, apart from every other draw), so that a
// Turn's output reaches it and Core must fail the Turn
// event_persistence_failed instead of dropping events; otherwise it is the
// world's own large bound, which no workload reaches. The ledger is told
// the world's number, never Core's resolved one.
const runEventsLarge = 1 << 16

func (u *universe) drawEventLimit() {
	n := runEventsLarge
	if r := u.w.Rand("event-limit"); r.IntN(5) == 0 && !u.faultFree() {
		n = 4 + r.IntN(24)
	}
	u.coreCfg.RunEventsPerTurnMax = n
	u.led.CoreEventLimit(n)
}

// faultFree: the world runs without faults (Config.Faults empty, not nil),
// where every Turn must complete: neither held receipts nor a small event
// limit apply there.
func (u *universe) faultFree() bool { return u.cfg.Faults != nil && len(u.cfg.Faults) == 0 }

package world

// The Harness's cleanup ground truth for the daemon's retry oracles
// (harness.RetryRecorder; sim/check/timing_close_retry.go).

func (r ledgerRecorder) SettleCalled(at int64, device, run string) {
	r.u.led.SettleCalled(at, device, run)
}

func (r ledgerRecorder) SettleAnswered(at int64, device, run string, settled bool) {
	r.u.led.SettleAnswered(at, device, run, settled)
}

func (r ledgerRecorder) CloseAnswered(at int64, device, executor string, ok bool) {
	r.u.led.CloseAnswered(at, device, executor, ok)
}

package world

import "github.com/turnstile-sim/turnstile/wire"

// StartAnswered passes the Harness's native start answers to the ledger
// (harness.StartRecorder).
func (r ledgerRecorder) StartAnswered(at int64, device, run string) {
	r.u.led.StartAnswered(at, device, run)
	r.u.count("StartAnswered")
}

// NativeDone passes the Harness's native terminal results, with their
// usage, to the ledger (harness.DoneRecorder).
func (r ledgerRecorder) NativeDone(at int64, device, run string, usage *wire.Usage) {
	r.u.led.NativeDone(at, device, run, usage)
	r.u.count("NativeDone")
}

// CloseFailed passes the Harness's failed closes to the ledger
// (harness.CloseFailRecorder).
func (r ledgerRecorder) CloseFailed(at int64, device, executor string) {
	r.u.led.CloseFailed(at, device, executor)
	r.u.count("CloseFailed")
}

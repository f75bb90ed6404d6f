package world

import (
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
)

// The timing oracles' records: the Harness's native calls as they arrive
// and return (harness.TimingRecorder), the budget of every daemon send,
// Core finishing a turn, crashes, shutdown requests and the timers the
// seed configured away from the documents' numbers.

func (r ledgerRecorder) WriteCalled(at int64, device, run, input string) {
	r.u.led.WriteCalled(at, device, run, input)
	r.u.count("WriteCalled")
}

func (r ledgerRecorder) WriteReturned(at int64, device, run, input, outcome string) {
	r.u.led.WriteReturned(at, device, run, input, outcome)
	r.u.count("WriteReturned")
}

func (r ledgerRecorder) CancelFailed(at int64, device, run string) {
	r.u.led.CancelFailed(at, device, run)
	r.u.count("CancelFailed")
}

func (r ledgerRecorder) CloseCalled(at int64, device, executor string) {
	r.u.led.CloseCalled(at, device, executor)
	r.u.count("CloseCalled")
}

func (r ledgerRecorder) NativeAnswered(at int64, device string) {
	r.u.led.NativeAnswered(at, device)
}

func (r ledgerRecorder) ProcessDied(at int64, device string) {
	r.u.led.NodeCrashed(at, device)
	r.u.envProbeNodeDown(sim.NodeID(device))
	r.u.count("NodeCrashed")
}

// observeBudget records the budget a daemon put on a send.
func (o *devObserver) observeBudget(now time.Time, s daemon.Send) {
	if s.Frame.Payload == nil {
		return
	}
	o.u.led.ReceiptBudget(o.u.lt(now), string(o.d.ID), s.Frame.Payload.MessageType(), s.Budget)
	o.u.count("ReceiptBudget")
}

// configuredTimers tells the ledger the timers this seed drew for a
// device away from the documents' numbers (cfgLimits are the world's own
// draws, before the machine fills its defaults).
func (u *universe) configuredTimers(device string, drawn drawnTimers) {
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{check.TimerAdmission, drawn.admission}, {check.TimerIdleExecutor, drawn.idle}, {check.TimerHeartbeat, drawn.heartbeat},
		{check.TimerTransferExpiry, drawn.transfer}} {
		if t.d > 0 {
			u.led.TimerConfigured(device, t.name, t.d)
		}
	}
}

// drawnTimers are the timer durations the world drew for a device; zero
// leaves the documents' value.
type drawnTimers struct {
	admission, idle, heartbeat, transfer time.Duration
}

// turnFinished records Core finishing a turn durably.
func (s *observedStore) turnFinished(at int64, id, run, state, code string) {
	s.u.led.TurnFinished(at, id, run, state, code)
	s.u.count("TurnFinished")
}

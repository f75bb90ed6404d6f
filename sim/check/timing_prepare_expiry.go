package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: timing_prepare_transfer_expiry (rules.go), from the wire, as
// timing_workspace_daemon.go judges a write transfer's expiry, except
// that any terminal result ends the transfer: one not answering a frame
// that arrived in its instant is the expiry, unless it is failed (its
// staging failing).

// prepareStepReceived notes a runtime_prepare frame reaching a daemon; a
// commit ends the transfer's window (the installation may outlast it).
func (l *Ledger) prepareStepReceived(ev WireEvent, p wire.RuntimePrepare) {
	l.timing.prepDaemon.arrived(connFrameKey(ev.Conn, ev.Frame.ID), ev.At, p.Step == wire.StepCommit)
}

// prepareResultSent: a ready opens a transfer; a terminal result ends it,
// and is the expiry when no frame of it arrived at that instant and its
// staging did not fail.
func (l *Ledger) prepareResultSent(ev WireEvent, r wire.RuntimePrepareResult) {
	s := &l.timing.prepDaemon
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	t, device, id := s.live(k), ev.From, ev.Frame.ID
	answered := s.answers(k, ev.At)
	switch {
	case r.Outcome == wire.OutcomeReady && t == nil:
		t = s.open(k)
		l.startWindow(t, device, TimerPrepareExpiry, ev.Conn, ev.At, l.timer(device, TimerPrepareExpiry), func() {
			l.expire(t, "%s kept runtime_prepare transfer %s (ready at %s) open past its %s expiry at %s with no commit",
				device, id, vtime(t.from), t.length(), vtime(t.deadline))
		})
	case t == nil || r.Outcome == wire.OutcomeReady || r.Outcome == wire.OutcomeReceived:
	case answered && r.ErrorCode == wire.TransferCapacity:
		// a begin repeated on the open transfer's ID: refused, the
		// transfer goes on
	case answered || r.Outcome == wire.OutcomeFailed:
		t.settled = true
	case ev.At == t.deadline && r.Outcome == wire.OutcomeRejected && r.ErrorCode == wire.TransferInvalidRequest:
		t.settled = true
		l.decide(TimerPrepareExpiry)
	case ev.At == t.deadline:
		t.settled = true
		l.report(t, ev.At, "%s expired runtime_prepare transfer %s answering %s %s, want rejected %s",
			device, id, r.Outcome, r.ErrorCode, wire.TransferInvalidRequest)
	default:
		t.settled = true
		l.report(t, ev.At, "%s ended runtime_prepare transfer %s (ready at %s) %s %s at %s, %s after its ready, "+
			"with no frame of it arriving then: its expiry is %s", device, id, vtime(t.from), r.Outcome, r.ErrorCode,
			vtime(ev.At), t.elapsed(ev.At), t.length())
	}
}

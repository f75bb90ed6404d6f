package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: timing_workspace_transfer_expiry and timing_reader_close_retry
// (rules.go). A transfer starts with the ready the daemon sent for its
// begin and ends with a commit reaching the daemon, a refusal the daemon
// sends in the instant one of its frames arrives (an invalid step drops
// it), its connection ending or the daemon dying: a refusal at no such
// instant is the expiry. Reader closes are judged from the Harness's
// ground truth.

// daemonExpiries follows the transfers of one kind a daemon expires.
type daemonExpiries struct {
	windows   map[string]*timerWindow // conn\x00id → expiry window from the ready; a new ready replaces one not live
	lastFrame map[string]int64        // conn\x00id → instant a frame of it reached the daemon
}

// arrived notes a frame of transfer k reaching the daemon at at; its
// commit ends the window (applied or refused then, never expired).
func (x *daemonExpiries) arrived(k string, at int64, commit bool) {
	made(&x.lastFrame)[k] = at
	if t := x.windows[k]; t != nil && commit {
		t.settled = true
	}
}

// answers: a refusal sent at at answers a frame of transfer k that
// arrived in that same instant (it is no expiry).
func (x *daemonExpiries) answers(k string, at int64) bool {
	v, ok := x.lastFrame[k]
	return ok && v == at
}

// live is k's window unless it has ended.
func (x *daemonExpiries) live(k string) *timerWindow {
	if t := x.windows[k]; t != nil && t.live() {
		return t
	}
	return nil
}

// open starts a new window for k, to be armed by the caller.
func (x *daemonExpiries) open(k string) *timerWindow {
	t := &timerWindow{}
	made(&x.windows)[k] = t
	return t
}

func connFrameKey(conn uint64, id string) string { return pairKey(connKey(conn), id) }

// transferWriteReceived notes a write frame reaching a daemon.
func (l *Ledger) transferWriteReceived(ev WireEvent, w wire.WorkspaceWrite) {
	l.timing.wsDaemon.arrived(connFrameKey(ev.Conn, ev.Frame.ID), ev.At, w.Step == wire.StepCommit)
}

// transferResultSent: a first ready starts a transfer; a refusal ends it,
// and is the expiry when no frame of it arrived at that instant.
func (l *Ledger) transferResultSent(ev WireEvent, r wire.WorkspaceWriteResult) {
	s := &l.timing.wsDaemon
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	t, device, id := s.live(k), ev.From, ev.Frame.ID
	switch {
	case r.Outcome == wire.OutcomeReady && t == nil:
		t = s.open(k)
		l.startWindow(t, device, TimerTransferExpiry, ev.Conn, ev.At, l.timer(device, TimerTransferExpiry), func() {
			l.expire(t, "%s kept write transfer %s (accepted at %s) past its %s expiry at %s",
				device, id, vtime(t.from), t.length(), vtime(t.deadline))
		})
	case r.Outcome == wire.OutcomeRejected && t != nil:
		t.settled = true
		if s.answers(k, ev.At) {
			return // refused in answer to one of its frames
		}
		switch {
		case ev.At == t.deadline && r.ErrorCode == wire.WriteInvalidRequest:
			l.decide(TimerTransferExpiry)
		case ev.At == t.deadline:
			l.report(t, ev.At, "%s expired write transfer %s refusing it %s, want %s",
				device, id, r.ErrorCode, wire.WriteInvalidRequest)
		default:
			l.report(t, ev.At, "%s refused write transfer %s (accepted at %s) at %s, %s after it, "+
				"with no frame of it arriving then: its expiry is %s", device, id, vtime(t.from), vtime(ev.At),
				t.elapsed(ev.At), t.length())
		}
	}
}

// WorkspaceCloseCalled records a read-only profile's close reaching the
// Harness (ground truth).
func (l *Ledger) WorkspaceCloseCalled(at int64, device, reader string) {
	l.advance(at)
	l.cleanupCalled(l.timing.cleanup.readers, at, pairKey(device, reader))
}

func (l *Ledger) readerCloseAnswered(at int64, device, reader string, ok bool) {
	l.cleanupAnswered(&l.timing.cleanup.readers, at, reader, ok,
		retryOwed{timer: TimerReaderCloseRetry, who: device, what: "the close of reader " + reader})
}

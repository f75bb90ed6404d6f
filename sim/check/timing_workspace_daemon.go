package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: timing_workspace_transfer_expiry and timing_reader_close_retry
// (rules.go). A transfer starts with the ready the daemon sent for its
// begin and ends with a commit reaching the daemon, a refusal the daemon
// sends in the instant one of its frames arrives (an invalid step drops
// it), its connection ending or the daemon dying: a refusal at no such
// instant is the expiry. Reader closes are judged from the Harness's
// ground truth.

type wsDaemonState struct {
	transfers map[string]*timerWindow // conn\x00id → a write transfer's expiry window; a new ready replaces one not live
	lastFrame map[string]int64        // conn\x00id → instant a write frame of it reached the daemon
}

func connFrameKey(conn uint64, id string) string { return pairKey(connKey(conn), id) }

// transferWriteReceived notes a write frame reaching a daemon; a commit
// ends its transfer (applied or refused now, never expired).
func (l *Ledger) transferWriteReceived(ev WireEvent, w wire.WorkspaceWrite) {
	s := &l.timing.wsDaemon
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	made(&s.lastFrame)[k] = ev.At
	if t := s.transfers[k]; t != nil && w.Step == wire.StepCommit {
		t.settled = true
	}
}

// transferResultSent: a first ready starts a transfer; a refusal ends it,
// and is the expiry when no frame of it arrived at that instant.
func (l *Ledger) transferResultSent(ev WireEvent, r wire.WorkspaceWriteResult) {
	s := &l.timing.wsDaemon
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	t, device, id := s.transfers[k], ev.From, ev.Frame.ID
	switch {
	case r.Outcome == wire.OutcomeReady && (t == nil || !t.live()):
		t = &timerWindow{}
		made(&s.transfers)[k] = t
		l.startWindow(t, device, TimerTransferExpiry, ev.Conn, ev.At, l.timer(device, TimerTransferExpiry), func() {
			l.expire(t, "%s kept write transfer %s (accepted at %s) past its %s expiry at %s",
				device, id, vtime(t.from), t.length(), vtime(t.deadline))
		})
	case r.Outcome == wire.OutcomeRejected && t != nil && t.live():
		t.settled = true
		if at, ok := s.lastFrame[k]; ok && at == ev.At {
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

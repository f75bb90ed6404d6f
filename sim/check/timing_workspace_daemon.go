package check

import (
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_workspace_transfer_expiry and timing_reader_close_retry
// (rules.go). A transfer starts with the ready the daemon sent for its
// begin and ends with a commit reaching the daemon, a refusal the daemon
// sends in the instant one of its frames arrives (an invalid step drops
// it), its connection ending or the daemon dying: a refusal at no such
// instant is the expiry. Reader closes are judged from the Harness's
// ground truth.

// dTransfer is one write transfer a daemon accepted, its expiry window
// from the ready: settled once the transfer ended.
type dTransfer struct {
	device, id string
	timerWindow
}

type wsDaemonState struct {
	transfers map[string]*dTransfer // conn\x00id
	lastFrame map[string]int64      // conn\x00id → instant a write frame of it reached the daemon
}

func connFrameKey(conn uint64, id string) string { return pairKey(uintKey(conn), id) }

func uintKey(v uint64) string { return strconv.FormatUint(v, 10) }

// transferWriteReceived notes a write frame reaching a daemon; a commit
// ends its transfer (applied or refused now, never expired).
func (l *Ledger) transferWriteReceived(ev WireEvent, w wire.WorkspaceWrite) {
	s := &l.timing.wsDaemon
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	made(&s.lastFrame)[k] = ev.At
	if t := s.transfers[k]; t != nil && w.Step == wire.StepCommit {
		t.settled = true
		delete(s.transfers, k)
	}
}

// transferResultSent: a first ready starts a transfer; a refusal ends it,
// and is the expiry when no frame of it arrived at that instant.
func (l *Ledger) transferResultSent(ev WireEvent, r wire.WorkspaceWriteResult) {
	s := &l.timing.wsDaemon
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	t := s.transfers[k]
	switch {
	case r.Outcome == wire.OutcomeReady && t == nil:
		t = &dTransfer{device: ev.From, id: ev.Frame.ID}
		made(&s.transfers)[k] = t
		l.startWindow(&t.timerWindow, ev.From, TimerTransferExpiry, ev.Conn, ev.At, l.timer(ev.From, TimerTransferExpiry), func() {
			if t.live() {
				t.settled = true
				delete(s.transfers, k)
				l.report(&t.timerWindow, t.deadline, "%s kept write transfer %s (accepted at %s) past its %s expiry at %s",
					t.device, t.id, vtime(t.from), t.length(), vtime(t.deadline))
			}
		})
	case r.Outcome == wire.OutcomeRejected && t != nil:
		t.settled = true
		delete(s.transfers, k)
		if at, ok := s.lastFrame[k]; ok && at == ev.At {
			return // refused in answer to one of its frames
		}
		switch {
		case ev.At == t.deadline && r.ErrorCode == wire.WriteInvalidRequest:
			l.decide(TimerTransferExpiry)
		case ev.At == t.deadline:
			l.report(&t.timerWindow, ev.At, "%s expired write transfer %s refusing it %s, want %s",
				t.device, t.id, r.ErrorCode, wire.WriteInvalidRequest)
		default:
			l.report(&t.timerWindow, ev.At, "%s refused write transfer %s (accepted at %s) at %s, %s after it, "+
				"with no frame of it arriving then: its expiry is %s", t.device, t.id, vtime(t.from), vtime(ev.At),
				t.elapsed(ev.At), t.length())
		}
	}
}

// transfersEnded forgets the transfers gone selects (their windows are
// excused): the daemon can answer none of them any more.
func (l *Ledger) transfersEnded(gone func(*dTransfer) bool) {
	s := &l.timing.wsDaemon
	for _, k := range sortedKeys(s.transfers) {
		if gone(s.transfers[k]) {
			delete(s.transfers, k)
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
	l.cleanupAnswered(&l.timing.cleanup.readers, at, pairKey(device, reader), ok, func() *cleanupRetry {
		return &cleanupRetry{target: reader, retryOwed: retryOwed{timer: TimerReaderCloseRetry, who: device, what: "the close of reader " + reader}}
	})
}

package check

import "github.com/turnstile-sim/turnstile/wire"

// The daemon's workspace timers.
//
// Transfer expiry (rule timing_workspace_transfer_expiry, Rules; an
// expired transfer never reaches the installer), from the wire alone: the
// ready the daemon sent for begin starts the transfer; a commit reaching
// the daemon, any refusal the daemon sends for it at the instant one of
// its frames arrives (an invalid step drops the transfer), its connection
// ending, or the daemon dying end it. A refusal at no such instant is the
// expiry.
//
// Close-retry backoff of the read-only profile (rule
// timing_reader_close_retry, Rules; a failed close keeps ownership), from
// the Harness's ground truth.
const (
	TimerTransferExpiry       = "workspace_transfer_expiry"
	TimerReaderCloseRetry     = "reader_close_retry"
	CheckTimingTransferExpiry = "timing_" + TimerTransferExpiry
	CheckTimingCloseRetry     = "timing_" + TimerReaderCloseRetry
)

// dTransfer is one write transfer a daemon accepted, its expiry window
// from the ready: settled once the transfer ended.
type dTransfer struct {
	device, id string
	timerWindow
}

type wsDaemonState struct {
	transfers map[string]*dTransfer // conn\x00id
	lastFrame map[string]int64      // conn\x00id → instant a write frame of it reached the daemon
	retries   map[string]*retryOwed // device\x00reader whose close failed: the retry it is owed
}

func (s *wsDaemonState) init() {
	s.transfers = map[string]*dTransfer{}
	s.lastFrame = map[string]int64{}
	s.retries = map[string]*retryOwed{}
}

func transferKey(conn uint64, id string) string { return pairKey(uintKey(conn), id) }

func uintKey(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

// transferDaemonReceived notes a write frame reaching a daemon; a commit
// ends its transfer (it is applied or refused now, never expired).
func (l *Ledger) transferDaemonReceived(ev WireEvent) {
	w, ok := ev.Frame.Payload.(wire.WorkspaceWrite)
	if !ok {
		return
	}
	s := &l.timing.wsDaemon
	k := transferKey(ev.Conn, ev.Frame.ID)
	s.lastFrame[k] = ev.At
	if t := s.transfers[k]; t != nil && w.Step == wire.StepCommit {
		t.settled = true
		delete(s.transfers, k)
	}
}

// transferDaemonSent follows the daemon's write receipts: a first ready
// starts a transfer; a refusal ends it, and is the expiry when no frame
// of it arrived at that instant.
func (l *Ledger) transferDaemonSent(ev WireEvent) {
	r, ok := ev.Frame.Payload.(wire.WorkspaceWriteResult)
	if !ok {
		return
	}
	s := &l.timing.wsDaemon
	k := transferKey(ev.Conn, ev.Frame.ID)
	t := s.transfers[k]
	switch {
	case r.Outcome == wire.OutcomeReady && t == nil:
		t = &dTransfer{device: ev.From, id: ev.Frame.ID}
		s.transfers[k] = t
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

// transfersConnEnded ends the transfers of a connection that closed or
// broke: the daemon can answer none of them any more.
func (l *Ledger) transfersConnEnded(conn uint64) {
	s := &l.timing.wsDaemon
	for _, k := range sortedKeys(s.transfers) {
		if s.transfers[k].conn == conn {
			delete(s.transfers, k) // its window is excused
		}
	}
}

// wsDaemonNodeDown forgets a dead daemon's transfers and retries.
func (l *Ledger) wsDaemonNodeDown(node string) {
	s := &l.timing.wsDaemon
	for _, k := range sortedKeys(s.transfers) {
		if s.transfers[k].device == node {
			delete(s.transfers, k) // its window is excused
		}
	}
	for _, k := range sortedKeys(s.retries) {
		if r := s.retries[k]; r.who == node {
			r.due = -1
			delete(s.retries, k)
		}
	}
	l.wsRuntimeNodeDown(node)
}

// WorkspaceCloseCalled records a read-only profile's close reaching the
// Harness (ground truth): a retry must come exactly at its backoff.
func (l *Ledger) WorkspaceCloseCalled(at int64, device, reader string) {
	l.advance(at)
	s := &l.timing.wsDaemon
	if r := s.retries[pairKey(device, reader)]; r != nil {
		l.retried(at, r)
	}
}

// readerCloseAnswered follows a close's native answer: a failure owes a
// retry at its backoff; a confirmed close ends the reader.
func (l *Ledger) readerCloseAnswered(at int64, device, reader string, ok bool) {
	s := &l.timing.wsDaemon
	k := pairKey(device, reader)
	if ok {
		delete(s.retries, k)
		return
	}
	r := s.retries[k]
	if r == nil {
		r = &retryOwed{timer: TimerReaderCloseRetry, who: device, what: "the close of reader " + reader}
		s.retries[k] = r
	}
	l.oweBackoff(r, at)
}

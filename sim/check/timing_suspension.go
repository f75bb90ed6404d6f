package check

import (
	"fmt"
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// The suspension reply oracle (rule timing_suspension_reply_wait, Rules),
// from the wire (Core's requests, replies reaching Core with the
// request's Envelope ID, connection ends) and Core's durable suspension
// records (SuspensionUnknown). A reply with the request's Envelope ID
// that proved nothing is a reason too.

// The suspension reply timer and its check.
const (
	TimerSuspensionReply       = "suspension_reply_wait"
	CheckTimingSuspensionReply = "timing_" + TimerSuspensionReply
)

// suspensionWait is a request's reply wait from its send: settled by a
// reply with the request's Envelope ID reaching Core; its outcome is Core
// recording the suspension unknown.
type suspensionWait struct {
	suspend string // the suspend_id
	request string // Envelope ID of the request
	timerWindow
}

type suspensionTiming struct {
	bySuspend map[string]*suspensionWait // suspend_id → its latest request
	byConn    map[uint64][]*suspensionWait
	// awaited holds, in request order, every wait that may still be
	// awaited: SuspensionsAwaited drops those that no longer are
	// (replied, excused, recorded and replaced are for good).
	awaited []*suspensionWait
}

func (s *suspensionTiming) init() {
	s.bySuspend = map[string]*suspensionWait{}
	s.byConn = map[uint64][]*suspensionWait{}
}

// observeSuspensionReplies follows Core's fencing requests and the replies
// that reach it, forged ones included (Core cannot tell them apart).
func (l *Ledger) observeSuspensionReplies(ev WireEvent) {
	s := &l.timing.suspensions
	if ev.Kind == WireClosed {
		for _, w := range s.byConn[ev.Conn] {
			w.excuse(ev.At, "its connection closed")
		}
		delete(s.byConn, ev.Conn)
		return
	}
	if !ev.HasFrame() {
		return
	}
	switch p := ev.Frame.Payload.(type) {
	case wire.EnvironmentQuiesce:
		l.suspensionRequested(ev, p.SuspendID)
	case wire.EnvironmentResume:
		l.suspensionRequested(ev, p.SuspendID)
	case wire.EnvironmentQuiesced, wire.EnvironmentResumed:
		if ev.Kind != WireDelivered || ev.To != CoreNode {
			return
		}
		for _, w := range s.byConn[ev.Conn] {
			if w.request == ev.Frame.ID {
				w.settled = true
			}
		}
	}
}

func (l *Ledger) suspensionRequested(ev WireEvent, suspend string) {
	if ev.Kind != WireSent || ev.From != CoreNode || ev.Forged || suspend == "" {
		return
	}
	s := &l.timing.suspensions
	w := &suspensionWait{suspend: suspend, request: ev.Frame.ID}
	s.bySuspend[suspend] = w
	s.byConn[ev.Conn] = append(s.byConn[ev.Conn], w)
	s.awaited = append(s.awaited, w)
	l.startWindow(&w.timerWindow, CoreNode, TimerSuspensionReply, ev.Conn, ev.At, l.timer(CoreNode, TimerSuspensionReply), func() {
		if w.live() && w.outcome < 0 {
			l.report(&w.timerWindow, w.deadline, "Core sent %s for suspension %s at %s and no reply reached it, yet it did not record the outcome unknown at %s, after its %s wait",
				ev.Frame.Type(), suspend, vtime(w.from), vtime(w.deadline), w.length())
		}
	})
}

// SuspensionUnknown records Core durably recording suspend's outcome
// unknown (quiesce_unknown or resume_unknown).
func (l *Ledger) SuspensionUnknown(at int64, suspend string) {
	l.advance(at)
	s := &l.timing.suspensions
	w := s.bySuspend[suspend]
	if w == nil || !w.show(at) {
		return
	}
	if at == w.deadline && w.live() {
		// decided now: a run may end in this instant, once Core awaits nothing
		l.decide(TimerSuspensionReply)
		return
	}
	if at >= w.deadline {
		return
	}
	l.early(&w.timerWindow, at, func() bool { return w.settled },
		"Core recorded suspension %s unknown at %s, %s after its request: before its %s reply wait ended, without a reason",
		suspend, vtime(at), w.elapsed(at), w.length())
}

// SuspensionsAwaited counts the suspension requests Core still waits on:
// sent, not answered, not excused, not yet recorded unknown. A run is
// not over while Core waits (the liveness predicate reads it), so the
// reply wait always meets its bound or its answer.
// It is asked after every step, so it walks only the waits that were
// still awaited when last asked, not every suspension of the run.
func (l *Ledger) SuspensionsAwaited() int {
	s := &l.timing.suspensions
	s.awaited = slices.DeleteFunc(s.awaited, func(w *suspensionWait) bool {
		return !w.live() || w.outcome >= 0 || s.bySuspend[w.suspend] != w
	})
	return len(s.awaited)
}

// pendingSuspensions names the requests SuspensionsAwaited counts.
func (l *Ledger) pendingSuspensions() []string {
	var out []string
	for _, id := range sortedKeys(l.timing.suspensions.bySuspend) {
		if w := l.timing.suspensions.bySuspend[id]; w.live() && w.outcome < 0 {
			out = append(out, fmt.Sprintf("Core awaits the reply to %s of suspension %s, sent at %s", w.request, id, vtime(w.from)))
		}
	}
	return out
}

package check

import (
	"fmt"
	"slices"
)

// Checks: timing_suspension_reply_wait (rules.go), from Core's requests,
// the replies reaching Core (forged ones included: Core cannot tell them
// apart) and SuspensionUnknown. A reply that proved nothing settles too.

// suspensionWait is a request's reply wait from its send.
type suspensionWait struct {
	suspend string // the suspend_id
	request string // Envelope ID of the request
	timerWindow
}

// suspensionTiming keys each suspend_id's latest request; all holds, in
// request order, the waits that may still be awaited (SuspensionsAwaited
// drops the others for good); byRequest holds every wait under its
// connection and request ID, which its reply names.
type suspensionTiming struct {
	keyed[suspensionWait]
	byRequest map[string][]*suspensionWait
}

func (l *Ledger) observeSuspensionReplies(ev WireEvent) {
	s := &l.timing.suspensions
	if ev.Kind == WireClosed {
		l.excuseWindows(ev.At, "its connection closed", func(w *timerWindow) bool { return w.timer == TimerSuspensionReply && w.conn == ev.Conn })
		return
	}
	m, ok := fenceMsgOf(ev.Frame.Payload)
	switch {
	case !ev.HasFrame() || !ok:
	case m.reply && ev.Kind == WireDelivered && ev.To == CoreNode:
		for _, w := range s.byRequest[connFrameKey(ev.Conn, ev.Frame.ID)] {
			w.settled = true
		}
	case !m.reply && ev.Kind == WireSent && ev.From == CoreNode && !ev.Forged && m.suspend != "":
		l.suspensionRequested(ev, m.suspend)
	}
}

func (l *Ledger) suspensionRequested(ev WireEvent, suspend string) {
	s := &l.timing.suspensions
	w := &suspensionWait{suspend: suspend, request: ev.Frame.ID}
	s.put(suspend, w)
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	made(&s.byRequest)[k] = append(s.byRequest[k], w)
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
	switch w := l.timing.suspensions.byKey[suspend]; {
	case w == nil || !w.show(at):
	case at == w.deadline && w.live():
		l.decide(TimerSuspensionReply)
	default:
		l.early(&w.timerWindow, at, func() bool { return w.settled },
			"Core recorded suspension %s unknown at %s, %s after its request: before its %s reply wait ended, without a reason",
			suspend, vtime(at), w.elapsed(at), w.length())
	}
}

// SuspensionsAwaited counts the suspension requests Core still waits on
// (sent, not answered, excused or recorded unknown): the liveness
// predicate asks it after every step, so a run ends only once every wait
// met its bound or its answer.
func (l *Ledger) SuspensionsAwaited() int {
	s := &l.timing.suspensions
	s.all = slices.DeleteFunc(s.all, func(w *suspensionWait) bool {
		return !w.live() || w.outcome >= 0 || s.byKey[w.suspend] != w
	})
	return len(s.all)
}

// pendingSuspensions names the requests SuspensionsAwaited counts.
func (l *Ledger) pendingSuspensions() []string {
	var out []string
	for _, id := range sortedKeys(l.timing.suspensions.byKey) {
		if w := l.timing.suspensions.byKey[id]; w.live() && w.outcome < 0 {
			out = append(out, fmt.Sprintf("Core awaits the reply to %s of suspension %s, sent at %s", w.request, id, vtime(w.from)))
		}
	}
	return out
}

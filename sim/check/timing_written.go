package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_written_wait (rules.go). A resend after not_ready or
// busy does not restart the window; an input whose written receipt
// reached Core in time is never unknown: its native write is done.

// writtenWait is an input's written window from its delivery: settled by
// a written or accepted receipt reaching Core by the deadline; its
// outcome is Core recording the input unknown.
type writtenWait struct {
	run, input, turn string
	writtenAt        int64 // when a receipt settled it on the delivering connection (0: not there)
	timerWindow
}

// codeInputOutcomeUnknown is Core's code of a Turn whose active input got
// no written receipt in time.
const codeInputOutcomeUnknown = "input_outcome_unknown"

func (l *Ledger) writtenSteerSent(ev WireEvent, p wire.PromptSteer) {
	s := &l.timing.written
	k := pairKey(ev.Frame.ID, p.InputID)
	if s.byKey[k] != nil {
		return
	}
	w := &writtenWait{run: ev.Frame.ID, input: p.InputID}
	if r := l.core.runs[w.run]; r != nil {
		w.turn = r.turn
	}
	s.put(k, w)
	l.startWindow(&w.timerWindow, CoreNode, TimerWritten, ev.Conn, ev.At, l.timer(CoreNode, TimerWritten), func() {
		l.due(&w.timerWindow, "input %s of run %s delivered at %s had no written receipt by %s (%s) but Core did not record it unknown then",
			w.input, w.run, time.Duration(w.from), time.Duration(w.deadline), w.length())
	})
}

// writtenRunEnded: done, an error or a cancel receipt may end the turn now.
func (l *Ledger) writtenRunEnded(ev WireEvent) {
	for _, w := range l.timing.written.all {
		if w.run == ev.Frame.ID {
			w.excuse(ev.At, "run ended on the wire")
		}
	}
}

func (l *Ledger) writtenAckReceived(ev WireEvent, ack wire.PromptSteerAck) {
	w := l.timing.written.byKey[pairKey(ev.Frame.ID, ack.InputID)]
	if w == nil || !w.live() || w.overdue(ev.At) {
		return
	}
	switch {
	case ack.ErrorCode == "" && (ack.Written || ack.Accepted):
		w.settled = true
		if ev.Conn == w.conn {
			w.writtenAt = ev.At
		}
	case ack.ErrorCode == wire.SteerNotReady || ack.ErrorCode == wire.SteerBusy || ack.ErrorCode == wire.SteerInFlight:
		// refused before any write: Core offers it again, same window
	case ack.ErrorCode != "":
		w.excuse(ev.At, "receipt "+ack.ErrorCode)
	}
}

// writtenTurnFinished: a turn that ended earlier releases its inputs; one
// failing input_outcome_unknown in the instant Core recorded its input
// unknown is that unknown's consequence. A turn that fails in the instant
// its input's window ran out, with no other reason on the wire, fails
// with input_outcome_unknown, no other code.
func (l *Ledger) writtenTurnFinished(at int64, run, code string) {
	for _, w := range l.timing.written.all {
		if w.run != run {
			continue
		}
		if w.outcome == at && at == w.deadline && w.live() && code != codeInputOutcomeUnknown && l.timing.cancels.byKey[run] == nil {
			l.violate(at, CheckTimingWritten, "the written window of input %s of run %s ran out at %s and Core finished the turn %q, want %s",
				w.input, run, vtime(at), code, codeInputOutcomeUnknown)
		}
		if w.outcome != at || code != codeInputOutcomeUnknown {
			w.excuse(at, "turn finished")
		}
	}
}

func (l *Ledger) writtenOutcome(at int64, run, input, outcome string) {
	l.advance(at)
	w := l.timing.written.byKey[pairKey(run, input)]
	if w == nil {
		return
	}
	switch {
	case outcome == InputUnknown && !w.show(at):
	case outcome == InputUnknown && w.writtenAt > 0 && w.writtenAt < w.deadline && w.writtenAt < at:
		l.violate(at, CheckTimingWritten, "Core recorded input %s of run %s unknown at %s although its written receipt reached Core at %s, within the %s window",
			input, run, vtime(at), vtime(w.writtenAt), w.length())
	case outcome == InputUnknown:
		l.early(&w.timerWindow, at, func() bool { return w.settled },
			"Core recorded input %s of run %s unknown at %s, %s after its delivery at %s: before the %s written window ended, with the connection and turn alive and no refusal",
			input, run, vtime(at), w.elapsed(at), vtime(w.from), w.length())
	case outcome == InputAccepted && w.outcome >= 0:
		l.violate(at, CheckTimingWritten, "Core recorded input %s of run %s accepted at %s after recording it unknown at %s",
			input, run, vtime(at), vtime(w.outcome))
	}
}

// writtenSteerReturned: an input Core had recorded unknown is never
// reported accepted by a later steer call.
func (l *Ledger) writtenSteerReturned(ret int64, turn, input, outcome string) {
	if outcome != InputAccepted {
		return
	}
	for _, w := range l.timing.written.all {
		if w.turn == turn && w.input == input && w.outcome >= 0 && w.outcome <= ret {
			l.violate(ret, CheckTimingWritten, "steer of input %s on turn %s returned accepted at %s although Core recorded it unknown at %s",
				input, turn, vtime(ret), vtime(w.outcome))
			return
		}
	}
}

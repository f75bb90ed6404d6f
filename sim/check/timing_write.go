package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_native_write_budget (rules.go), from the Harness's
// ground truth and the wire. A write that returned in time is answered by
// its own result, never by the budget.

// nativeWrite is a durable write's budget from its call: settled by the
// write returning or an accepted receipt by the deadline; its outcome is
// the daemon's first outcome_unknown receipt.
type nativeWrite struct {
	device, run, input string
	returned           int64 // -1 while outstanding
	result             string
	timerWindow
}

type writeState struct {
	keyed[nativeWrite]                   // device\x00run\x00input
	steerConn          map[string]uint64 // device\x00run\x00input → connection of its prompt_steer
}

func writeKey(device, run, input string) string { return device + "\x00" + run + "\x00" + input }

// overBudget reports a write that had not returned by its deadline; one
// returning exactly at it is a tie either outcome may win.
func (w *nativeWrite) overBudget() bool { return w.returned < 0 || w.returned > w.deadline }

// WriteCalled records the Harness receiving a native durable write of an
// input of run (ground truth).
func (l *Ledger) WriteCalled(at int64, device, run, input string) {
	l.advance(at)
	s := &l.timing.writes
	k := writeKey(device, run, input)
	if s.byKey[k] != nil {
		return // a second write is input_delivered_twice's business
	}
	w := &nativeWrite{device: device, run: run, input: input, returned: -1}
	s.put(k, w)
	l.startWindow(&w.timerWindow, device, TimerNativeWrite, s.steerConn[k], at, l.timer(device, TimerNativeWrite), func() {
		l.due(&w.timerWindow, "native write of input %s of run %s on %s called at %s had not returned by %s (%s) but no outcome_unknown receipt was sent then",
			w.input, w.run, w.device, time.Duration(w.from), time.Duration(w.deadline), w.length())
	})
}

// WriteReturned records the Harness answering a durable write: written,
// failed or unknown (ground truth).
func (l *Ledger) WriteReturned(at int64, device, run, input, outcome string) {
	l.advance(at)
	if w := l.timing.writes.byKey[writeKey(device, run, input)]; w != nil && w.returned < 0 {
		w.returned, w.result = at, outcome
		w.settled = w.settled || !w.overBudget()
	}
	l.bindRecheck(at, device, run)
}

func (l *Ledger) writeAckSent(ev WireEvent, ack wire.PromptSteerAck) {
	w := l.timing.writes.byKey[writeKey(ev.From, ev.Frame.ID, ack.InputID)]
	if w == nil {
		return
	}
	switch {
	case ack.ErrorCode == wire.SteerOutcomeUnknown:
		w.show(ev.At)
		ownResult := w.returned >= 0 && w.returned <= ev.At && w.result == "unknown"
		if ev.At < w.deadline && !ownResult {
			l.report(&w.timerWindow, ev.At, "%s sent outcome_unknown for input %s of run %s at %s, %s into its %s native write budget, with the write still within it",
				w.device, w.input, w.run, vtime(ev.At), w.elapsed(ev.At), w.length())
		}
	case ack.Accepted:
		if !w.overdue(ev.At) {
			w.settled = true
		}
	case ack.Written && ack.ErrorCode == "":
		if w.overdue(ev.At) && w.overBudget() {
			l.report(&w.timerWindow, ev.At, "%s sent written for input %s of run %s at %s, after its native write budget ran out at %s with the write outstanding",
				w.device, w.input, w.run, vtime(ev.At), vtime(w.deadline))
		}
	}
}

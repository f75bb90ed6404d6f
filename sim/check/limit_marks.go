package check

import "github.com/turnstile-sim/turnstile/wire"

// Limit marks (marks.go) from the wire and, for executor capacity, the
// Harness's ground truth. They judge nothing.

// writtenWaitNS is Core's wait for `written` from the start of an active
// input's delivery (TimerWritten), after which the input's outcome is
// unknown.
var writtenWaitNS = int64(DocumentedTimer(TimerWritten))

type lastSteer struct {
	input     string
	sentAt    int64
	acked     bool  // a receipt other than outcome_unknown reached Core within the written wait
	unknownAt int64 // when an outcome_unknown receipt reached Core (0: none)
}

// becameUnknown is when the input's outcome became unknown at Core: an
// outcome_unknown receipt, or the written wait passing without a receipt;
// ok is false while it is not (yet) unknown at instant at, or for no input.
func (s *lastSteer) becameUnknown(at int64) (int64, bool) {
	switch {
	case s == nil:
	case s.unknownAt != 0 && s.unknownAt <= at:
		return s.unknownAt, true
	case !s.acked && s.unknownAt == 0 && s.sentAt+writtenWaitNS <= at:
		return s.sentAt + writtenWaitNS, true
	}
	return 0, false
}

// markSteerAfterUnknown marks a workload steer call on turn made after an
// earlier input of one of its runs became unknown at Core.
func (l *Ledger) markSteerAfterUnknown(call int64, turn string) {
	t := l.core.turns[turn]
	if t == nil {
		return
	}
	for _, run := range t.runs {
		first, noted := l.limitMarks.firstUnknown[run]
		if _, now := l.limitMarks.steers[run].becameUnknown(call); noted && first <= call || now {
			l.reach(MarkSteerAfterUnknown)
			return
		}
	}
}

type limitMarks struct {
	grants       map[uint64]int        // conn → admissions granted on it
	steers       map[string]*lastSteer // run → the last input Core delivered
	firstUnknown map[string]int64      // run → when an input of it first became unknown at Core
	declared     map[string]bool       // device\x00kind → availability last declared
}

// observeLimits: a frame that did not decode has no payload.
func (l *Ledger) observeLimits(ev WireEvent) {
	m := &l.limitMarks
	switch p := ev.Frame.Payload.(type) {
	case wire.PreparationStatus:
		if ev.Kind != WireSent || ev.From == CoreNode {
			return
		}
		if p.Revision == 1 && p.Handle != "" {
			if made(&m.grants)[ev.Conn]++; m.grants[ev.Conn] == DocumentedAdmissionRecordsMax+1 { // the 65th evicts one
				l.reach(MarkAdmissionRecordsFull)
			}
		}
		if lim, ok := l.limits[ev.From]; ok && p.State == wire.StateRejected && p.ErrorCode == "preparation_capacity" &&
			l.harness.liveExecutors(ev.From) >= lim.ExecutorsMax {
			l.reach(MarkCapacityFullOfExecutors)
		}
	case wire.PromptSteer:
		if prev := m.steers[ev.Frame.ID]; ev.Kind == WireSent && ev.From == CoreNode && (prev == nil || prev.input != p.InputID) {
			if at, ok := prev.becameUnknown(ev.At); ok {
				m.noteRunUnknown(ev.Frame.ID, at)
			}
			made(&m.steers)[ev.Frame.ID] = &lastSteer{input: p.InputID, sentAt: ev.At}
		}
	case wire.PromptSteerAck:
		// a receipt within the written wait settles the input, unless it
		// says its outcome is unknown
		if s := m.steers[ev.Frame.ID]; ev.Kind == WireDelivered && ev.To == CoreNode && s != nil &&
			s.input == p.InputID && ev.At-s.sentAt < writtenWaitNS {
			if p.ErrorCode == "outcome_unknown" {
				s.unknownAt = ev.At
				m.noteRunUnknown(ev.Frame.ID, ev.At)
			} else if s.unknownAt == 0 {
				s.acked = true
			}
		}
	case wire.Heartbeat:
		if ev.Kind == WireDelivered && ev.To == CoreNode {
			for _, k := range p.SupportedAgentKinds {
				key := pairKey(ev.From, k.Kind)
				if prev, ok := m.declared[key]; ok && prev != k.Available {
					l.reach(MarkKindAvailabilityChanged)
				}
				made(&m.declared)[key] = k.Available
			}
		}
	}
}

// reach records a mark found by an observer of the ledger itself and hands
// it to OnReach (the world's kernel mark counts).
func (l *Ledger) reach(m Mark) {
	l.Mark(m)
	if l.OnReach != nil {
		l.OnReach(m)
	}
}

// noteRunUnknown keeps the first instant an input of run became unknown.
func (m *limitMarks) noteRunUnknown(run string, at int64) {
	if first, seen := m.firstUnknown[run]; !seen || at < first {
		made(&m.firstUnknown)[run] = at
	}
}

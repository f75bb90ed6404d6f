package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Limit marks seen from the wire (and, for executor capacity, from the
// Harness's ground truth): they record that a seed drove a machine to one
// of the documented limits. They judge nothing.

// admissionRecordsMax is the Runtime's admission records per connection
// (64, wire-reference §6.1); the 65th grant on one connection evicts one.
const admissionRecordsMax = 64

// writtenWait is Core's wait for `written` from the start of an active
// input's delivery (30 s), after which the input's outcome is unknown.
const writtenWait = int64(30 * time.Second)

type lastSteer struct {
	input  string
	sentAt int64
	acked  bool // a receipt other than outcome_unknown reached Core within the written wait
}

type limitMarks struct {
	grants   map[uint64]int        // conn → admissions granted on it
	steers   map[string]*lastSteer // run → the last input Core delivered
	declared map[string]bool       // device\x00kind → availability last declared
}

func (m *limitMarks) init() {
	m.grants = map[uint64]int{}
	m.steers = map[string]*lastSteer{}
	m.declared = map[string]bool{}
}

// observeLimits is the wire observer of the limit marks.
func (l *Ledger) observeLimits(ev WireEvent) {
	if !ev.HasFrame() {
		return
	}
	m := &l.limitMarks
	switch p := ev.Frame.Payload.(type) {
	case wire.PreparationStatus:
		if ev.Kind != WireSent || ev.From == coreNodeID {
			return
		}
		if p.Revision == 1 && p.Handle != "" {
			if m.grants[ev.Conn]++; m.grants[ev.Conn] == admissionRecordsMax+1 {
				l.Mark(MarkAdmissionRecordsFull)
			}
		}
		if p.State == wire.StateRejected && p.ErrorCode == "preparation_capacity" {
			if lim, ok := l.limits[ev.From]; ok && l.harness.liveExecutors(ev.From) >= lim.ExecutorsMax {
				l.Mark(MarkCapacityFullOfExecutors)
			}
		}
	case wire.PromptSteer:
		if ev.Kind == WireSent && ev.From == coreNodeID {
			if prev := m.steers[ev.Frame.ID]; prev != nil && prev.input != p.InputID && !prev.acked {
				l.Mark(MarkSteerAfterUnknown)
			}
			if prev := m.steers[ev.Frame.ID]; prev == nil || prev.input != p.InputID {
				m.steers[ev.Frame.ID] = &lastSteer{input: p.InputID, sentAt: ev.At}
			}
		}
	case wire.PromptSteerAck:
		// A receipt within the written wait settles the input, unless it
		// says its outcome is unknown.
		if s := m.steers[ev.Frame.ID]; ev.Kind == WireDelivered && ev.To == coreNodeID && s != nil &&
			s.input == p.InputID && ev.At-s.sentAt < writtenWait && p.ErrorCode != "outcome_unknown" {
			s.acked = true
		}
	case wire.Heartbeat:
		if ev.Kind == WireDelivered && ev.To == coreNodeID {
			l.markAvailability(ev.From, p)
		}
	}
}

func (l *Ledger) markAvailability(device string, hb wire.Heartbeat) {
	m := &l.limitMarks
	for _, k := range hb.SupportedAgentKinds {
		key := pairKey(device, k.Kind)
		if prev, ok := m.declared[key]; ok && prev != k.Available {
			l.Mark(MarkKindAvailabilityChanged)
		}
		m.declared[key] = k.Available
	}
}

package world

import (
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// observedStore is Core's memory store with a tap: every durable write is
// also reported to the ledger (turn states, input outcomes, cursors, usage,
// persisted done and error). It never changes what is stored. It lives
// outside the Core node, so it survives a Core crash.
type observedStore struct {
	*store.Memory
	u *universe
	// writes counts durable writes of Sessions, Turns, inputs and events;
	// lastWrite names the last one (for the hostile checks).
	writes           int
	lastKind, lastID string
	// unsupported holds, while a rogue's frame is stepped (logged), the
	// Turns that failed capability_unsupported; logged lists its writes.
	logging     bool
	logged      []storeWrite
	unsupported map[string]bool
	// epoch is the lease epoch of the Core writing through this store;
	// commitEpoch, when set, the epoch a commit being applied carries;
	// fence is set on a zombie's own view of the records (failover.go).
	epoch       uint64
	commitEpoch uint64
	fence       *zombie
}

// storeWrite is one durable write: what kind of record, and its ID (a
// Turn's for an input or a run event).
type storeWrite struct{ kind, id string }

func (s *observedStore) wrote(kind, id string) {
	s.writes++
	s.lastKind, s.lastID = kind, id
	if s.logging {
		s.logged = append(s.logged, storeWrite{kind, id})
	}
	s.durable(kind, id)
}

func (s *observedStore) PutSession(r core.SessionRecord) {
	if z := s.fence; z != nil {
		z.record("session "+r.ID, func(d *observedStore) { d.PutSession(r) })
		s.Memory.PutSession(r)
		return
	}
	s.wrote("session", r.ID)
	s.Memory.PutSession(r)
}

var _ core.Store = (*observedStore)(nil)

// publicState maps Core's durable turn state onto the checker's public
// states. Core's starting (claimed, start unconfirmed) maps to queued, not
// preparing: an executor_unavailable refusal sends a starting turn back
// to queued for its single retry, which the checker's order would call a
// regression. Running and terminal states map to themselves.
func publicState(s core.TurnState) string {
	switch s {
	case core.TurnQueued, core.TurnStarting:
		return check.TurnQueued
	case core.TurnRunning:
		return check.TurnRunning
	case core.TurnCompleted:
		return check.TurnCompleted
	case core.TurnFailed:
		return check.TurnFailed
	case core.TurnCancelled:
		return check.TurnCancelled
	}
	return string(s)
}

func (s *observedStore) PutTurn(r core.TurnRecord) {
	if z := s.fence; z != nil {
		z.record("turn "+r.ID, func(d *observedStore) { d.PutTurn(r) })
		s.Memory.PutTurn(r)
		return
	}
	s.wrote("turn", r.ID)
	old, had := s.Memory.Turn(r.ID)
	if s.logging && r.State == core.TurnFailed && r.ErrorCode == core.CodeCapabilityUnsupported && !old.State.Terminal() {
		s.unsupported[r.ID] = true
	}
	s.Memory.PutTurn(r)
	u := s.u
	at := u.lt(u.w.Now())
	u.observeInteractionRecords(old, r)
	u.observeSubagentRecords(at, old, r)
	u.engineErrorRecorded(at, old, r)
	if !had {
		u.led.TurnSubmitted(at, r.Session, r.ID)
		u.count("TurnSubmitted")
	}
	if !had || old.State != r.State {
		u.led.TurnState(at, r.ID, publicState(r.State))
		u.count("TurnState")
		if r.State == core.TurnFailed && r.ErrorCode == core.CodeCancelUnconfirmed {
			u.mark(check.MarkCancelUnconfirmed)
		}
		if r.State.Terminal() && (!had || !old.State.Terminal()) {
			s.turnFinished(at, r.ID, r.RunID, string(r.State), r.ErrorCode)
		}
	}
	if r.Usage != nil && (old.Usage == nil || check.UsageFromWire(old.Usage) != check.UsageFromWire(r.Usage)) {
		u.led.UsagePersisted(at, r.RunID, check.UsageFromWire(r.Usage))
		u.count("UsagePersisted")
	}
	if r.InputCursor > old.InputCursor {
		for c := old.InputCursor + 1; c <= r.InputCursor; c++ {
			u.led.CursorAdvanced(at, r.RunID, strconv.Itoa(c), c)
			u.count("CursorAdvanced")
		}
	}
}

func (s *observedStore) PutInput(turn string, in core.InputRecord) {
	if z := s.fence; z != nil {
		z.record("input of turn "+turn, func(d *observedStore) {
			if inputPuttable(d, turn, in.Index) {
				d.PutInput(turn, in)
			}
		})
		s.Memory.PutInput(turn, in)
		return
	}
	s.wrote("input of turn", turn)
	old, _ := s.Memory.Input(turn, in.Index)
	s.Memory.PutInput(turn, in)
	if old.State == in.State {
		return
	}
	u := s.u
	rec, _ := s.Memory.Turn(turn)
	at := u.lt(u.w.Now())
	switch in.State {
	case core.InputAccepted:
		u.led.InputOutcome(at, rec.RunID, in.ID, check.InputAccepted)
	case core.InputUnknown:
		u.led.InputOutcome(at, rec.RunID, in.ID, check.InputUnknown)
		// Unknown also when the turn ends with the input in flight; the
		// mark is for Core giving up on `written` after its full window.
		if t, ok := u.deliveredAt[steerKey(rec.RunID, in.ID)]; ok && u.w.Now().Sub(t) >= check.DocumentedTimer(check.TimerWritten) {
			u.mark(check.MarkSteerUnknownAfter30s)
		}
	case core.InputFailed:
		out := check.InputRejected
		if in.ErrorCode == "outcome_unknown" {
			out = check.InputUnknown
		}
		u.led.InputOutcome(at, rec.RunID, in.ID, out)
	default:
		return
	}
	u.count("InputOutcome")
}

func (s *observedStore) AppendEvent(turn string, ev core.RunEvent) {
	if z := s.fence; z != nil {
		z.record("run event of turn "+turn, func(d *observedStore) {
			if eventAppendable(d, turn, ev.Seq) {
				d.AppendEvent(turn, ev)
			}
		})
		s.Memory.AppendEvent(turn, ev)
		return
	}
	s.wrote("run event of turn", turn)
	s.Memory.AppendEvent(turn, ev)
	u := s.u
	rec, _ := s.Memory.Turn(turn)
	at := u.lt(u.w.Now())
	u.led.RunEventPersisted(at, turn)
	switch ev.Type {
	case wire.TypeDone:
		u.led.TerminalObserved(at, check.TerminalDone, rec.RunID, check.ObservedPersisted)
		u.count("DoneObserved")
	case wire.TypeError:
		u.led.TerminalObserved(at, check.TerminalError, rec.RunID, check.ObservedPersisted)
		u.count("ErrorObserved")
	}
}

// facts lists every turn's durable facts, as the ledger wants them after
// a Core restart.
func (s *observedStore) facts() []check.TurnFacts {
	var out []check.TurnFacts
	for _, r := range s.Memory.Turns() {
		out = append(out, check.TurnFacts{Turn: r.ID, State: publicState(r.State), Run: r.RunID, Cursor: r.InputCursor})
	}
	return out
}

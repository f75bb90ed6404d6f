package server

import (
	"log/slog"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnstile-sim/turnstile/core"
)

// turnObserver follows the durable writes the machine makes through its
// store (Turn records, run events, Environment preparations) and, once
// the batch that made them has committed, writes one log line per Turn
// transition and moves the Turn and preparation metrics. It watches the
// machine from the outside: the machine's decisions and its store stay
// as they are. It is used from the loop goroutine only.
type turnObserver struct {
	clk clock.Clock
	log *slog.Logger
	m   *Metrics

	live    map[string]*turnTimes // Turns submitted to this process, not terminal yet
	preps   map[string]time.Time  // preparations this process saw running
	pending []observed            // since the last commit
}

// turnTimes are what the observer remembers of a live Turn.
type turnTimes struct {
	submitted  time.Time
	firstEvent bool // its first run event was persisted
}

// observed is one fact waiting for its commit.
type observed struct {
	kind    observedKind
	turn    core.TurnRecord // observedTurn
	from    core.TurnState  // observedTurn: "" for a new Turn
	prep    core.PreparationState
	elapsed time.Duration
	timed   bool // elapsed is known (the start was seen by this process)
}

type observedKind uint8

const (
	observedTurn observedKind = iota + 1
	observedFirstEvent
	observedPreparation
)

func newTurnObserver(clk clock.Clock, log *slog.Logger, m *Metrics) *turnObserver {
	return &turnObserver{clk: clk, log: log, m: m, live: map[string]*turnTimes{}, preps: map[string]time.Time{}}
}

// turn notes a PutTurn of r over the stored state from (existed: a
// record was stored before).
func (o *turnObserver) turn(from core.TurnState, existed bool, r core.TurnRecord) {
	if existed && from == r.State {
		return
	}
	now := o.clk.Now()
	if !existed {
		from = ""
		o.live[r.ID] = &turnTimes{submitted: now}
	}
	ob := observed{kind: observedTurn, turn: r, from: from}
	if r.State.Terminal() {
		if tt := o.live[r.ID]; tt != nil {
			ob.elapsed, ob.timed = now.Sub(tt.submitted), true
		}
		delete(o.live, r.ID)
	}
	o.pending = append(o.pending, ob)
}

// event notes a persisted run event of turn.
func (o *turnObserver) event(turn string) {
	tt := o.live[turn]
	if tt == nil || tt.firstEvent {
		return
	}
	tt.firstEvent = true
	o.pending = append(o.pending, observed{kind: observedFirstEvent, elapsed: o.clk.Now().Sub(tt.submitted), timed: true})
}

// preparation notes a PutEnvironmentPreparation.
func (o *turnObserver) preparation(r core.EnvironmentPreparationRecord) {
	start, seen := o.preps[r.ID]
	switch {
	case !r.State.Terminal() && !seen:
		o.preps[r.ID] = o.clk.Now()
	case r.State.Terminal() && seen:
		delete(o.preps, r.ID)
		o.pending = append(o.pending, observed{kind: observedPreparation, prep: r.State, elapsed: o.clk.Now().Sub(start), timed: true})
	}
}

// committed reports the facts of the batch that just committed.
func (o *turnObserver) committed() {
	for i := range o.pending {
		o.report(&o.pending[i])
	}
	clear(o.pending)
	o.pending = o.pending[:0]
}

// report writes one committed fact. The log line names the Turn's IDs,
// its state and code: never its input or the Harness's text.
func (o *turnObserver) report(ob *observed) {
	m := o.m
	switch ob.kind {
	case observedTurn:
		r := &ob.turn
		o.log.Info("turn transition", "session", r.Session, "turn", r.ID, "run", r.RunID, "device", r.Device,
			"from", string(ob.from), "state", string(r.State), "code", r.ErrorCode, "attempt", r.Attempt)
		if m == nil {
			return
		}
		m.TurnTransitions.WithLabelValues(string(r.State)).Inc()
		if r.State.Terminal() {
			m.TurnsFinished.WithLabelValues(string(r.State), turnCode(*r)).Inc()
			if ob.timed {
				m.TurnDuration.WithLabelValues(string(r.State)).Observe(ob.elapsed.Seconds())
			}
		}
	case observedFirstEvent:
		if m != nil {
			m.TurnFirstEvent.Observe(ob.elapsed.Seconds())
		}
	case observedPreparation:
		if m != nil {
			m.Preparation.WithLabelValues(string(ob.prep)).Observe(ob.elapsed.Seconds())
		}
	}
}

// observedStore is the store the machine writes through: every write
// reaches the backend unchanged, and the observer sees it.
type observedStore struct {
	core.Store
	o *turnObserver
}

func (s observedStore) PutTurn(r core.TurnRecord) {
	prev, existed := s.Store.Turn(r.ID)
	s.Store.PutTurn(r)
	s.o.turn(prev.State, existed, r)
}

func (s observedStore) AppendEvent(turn string, ev core.RunEvent) {
	s.Store.AppendEvent(turn, ev)
	s.o.event(turn)
}

// observedPreparations forwards the preparation table.
type observedPreparations struct {
	core.PreparationStore
	o *turnObserver
}

func (s observedPreparations) PutEnvironmentPreparation(r core.EnvironmentPreparationRecord) {
	s.PreparationStore.PutEnvironmentPreparation(r)
	s.o.preparation(r)
}

// The machine finds a store's optional tables by type assertion, so the
// observed store offers exactly the ones the backend has.
type (
	observedSP struct {
		observedStore
		core.SuspensionStore
		observedPreparations
	}
	observedS struct {
		observedStore
		core.SuspensionStore
	}
	observedP struct {
		observedStore
		observedPreparations
	}
)

// observe wraps st for o.
func observe(st core.Store, o *turnObserver) core.Store {
	base := observedStore{Store: st, o: o}
	sus, hasSus := st.(core.SuspensionStore)
	prep, hasPrep := st.(core.PreparationStore)
	switch {
	case hasSus && hasPrep:
		return observedSP{base, sus, observedPreparations{prep, o}}
	case hasSus:
		return observedS{base, sus}
	case hasPrep:
		return observedP{base, observedPreparations{prep, o}}
	}
	return base
}

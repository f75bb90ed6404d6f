package storetest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
)

// Committer is a store with group commit.
type Committer interface {
	Commit() error
}

// Options select what reopen is expected to keep.
type Options struct {
	// LosesUncommitted: reopen crashes without committing, so every write
	// since the last Commit is gone and every earlier one is present.
	LosesUncommitted bool
}

// Run runs the contract suite with a reopen that keeps every write.
func Run(t *testing.T, open func(t *testing.T) (st core.Store, reopen func() core.Store)) {
	RunWith(t, Options{}, open)
}

// RunWith runs the contract suite.
func RunWith(t *testing.T, opts Options, open func(t *testing.T) (st core.Store, reopen func() core.Store)) {
	cases := []struct {
		name string
		run  func(h *rig)
	}{
		{"Empty", scenarioEmpty},
		{"Counters", scenarioCounters},
		{"SessionsOrderAndReplace", scenarioSessions},
		{"TurnsOrderAndReplace", scenarioTurns},
		{"InputIndexRules", scenarioInputs},
		{"EventSequenceRules", scenarioEvents},
		{"EventTailReads", scenarioEventTail},
		{"ReadsAreCopies", scenarioCopies},
		{"RoundTripEveryField", scenarioRoundTrip},
		{"MachineRestart", scenarioMachine},
		{"SuspensionsOrderAndReplace", scenarioSuspensions},
		{"PreparationsOrderAndReplace", scenarioPreparations},
		{"EnvironmentRecordsAreCopies", scenarioEnvironmentCopies},
		{"EnvironmentRecordsRestart", scenarioEnvironmentRestart},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, reopen := open(t)
			h := &rig{t: t, st: st, reopen: reopen, lossy: opts.LosesUncommitted, model: newModel(), durable: newModel()}
			h.verify("at open")
			c.run(h)
		})
	}
}

// rig applies each write to the store and to the model.
type rig struct {
	t      *testing.T
	st     core.Store
	reopen func() core.Store
	lossy  bool
	// model is what the store must show now; durable what it must show
	// after a reopen that loses uncommitted writes.
	model, durable *model
	probes         []string // extra turn keys to read (never written)
}

func (h *rig) commit() {
	h.t.Helper()
	if c, ok := h.st.(Committer); ok {
		if err := c.Commit(); err != nil {
			h.t.Fatalf("Commit: %v", err)
		}
	}
	h.durable = h.model.clone()
}

// crash reopens the store and checks it against what must have survived.
func (h *rig) crash() {
	h.t.Helper()
	h.st = h.reopen()
	if h.lossy {
		h.model = h.durable.clone()
	} else {
		h.durable = h.model.clone()
	}
	h.verify("after reopen")
}

func (h *rig) verify(when string) {
	h.t.Helper()
	want := normal(h.model.snapshot())
	keys := append(h.model.keys(), h.probes...)
	got := normal(read(h.st, keys))
	if !reflect.DeepEqual(got, want) {
		h.t.Fatalf("%s: store differs from the contract model:\n%s", when, diff(got, want))
	}
	h.verifyEventTails(when, keys)
	h.verifyEnvironment(when)
}

func (h *rig) saveCounters(c core.Counters) { h.st.SaveCounters(c); h.model.counters = c }
func (h *rig) putSession(r core.SessionRecord) {
	h.st.PutSession(r)
	h.model.putSession(r)
}
func (h *rig) putTurn(r core.TurnRecord) { h.st.PutTurn(r); h.model.putTurn(r) }

func (h *rig) putInput(turn string, in core.InputRecord) {
	h.t.Helper()
	if !h.model.inputFits(turn, in.Index) {
		h.t.Fatalf("scenario bug: input %s/%d does not fit", turn, in.Index)
	}
	h.st.PutInput(turn, in)
	h.model.putInput(turn, in)
}

// appendEvent appends the next sample event to turn.
func (h *rig) appendEvent(turn string) {
	ev := SampleEvent(h.model.nextEvent(turn))
	h.st.AppendEvent(turn, ev)
	h.model.appendEvent(turn, ev)
}

// refused checks that f panics and changes nothing.
func (h *rig) refused(what string, f func()) {
	h.t.Helper()
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		f()
		return false
	}()
	if !panicked {
		h.t.Fatalf("%s: no panic", what)
	}
	h.verify("after refused " + what)
}

// normal makes empty listings compare equal to absent ones.
func normal(s snapshot) snapshot {
	if len(s.Sessions) == 0 {
		s.Sessions = nil
	}
	if len(s.Turns) == 0 {
		s.Turns = nil
	}
	return s
}

func diff(got, want snapshot) string {
	var b strings.Builder
	line := func(what string, g, w any) {
		if !reflect.DeepEqual(g, w) {
			fmt.Fprintf(&b, "%s:\n  got  %+v\n  want %+v\n", what, g, w)
		}
	}
	line("counters", got.Counters, want.Counters)
	line("sessions", got.Sessions, want.Sessions)
	line("turns", got.Turns, want.Turns)
	line("inputs", got.Inputs, want.Inputs)
	line("events", got.Events, want.Events)
	return b.String()
}

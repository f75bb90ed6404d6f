package store_test

import (
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestMemoryListsInSequenceOrder(t *testing.T) {
	s := store.NewMemory()
	for _, seq := range []uint64{2, 10, 1} {
		s.PutTurn(core.TurnRecord{ID: "t-" + string(rune('0'+seq%10)) + "x", Seq: seq})
		s.PutSession(core.SessionRecord{ID: "s" + string(rune('0'+seq%10)), Seq: seq})
	}
	var got []uint64
	for _, r := range s.Turns() {
		got = append(got, r.Seq)
	}
	if want := []uint64{1, 2, 10}; !equal(got, want) {
		t.Fatalf("turns in %v, want %v", got, want)
	}
	got = nil
	for _, r := range s.Sessions() {
		got = append(got, r.Seq)
	}
	if want := []uint64{1, 2, 10}; !equal(got, want) {
		t.Fatalf("sessions in %v, want %v", got, want)
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMemoryReplacesAndCopies(t *testing.T) {
	s := store.NewMemory()
	s.PutTurn(core.TurnRecord{ID: "t-1", Seq: 1, State: core.TurnQueued})
	s.PutTurn(core.TurnRecord{ID: "t-1", Seq: 1, State: core.TurnRunning})
	if r, _ := s.Turn("t-1"); r.State != core.TurnRunning || len(s.Turns()) != 1 {
		t.Fatalf("put did not replace: %+v", s.Turns())
	}
	s.PutInput("t-1", core.InputRecord{Index: 1, ID: "1", State: core.InputQueued})
	s.PutInput("t-1", core.InputRecord{Index: 2, ID: "2", State: core.InputQueued})
	s.PutInput("t-1", core.InputRecord{Index: 1, ID: "1", State: core.InputAccepted})
	in := s.Inputs("t-1")
	if len(in) != 2 || in[0].State != core.InputAccepted {
		t.Fatalf("inputs %+v", in)
	}
	in[1].State = core.InputUnknown
	in = append(in[:1], core.InputRecord{Index: 9})
	if again := s.Inputs("t-1"); again[1].State != core.InputQueued {
		t.Fatal("a caller's slice aliased the store")
	}
	s.AppendEvent("t-1", core.RunEvent{Seq: 1, Type: wire.TypeDelta, Payload: wire.Delta{Delta: "a"}})
	ev := s.Events("t-1")
	ev[0].Type = "mutated"
	if s.Events("t-1")[0].Type != wire.TypeDelta {
		t.Fatal("a caller's event slice aliased the store")
	}
	_ = in
}

func TestMemoryInputByIndex(t *testing.T) {
	s := store.NewMemory()
	s.PutInput("t-1", core.InputRecord{Index: 1, ID: "1", State: core.InputQueued})
	s.PutInput("t-1", core.InputRecord{Index: 2, ID: "2", State: core.InputQueued})
	s.PutInput("t-1", core.InputRecord{Index: 2, ID: "2", State: core.InputAccepted})
	if r, ok := s.Input("t-1", 2); !ok || r.ID != "2" || r.State != core.InputAccepted {
		t.Fatalf("input 2: %+v %v", r, ok)
	}
	if r, ok := s.Input("t-1", 1); !ok || r.ID != "1" {
		t.Fatalf("input 1: %+v %v", r, ok)
	}
	for _, c := range []struct {
		turn  string
		index int
	}{{"t-1", 0}, {"t-1", 3}, {"t-1", -1}, {"t-2", 1}} {
		if r, ok := s.Input(c.turn, c.index); ok || r.Index != 0 || r.ID != "" {
			t.Errorf("input %d of %s: %+v, want none", c.index, c.turn, r)
		}
	}
}

func TestMemoryRefusesGaps(t *testing.T) {
	for name, f := range map[string]func(){
		"event seq 2 first":   func() { store.NewMemory().AppendEvent("t", core.RunEvent{Seq: 2}) },
		"input index 3 first": func() { store.NewMemory().PutInput("t", core.InputRecord{Index: 3}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestMemoryCountsWritesOnly(t *testing.T) {
	s := store.NewMemory()
	s.SaveCounters(core.Counters{Sessions: 1})
	s.Turns()
	s.Sessions()
	s.Events("x")
	s.Inputs("x")
	s.Turn("x")
	s.Session("x")
	if s.Writes() != 1 || s.Counters().Sessions != 1 {
		t.Fatalf("writes %d counters %+v", s.Writes(), s.Counters())
	}
}

// TestMemorySurvivesMachineCrash: a Machine dropped mid-Turn and rebuilt
// over the same store sees every durable fact.
func TestMemorySurvivesMachineCrash(t *testing.T) {
	s := store.NewMemory()
	m := core.New(core.Config{Policy: enginetest.OpenPolicy("k")}, s)
	now := wireTime()
	m.Step(now, core.CreateSession{Call: "c", Agent: core.AgentConfig{Kind: "k", Model: "m", Environment: core.EnvNone}})
	m.Step(now, core.SubmitTurn{Call: "c", Session: "s-1", Input: wire.TextInput("x")})
	m2 := core.Restart(core.Config{Policy: enginetest.OpenPolicy("k")}, s)
	v, ok := m2.Turn("t-1")
	if !ok || v.State != core.TurnQueued {
		t.Fatalf("turn after restart: %+v %v", v, ok)
	}
	effs := m2.Step(now, core.CreateSession{Call: "c2", Agent: core.AgentConfig{Kind: "k", Model: "m", Environment: core.EnvNone}})
	if r := effs[0].(core.APIResult); r.Value.(core.SessionCreated).Session != "s-2" {
		t.Fatalf("counter did not survive: %+v", r)
	}
}

func wireTime() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// TestMemoryContract: Memory outlives the Machine, so a crash leaves it as
// it was; reopening is handing the same instance to the next Machine.
func TestMemoryContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (core.Store, func() core.Store) {
		m := store.NewMemory()
		return m, func() core.Store { return m }
	})
}

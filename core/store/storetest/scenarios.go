package storetest

import (
	"reflect"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// Each scenario writes a committed part, then an uncommitted part, then
// reopens: a store that keeps everything must show both, one that loses
// uncommitted writes exactly the committed part. Writes after a reopen are
// chosen from the model, so they fit either outcome.

func scenarioEmpty(h *rig) {
	h.probes = []string{"t-none", ""}
	if _, ok := h.st.Session("s-none"); ok {
		h.t.Fatal("empty store has a session")
	}
	if _, ok := h.st.Turn("t-none"); ok {
		h.t.Fatal("empty store has a turn")
	}
	h.commit()
	h.crash()
}

func scenarioCounters(h *rig) {
	h.saveCounters(core.Counters{Sessions: 1, Turns: 2, Preparations: 3})
	h.saveCounters(core.Counters{Sessions: 4, Turns: 5, Preparations: 6})
	h.verify("after replace")
	h.commit()
	h.saveCounters(core.Counters{Sessions: 7, Turns: 8, Preparations: 1 << 40})
	h.crash()
	h.saveCounters(core.Counters{Sessions: h.model.counters.Sessions + 1})
	h.verify("after a write following reopen")
	h.commit()
	h.crash()
}

func scenarioSessions(h *rig) {
	for _, seq := range []uint64{2, 10, 1} {
		h.putSession(SampleSession(sessionID(seq), seq))
	}
	h.verify("listing in seq order")
	r := SampleSession(sessionID(2), 2)
	r.StartedTurns, r.NativeSessionID = 99, "replaced"
	h.putSession(r) // replaces in place: same position, same count
	h.verify("after replace")
	h.commit()
	h.putSession(SampleSession(sessionID(5), 5))
	r.NativeSessionID = "replaced again, uncommitted"
	h.putSession(r)
	h.crash()
	r, _ = h.st.Session(sessionID(2))
	r.StartedTurns++
	h.putSession(r)
	h.putSession(SampleSession(sessionID(7), 7))
	h.commit()
	h.crash()
}

func sessionID(seq uint64) string { return "s-" + string(rune('z'-seq)) } // ID order is not seq order

func scenarioTurns(h *rig) {
	for _, seq := range []uint64{3, 1, 2} {
		h.putTurn(SampleTurn(turnID(seq), "s-1", seq))
	}
	h.verify("listing in seq order")
	r := SampleTurn(turnID(1), "s-1", 1)
	r.State, r.Done, r.Usage, r.CancelOutcome = core.TurnCompleted, nil, nil, nil
	r.CancelDeadline = time.Time{}
	h.putTurn(r) // pointers cleared and time zeroed must stay so
	h.verify("after replace")
	h.commit()
	h.putTurn(SampleTurn(turnID(4), "s-2", 4))
	r.State = core.TurnFailed
	h.putTurn(r)
	h.crash()
	r, _ = h.st.Turn(turnID(1))
	r.ErrorDetail = "after reopen"
	h.putTurn(r)
	h.commit()
	h.crash()
}

func turnID(seq uint64) string { return "t-" + string(rune('z'-seq)) }

func scenarioInputs(h *rig) {
	h.probes = []string{"t-empty"}
	for i := 1; i <= 3; i++ {
		h.putInput("t-1", SampleInput(i, core.InputQueued))
	}
	h.putInput("t-2", SampleInput(1, core.InputDelivering))
	h.putInput("t-1", SampleInput(2, core.InputAccepted)) // replace by index
	h.verify("after replace")
	for _, i := range []int{0, -1, 5, 100} {
		h.refused("input index out of sequence", func() { h.st.PutInput("t-1", SampleInput(i, core.InputQueued)) })
	}
	h.refused("first input index 2", func() { h.st.PutInput("t-3", SampleInput(2, core.InputQueued)) })
	h.commit()
	h.putInput("t-1", SampleInput(4, core.InputWritten))
	h.putInput("t-1", SampleInput(1, core.InputFailed))
	h.putInput("t-3", SampleInput(1, core.InputUnknown))
	h.crash()
	n := len(h.model.inputs["t-1"])
	h.putInput("t-1", SampleInput(n+1, core.InputNotDelivered))
	h.putInput("t-1", SampleInput(n, core.InputAccepted))
	h.refused("input index past the end after reopen", func() { h.st.PutInput("t-1", SampleInput(n+3, core.InputQueued)) })
	h.commit()
	h.crash()
}

func scenarioEvents(h *rig) {
	h.probes = []string{"t-empty"}
	for range 9 {
		h.appendEvent("t-1")
	}
	h.appendEvent("t-2")
	n := h.model.nextEvent("t-1")
	for _, seq := range []uint64{0, 1, n - 1, n + 1, n + 50} {
		h.refused("event out of sequence", func() { h.st.AppendEvent("t-1", SampleEvent(seq)) })
	}
	h.refused("first event seq 2", func() { h.st.AppendEvent("t-3", SampleEvent(2)) })
	h.commit()
	h.appendEvent("t-1")
	h.appendEvent("t-3")
	h.crash()
	h.appendEvent("t-1")
	h.appendEvent("t-2")
	n = h.model.nextEvent("t-1")
	h.refused("event gap after reopen", func() { h.st.AppendEvent("t-1", SampleEvent(n+1)) })
	h.commit()
	h.crash()
}

// scenarioCopies: a caller mutating a returned slice changes nothing in
// the store.
func scenarioCopies(h *rig) {
	h.putSession(SampleSession("s-1", 1))
	h.putTurn(SampleTurn("t-1", "s-1", 1))
	h.putInput("t-1", SampleInput(1, core.InputQueued))
	h.appendEvent("t-1")
	h.commit()
	h.crash()
	ss, ts, in, ev := h.st.Sessions(), h.st.Turns(), h.st.Inputs("t-1"), h.st.Events("t-1")
	ss[0].NativeSessionID, ts[0].State, in[0].State, ev[0].Type = "x", "x", "x", "x"
	_ = append(in[:0], core.InputRecord{Index: 9})
	_ = append(ev[:0], core.RunEvent{Seq: 9})
	h.verify("after mutating returned slices")
}

// scenarioRoundTrip writes every record kind and every payload type with
// all fields set, reopens, and compares field by field.
func scenarioRoundTrip(h *rig) {
	for _, r := range []any{SampleSession("s-1", 1), SampleTurn("t-1", "s-1", 1), SampleInput(1, core.InputAccepted)} {
		if f := zeroField(reflect.ValueOf(r), reflect.TypeOf(r).Name()); f != "" {
			h.t.Fatalf("sample record leaves %s unset: the round trip would not cover it", f)
		}
	}
	h.saveCounters(core.Counters{Sessions: 1, Turns: 2, Preparations: 3})
	h.putSession(SampleSession("s-1", 1))
	h.putTurn(SampleTurn("t-1", "s-1", 1))
	local := SampleTurn("t-2", "s-1", 2)
	local.CancelDeadline = local.CancelDeadline.In(time.FixedZone("", 2*60*60))
	h.putTurn(local)
	zero := core.TurnRecord{ID: "t-3", Seq: 3}
	h.putTurn(zero)
	h.putInput("t-1", SampleInput(1, core.InputAccepted))
	h.putInput("t-1", core.InputRecord{Index: 2})
	for range len(SamplePayloads()) {
		h.appendEvent("t-1")
	}
	h.st.AppendEvent("t-3", core.RunEvent{Seq: 1, Type: wire.TypeDelta, Payload: wire.Delta{}})
	h.model.appendEvent("t-3", core.RunEvent{Seq: 1, Type: wire.TypeDelta, Payload: wire.Delta{}})
	h.commit()
	h.crash()
	if got, _ := h.st.Turn("t-2"); !got.CancelDeadline.Equal(local.CancelDeadline) {
		h.t.Fatalf("time %v came back as %v", local.CancelDeadline, got.CancelDeadline)
	}
}

// scenarioMachine runs a real Machine over the store across a reopen:
// core.Restart must see exactly the durable Sessions, Turns and counters.
func scenarioMachine(h *rig) {
	now := base
	agent := core.AgentConfig{Kind: "synthetic", Model: "m", Environment: core.EnvNone}
	m := core.New(core.Config{}, h.st)
	m.Step(now, core.CreateSession{Call: "c1", Agent: agent})
	m.Step(now, core.SubmitTurn{Call: "c2", Session: "s-1", Input: wire.TextInput("x")})
	h.commit()
	m.Step(now, core.CreateSession{Call: "c3", Agent: agent})
	st := h.reopen()
	h.st = st
	m = core.Restart(core.Config{}, st)
	if v, ok := m.Turn("t-1"); !ok || v.State != core.TurnQueued {
		h.t.Fatalf("committed turn after restart: %+v %v", v, ok)
	}
	_, second := st.Session("s-2")
	if second == h.lossy {
		h.t.Fatalf("uncommitted session s-2 present=%v after reopen (loses uncommitted: %v)", second, h.lossy)
	}
	effs := m.Step(now, core.CreateSession{Call: "c4", Agent: agent})
	want := "s-3"
	if h.lossy {
		want = "s-2"
	}
	if r, ok := effs[0].(core.APIResult); !ok || r.Value != (core.SessionCreated{Session: want}) {
		h.t.Fatalf("next session after restart: %+v, want %s", effs[0], want)
	}
}

// zeroField names the first exported field of struct v (or of a struct
// field of it) left at its zero value, or "".
func zeroField(v reflect.Value, path string) string {
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		switch {
		case !sf.IsExported():
		case f.IsZero():
			return path + "." + sf.Name
		case f.Kind() == reflect.Struct && f.Type() != reflect.TypeFor[time.Time]():
			if z := zeroField(f, path+"."+sf.Name); z != "" {
				return z
			}
		}
	}
	return ""
}

package check

import (
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func subagentFrame(t *testing.T, run string, p wire.Payload) SubagentEntry {
	t.Helper()
	b, err := wire.Encode(wire.Frame{ID: run, Payload: p})
	if err != nil {
		t.Fatal(err)
	}
	return SubagentEntry{Run: run, Frame: b}
}

func subagentViolations(l *Ledger) string {
	var out []string
	for _, v := range l.AfterStep(1) {
		if v.Check == CheckSubagentRecord {
			out = append(out, v.Message)
		}
	}
	return strings.Join(out, "; ")
}

func TestSubagentRecordJudgesCoreAgainstTheHarness(t *testing.T) {
	id := wire.SubagentIdentity{NativeID: "sa-1", ParentNativeID: "root"}
	life := wire.SubagentLifecycle{NativeID: "sa-1", Status: "running"}
	turn := wire.SubagentTurn{NativeID: "sa-1", TurnID: "st-1", Status: "completed"}
	ledger := func() *Ledger {
		l := NewLedger()
		l.RunStartSent(1, "t1", "r1", "d1", "1", "h1")
		for _, p := range []wire.Payload{id, life, turn} {
			l.NativeSubagent(2, "r1", p)
		}
		made(&l.daemon.sent)[pairKey("done", "r1")] = true
		made(&l.core.onWire)[pairKey("done", "r1")] = true
		return l
	}
	cases := []struct {
		name   string
		record [][]SubagentEntry // Core's successive lists
		done   bool              // Core persists done after them
		want   string            // a violation containing this; "" none
	}{
		{"all, in order", [][]SubagentEntry{{subagentFrame(t, "r1", id)}, {subagentFrame(t, "r1", id), subagentFrame(t, "r1", life), subagentFrame(t, "r1", turn)}}, true, ""},
		{"a prefix while running", [][]SubagentEntry{{subagentFrame(t, "r1", id), subagentFrame(t, "r1", life)}}, false, ""},
		{"reordered", [][]SubagentEntry{{subagentFrame(t, "r1", life)}}, false, "the Harness reported"},
		{"never reported", [][]SubagentEntry{{subagentFrame(t, "r1", id), subagentFrame(t, "r1", life), subagentFrame(t, "r1", turn), subagentFrame(t, "r1", turn)}}, false, "reported only 3"},
		{"another run", [][]SubagentEntry{{subagentFrame(t, "r9", id)}}, false, "not a run it started"},
		{"rewritten", [][]SubagentEntry{{subagentFrame(t, "r1", id), subagentFrame(t, "r1", life)}, {subagentFrame(t, "r1", id), subagentFrame(t, "r1", turn)}}, false, "rewrote"},
		{"missing at done", [][]SubagentEntry{{subagentFrame(t, "r1", id), subagentFrame(t, "r1", life)}}, true, "holding 2"},
	}
	for _, c := range cases {
		l := ledger()
		for _, r := range c.record {
			l.CoreSubagents(3, "t1", r)
		}
		if c.done {
			l.TerminalObserved(4, TerminalDone, "r1", ObservedPersisted)
		}
		got := subagentViolations(l)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: violations %q, want %q", c.name, got, c.want)
		}
	}
	// After done nothing more is recorded for the run.
	l := ledger()
	l.CoreSubagents(3, "t1", []SubagentEntry{subagentFrame(t, "r1", id), subagentFrame(t, "r1", life)})
	made(&l.subagents.native)["r1"] = l.subagents.native["r1"][:2]
	l.TerminalObserved(4, TerminalDone, "r1", ObservedPersisted)
	l.subagents.native["r1"] = append(l.subagents.native["r1"], subagentFrame(t, "r1", turn).Frame)
	l.CoreSubagents(5, "t1", []SubagentEntry{subagentFrame(t, "r1", id), subagentFrame(t, "r1", life), subagentFrame(t, "r1", turn)})
	if got := subagentViolations(l); !strings.Contains(got, "after the run's done") {
		t.Errorf("after done: violations %q", got)
	}
}

// TestSubagentRecordJudgesUnaskedForwarding: a daemon sending a subagent
// observation of a Run whose Harness reported it unasked breaks the rule;
// the Run's done leaving without one is the mark, and a forged frame is
// not the daemon's.
func TestSubagentRecordJudgesUnaskedForwarding(t *testing.T) {
	id := wire.SubagentIdentity{NativeID: "r1/unasked", ParentNativeID: "root"}
	send := func(l *Ledger, p wire.Payload, forged bool) {
		raw, err := wire.Encode(wire.Frame{ID: "r1", Payload: p})
		if err != nil {
			t.Fatal(err)
		}
		l.Wire(WireEvent{At: 3, Kind: WireSent, Conn: 1, From: "d1", To: CoreNode, Raw: raw, Frame: wire.Frame{ID: "r1", Payload: p}, Forged: forged})
	}
	l := NewLedger()
	l.NativeSubagentUnasked(2, "r1", id)
	send(l, wire.Done{}, false)
	if got := subagentViolations(l); got != "" {
		t.Fatalf("dropped: %s", got)
	}
	if !slices.Contains(l.Marks(), MarkCount{MarkSubagentUnaskedDropped, 1}) {
		t.Fatal("the done leaving without the unasked observation is not marked")
	}
	l = NewLedger()
	l.NativeSubagentUnasked(2, "r1", id)
	send(l, id, true)
	if got := subagentViolations(l); got != "" {
		t.Fatalf("forged: %s", got)
	}
	send(l, id, false)
	if got := subagentViolations(l); !strings.Contains(got, "not prepared with observe_subagent_identities") {
		t.Fatalf("forwarded: got %q", got)
	}
}

package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func reuseConfigOf(model, native string, require bool) wire.ExecutionConfiguration {
	b, _ := json.Marshal(model)
	return wire.ExecutionConfiguration{AgentKind: "k", AgentOptions: map[string]json.RawMessage{"model": b},
		AgentSessionID: native, RequireExistingNativeSession: require}
}

// reuseRun: executor ex-1 of Session s1 is prepared (p-1, model m1) on
// d1, runs r1, whose done names native n1 (or nothing when native is
// ""); then prepare p-2 of session with cfg is answered by ex-1 reused.
func reuseRun(native, session string, cfg wire.ExecutionConfiguration, crash bool) *Ledger {
	l := NewLedger()
	l.Wire(wf(1, WireDelivered, 1, "core", "d1", "p-1", wire.ExecutionPrepare{SessionID: "s1", Configuration: reuseConfigOf("m1", "", false)}))
	l.Wire(wf(1, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 1, State: wire.StatePreparing}))
	l.Wire(wf(2, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 3, State: wire.StateStarted, RunID: "r1"}))
	done := wire.Done{}
	if native != "" {
		done.Metadata = &wire.DoneMetadata{AgentSessionID: native}
	}
	l.Wire(wf(3, WireSent, 1, "d1", "core", "r1", done))
	if crash {
		l.NodeCrashed(4, "d1")
	}
	l.Wire(wf(5, WireDelivered, 1, "core", "d1", "p-2", wire.ExecutionPrepare{SessionID: session, Configuration: cfg}))
	l.Wire(wf(5, WireSent, 1, "d1", "core", "p-2", wire.PreparationStatus{ExecutorID: "ex-1", Reused: true, Handle: "h-2", Revision: 1, State: wire.StateReady}))
	return l
}

func TestExecutorReuse(t *testing.T) {
	cases := []struct {
		name, native, session string
		cfg                   wire.ExecutionConfiguration
		crash                 bool
		want                  string
	}{
		{"same configuration, resuming its session", "n1", "s1", reuseConfigOf("m1", "n1", true), false, ""},
		{"same configuration, no history named", "n1", "s1", reuseConfigOf("m1", "", false), false, ""},
		{"another Session", "n1", "s2", reuseConfigOf("m1", "", false), false, "of Session s1 for a prepare of Session s2"},
		{"another configuration", "n1", "s1", reuseConfigOf("m2", "", false), false, "documented: configuration_conflict"},
		{"another native session", "n1", "s1", reuseConfigOf("m1", "n9", false), false, `holding native session "n1" for prepare p-2 naming "n9"`},
		{"history required of a rootless executor", "", "s1", reuseConfigOf("m1", "", true), false, ""}, // the done named none: unknown
		{"forgotten by a crash", "n1", "s2", reuseConfigOf("m2", "", false), true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := reuseRun(c.native, c.session, c.cfg, c.crash)
			vs := checkOnly(l, CheckExecutorReuse)
			switch {
			case c.want == "" && len(vs) > 0:
				t.Fatalf("unexpected violations:\n%s", Render(vs))
			case c.want != "" && (len(vs) != 1 || !containsMsg(vs[0], c.want)):
				t.Fatalf("want one %s violation containing %q, got:\n%s", CheckExecutorReuse, c.want, Render(vs))
			}
		})
	}
}

// A prepared executor no Run has used holds no native session: reusing it
// for a prepare that requires existing history is the breach.
func TestExecutorReuseRequiresHistory(t *testing.T) {
	l := NewLedger()
	l.Wire(wf(1, WireDelivered, 1, "core", "d1", "p-1", wire.ExecutionPrepare{SessionID: "s1", Configuration: reuseConfigOf("m1", "", false)}))
	l.Wire(wf(1, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 1, State: wire.StatePreparing}))
	l.Wire(wf(2, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 3, State: wire.StateReleased}))
	l.Wire(wf(5, WireDelivered, 1, "core", "d1", "p-2", wire.ExecutionPrepare{SessionID: "s1", Configuration: reuseConfigOf("m1", "", true)}))
	l.Wire(wf(5, WireSent, 1, "d1", "core", "p-2", wire.PreparationStatus{ExecutorID: "ex-1", Reused: true, Handle: "h-2", Revision: 1, State: wire.StateReady}))
	vs := checkOnly(l, CheckExecutorReuse)
	if len(vs) != 1 || !containsMsg(vs[0], "documented: history_unavailable") {
		t.Fatalf("want one history_unavailable breach, got:\n%s", Render(vs))
	}
}

// checkOnly keeps l's violations of check.
func checkOnly(l *Ledger, check string) []Violation {
	var out []Violation
	for _, v := range l.Violations() {
		if v.Check == check {
			out = append(out, v)
		}
	}
	return out
}

func containsMsg(v Violation, sub string) bool { return strings.Contains(v.Message, sub) }

// A reuse answers ready at revision 1 with reused=true; an executor an
// earlier prepare created is never announced as new.
func TestExecutorReuseIsAnnouncedAsSuch(t *testing.T) {
	prep := func(l *Ledger, at int64, req string) {
		l.Wire(wf(at, WireDelivered, 1, "core", "d1", req, wire.ExecutionPrepare{SessionID: "s1", Configuration: reuseConfigOf("m1", "", false)}))
	}
	for name, c := range map[string]struct {
		st   wire.PreparationStatus
		want string
	}{
		"reuse as ready at revision 1": {wire.PreparationStatus{ExecutorID: "ex-1", Reused: true, Handle: "h-2", Revision: 1, State: wire.StateReady}, ""},
		"reuse that prepares first":    {wire.PreparationStatus{ExecutorID: "ex-1", Reused: true, Handle: "h-2", Revision: 1, State: wire.StatePreparing}, "with preparing at revision 1"},
		"reuse announced as new":       {wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-2", Revision: 1, State: wire.StateReady}, "which an earlier prepare created, but reused=false"},
	} {
		t.Run(name, func(t *testing.T) {
			l := NewLedger()
			prep(l, 1, "p-1")
			l.Wire(wf(1, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 1, State: wire.StatePreparing}))
			l.Wire(wf(2, WireSent, 1, "d1", "core", "p-1", wire.PreparationStatus{ExecutorID: "ex-1", Handle: "h-1", Revision: 2, State: wire.StateReleased}))
			prep(l, 5, "p-2")
			l.Wire(wf(5, WireSent, 1, "d1", "core", "p-2", c.st))
			vs := checkOnly(l, CheckExecutorReuse)
			switch {
			case c.want == "" && len(vs) > 0:
				t.Fatalf("unexpected violations:\n%s", Render(vs))
			case c.want != "" && (len(vs) != 1 || !containsMsg(vs[0], c.want)):
				t.Fatalf("want one violation containing %q, got:\n%s", c.want, Render(vs))
			}
		})
	}
}

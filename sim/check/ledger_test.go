package check

import (
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim/linearize"
	"github.com/turnstile-sim/turnstile/wire"
)

// scripted is one turn through the whole stack, correct unless bug names a
// planted fault. Every checker has a bug here that must trip it.
type scripted struct {
	l   *Ledger
	now int64
	bug string
}

func (s *scripted) tick() int64 { s.now += 1_000_000; return s.now }

func (s *scripted) is(bug string) bool { return s.bug == bug }

const expiry = int64(5 * 60 * 1_000_000_000)

func runScripted(bug string) *Ledger {
	s := &scripted{l: NewLedger(), bug: bug}
	s.admit()
	s.start()
	s.steer()
	s.finish()
	return s.l
}

func (s *scripted) admit() {
	l := s.l
	l.TurnSubmitted(s.tick(), "s1", "t1")
	l.TurnState(s.tick(), "t1", TurnQueued)
	l.ReadTurn(s.now, s.tick(), "s1", "t1", TurnQueued)
	w := wireFeed{l: l, now: &s.now}
	l.SessionCreated(s.tick(), "s1", testSpec())
	w.open(1, "d1")
	kind := allKind()
	if s.is("capability_missing") {
		kind.Capabilities.Steering = wire.CapabilityUnsupported
	}
	w.heartbeat(1, "d1", kind)
	if !s.is("capability_no_selection") {
		w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	}
	l.TurnState(s.tick(), "t1", TurnPreparing)
	l.ExecutorCreated(s.tick(), "d1", "e1")
	l.DeviceConfigured("d1", DeviceLimits{ActiveMax: 1, ExecutorsMax: 2})
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 1, State: wire.StatePreparing}))
	if s.is("capacity_active") {
		w.deviceSends(1, "d1", statusFrame("p9", wire.PreparationStatus{ExecutorID: "e2", Handle: "h9", Revision: 1, State: wire.StatePreparing}))
	}
	w.coreSends(1, "d1", startFrame("p1", "h1", "r1", wire.TextInput("hi")))
	if s.is("capacity_native") {
		// closes fail (never recorded) while the daemon keeps creating
		// executors
		for _, e := range []string{"e2", "e3"} {
			l.ExecutorCreated(s.tick(), "d1", e)
		}
	}
	l.HandleGranted(s.tick(), "c1", "h1", s.now+expiry)
	l.StatusStepped(s.tick(), "c1", "p1", wire.PreparationStatus{Handle: "h1", Revision: 1, State: wire.StatePreparing}, "")
	l.StatusStepped(s.tick(), "c1", "p1", wire.PreparationStatus{Handle: "h1", Revision: 2, State: wire.StateReady}, "sent execution_start")
	if s.is("stale_revision") {
		l.StatusStepped(s.tick(), "c1", "p1", wire.PreparationStatus{Handle: "h1", Revision: 2, State: wire.StateReady}, "sent execution_start")
	}
}

func (s *scripted) start() {
	l := s.l
	l.RunStartSent(s.tick(), "t1", "r1", "d1", "c1", "h1")
	if s.is("run_twice_core") {
		l.RunStartSent(s.tick(), "t1", "r1", "d1", "c2", "h2")
	}
	switch {
	case s.is("handle_across"):
		l.HandleGranted(s.tick(), "c2", "h9", 0)
		l.HandleStarted(s.tick(), "c1", "h9", "r1")
	case s.is("handle_after_release"):
		l.HandleEnded(s.tick(), "c1", "h1", HandleReleased)
		l.HandleStarted(s.tick(), "c1", "h1", "r1")
	case s.is("handle_expired"):
		s.now += expiry // the daemon forgot the deadline: no expiry recorded
		l.HandleStarted(s.tick(), "c1", "h1", "r1")
	case s.is("handle_twice"):
		l.HandleStarted(s.tick(), "c1", "h1", "r1")
		l.HandleStarted(s.tick(), "c1", "h1", "r2")
	default:
		l.HandleStarted(s.tick(), "c1", "h1", "r1")
	}
	l.HandleEnded(s.tick(), "c1", "h1", HandleExpired) // expiry after start is harmless
	l.TurnCreated(s.tick(), "d1", "r1")
	if s.is("run_twice_native") {
		l.TurnCreated(s.tick(), "d2", "r1")
	}
	l.TurnState(s.tick(), "t1", TurnRunning)
	if s.is("state_regress") {
		l.TurnState(s.tick(), "t1", TurnPreparing)
	}
	l.ReadTurn(s.now, s.tick(), "s1", "t1", TurnRunning)
}

func (s *scripted) steer() {
	l := s.l
	call := s.tick()
	l.InputDelivered(s.tick(), "r1", "i1")
	if s.is("input_twice_core") {
		l.InputDelivered(s.tick(), "r1", "i1")
	}
	if !s.is("receipt_early") && !s.is("outcome_early") {
		l.InputApplied(s.tick(), "r1", "i1")
	}
	if s.is("input_twice_native") {
		l.InputApplied(s.tick(), "r1", "i1")
	}
	if !s.is("outcome_early") {
		l.ReceiptSent(s.tick(), "r1", "i1", StageWritten)
		l.ReceiptSent(s.tick(), "r1", "i1", StageAccepted)
		l.Wire(wf(s.tick(), WireDelivered, 1, "d1", CoreNode, "r1", wire.PromptSteerAck{InputID: "i1", Accepted: true}))
	}
	if s.is("receipt_early") {
		l.InputApplied(s.tick(), "r1", "i1")
	}
	l.InputOutcome(s.tick(), "r1", "i1", InputAccepted)
	l.CursorAdvanced(s.tick(), "r1", "i1", 1)
	if s.is("cursor_back") {
		l.CursorAdvanced(s.tick(), "r1", "i1", 0)
	}
	if s.is("outcome_early") {
		l.InputApplied(s.tick(), "r1", "i1")
	}
	l.SteerInput(call, s.tick(), "s1", "t1", "i1", InputAccepted)
	u1 := UsageSnapshot{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}
	u2 := UsageSnapshot{InputTokens: 30, OutputTokens: 9, TotalTokens: 39}
	l.UsageSent(s.tick(), "r1", u1)
	l.UsageSent(s.tick(), "r1", u2)
	if s.is("usage_sum") {
		u2 = u1.add(u2)
	}
	l.UsagePersisted(s.tick(), "r1", u2)
	facts := []TurnFacts{{Turn: "t1", State: TurnRunning, Run: "r1", Cursor: 1}}
	switch {
	case s.is("restart_lost"):
		facts = nil
	case s.is("restart_cursor"):
		facts[0].Cursor = 0
	case s.is("restart_state"):
		facts[0].State = TurnQueued
	}
	l.CoreRestarted(s.tick(), facts)
}

func (s *scripted) finish() {
	l := s.l
	if s.is("cancel_overridden") {
		l.CancelAckSent(s.tick(), "r1", true)
		l.CancelAckObserved(s.tick(), "r1", true)
	}
	l.TurnSettled(s.tick(), "r1", NativeCompleted)
	l.TerminalSent(s.tick(), TerminalDone, "r1")
	if !s.is("persisted_unreceived") {
		l.TerminalObserved(s.tick(), TerminalDone, "r1", ObservedOnWire)
	}
	l.TerminalObserved(s.tick(), TerminalDone, "r1", ObservedPersisted)
	if s.is("fabricated_done") {
		l.TerminalObserved(s.tick(), TerminalDone, "r2", ObservedPersisted)
	}
	if s.is("fabricated_cancel") {
		l.CancelAckSent(s.tick(), "r1", false)
		l.CancelAckObserved(s.tick(), "r1", true)
	}
	if s.is("fabricated_error") {
		l.TerminalObserved(s.tick(), TerminalError, "r1", ObservedOnWire)
	}
	if !s.is("liveness") {
		l.TurnState(s.tick(), "t1", TurnCompleted)
	}
	if s.is("terminal_changed") {
		l.TurnState(s.tick(), "t1", TurnFailed)
	}
	l.ReadTurn(s.now, s.tick(), "s1", "t1", TurnCompleted)
	if !s.is("orphan") {
		l.ExecutorClosed(s.tick(), "d1", "e1")
	}
}

func allViolations(l *Ledger) []Violation {
	var step uint64 = 1
	l.AfterStep(step)
	l.Final(1 << 40)
	return untimed(l.Violations())
}

func TestScriptedRunIsClean(t *testing.T) {
	l := runScripted("")
	if vs := allViolations(l); len(vs) != 0 {
		t.Fatalf("healthy run has violations:\n%s", Render(vs))
	}
	if ok, reason := l.Pending(); !ok {
		t.Fatalf("healthy run pending: %s", reason)
	}
	if res := linearize.Check(l.History(), linearize.Options{}); res.Result != porcupine.Ok {
		t.Fatalf("healthy run: %s", res)
	}
}

func TestEveryCheckerBites(t *testing.T) {
	cases := map[string]string{
		"capability_missing":      CheckCapability,
		"capability_no_selection": CheckCapability,
		"capacity_active":         CheckCapacity,
		"capacity_native":         CheckCapacity,
		"stale_revision":          CheckStaleRevision,
		"run_twice_core":          CheckRunStartedTwice,
		"run_twice_native":        CheckRunStartedTwice,
		"handle_across":           CheckHandleReuse,
		"handle_after_release":    CheckHandleReuse,
		"handle_twice":            CheckHandleReuse,
		"handle_expired":          CheckHandleReuse,
		"state_regress":           CheckDurableFacts,
		"terminal_changed":        CheckDurableFacts,
		"cursor_back":             CheckDurableFacts,
		"restart_lost":            CheckDurableFacts,
		"restart_cursor":          CheckDurableFacts,
		"restart_state":           CheckDurableFacts,
		"input_twice_core":        CheckInputDeliveredTwice,
		"input_twice_native":      CheckInputDeliveredTwice,
		"receipt_early":           CheckAcceptedWithoutTruth,
		"outcome_early":           CheckAcceptedWithoutTruth,
		"usage_sum":               CheckUsageAdded,
		"cancel_overridden":       CheckCancelOverridden,
		"fabricated_done":         CheckFabricatedTerminal,
		"fabricated_error":        CheckFabricatedTerminal,
		"fabricated_cancel":       CheckFabricatedTerminal,
		"persisted_unreceived":    CheckFabricatedTerminal,
		"liveness":                CheckLiveness,
		"orphan":                  CheckOrphan,
	}
	for _, bug := range sortedKeys(cases) {
		want := cases[bug]
		t.Run(bug, func(t *testing.T) {
			vs := allViolations(runScripted(bug))
			if len(vs) == 0 {
				t.Fatalf("no violation, want %s", want)
			}
			for _, v := range vs {
				if v.Check == want {
					return
				}
			}
			t.Fatalf("want %s, got:\n%s", want, Render(vs))
		})
	}
}

func TestAfterStepStampsAndDrains(t *testing.T) {
	l := NewLedger()
	l.RunStartSent(5, "t1", "r1", "d1", "c1", "h1")
	if got := l.AfterStep(1); got != nil {
		t.Fatalf("step 1: %v", got)
	}
	l.RunStartSent(9, "t1", "r1", "d1", "c2", "h2")
	got := l.AfterStep(2)
	if len(got) != 1 || got[0].Step != 2 || got[0].At != 9 || got[0].Check != CheckRunStartedTwice {
		t.Fatalf("step 2: %v", got)
	}
	if again := l.AfterStep(3); again != nil {
		t.Fatalf("violation returned twice: %v", again)
	}
	if n := len(l.Violations()); n != 1 {
		t.Fatalf("kept %d violations", n)
	}
}

func TestPendingNamesWhatIsPending(t *testing.T) {
	l := runScripted("liveness")
	ok, reason := l.Pending()
	if ok || !strings.Contains(reason, "turn t1 is running") {
		t.Fatalf("pending=%v reason=%q", ok, reason)
	}
	l = runScripted("orphan")
	ok, reason = l.Pending()
	if ok || !strings.Contains(reason, "executor e1 on d1 open") {
		t.Fatalf("pending=%v reason=%q", ok, reason)
	}
	l.ExecutorClosed(1, "d1", "e1")
	if ok, reason := l.Pending(); !ok {
		t.Fatalf("still pending: %s", reason)
	}
}

func TestSameRecordsSameOutput(t *testing.T) {
	render := func() string {
		var b strings.Builder
		for _, bug := range []string{"usage_sum", "orphan", "liveness", "handle_across", "restart_lost"} {
			l := runScripted(bug)
			b.WriteString(Render(allViolations(l)))
			for _, op := range l.History() {
				b.WriteString(linearize.Model().DescribeOperation(op.Input, op.Output))
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	first := render()
	for i := 0; i < 5; i++ {
		if again := render(); again != first {
			t.Fatalf("output differs between identical runs:\n%s\n---\n%s", first, again)
		}
	}
}

func TestUsageFromWire(t *testing.T) {
	in, out := int32(3), int32(4)
	if got := UsageFromWire(&wire.Usage{InputTokens: &in, OutputTokens: &out}); got != (UsageSnapshot{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}) {
		t.Fatalf("flat usage: %v", got)
	}
	tok := &wire.TokenUsage{InputTokens: 1, CachedInputTokens: 2, OutputTokens: 3, ReasoningOutputTokens: 4, TotalTokens: 10}
	if got := UsageFromWire(&wire.Usage{Tokens: tok}); got.TotalTokens != 10 || got.CachedInputTokens != 2 {
		t.Fatalf("token usage: %v", got)
	}
	if UsageFromWire(nil) != (UsageSnapshot{}) {
		t.Fatal("nil usage")
	}
}

func TestCancelledTurnIsClean(t *testing.T) {
	l := NewLedger()
	turnWithRun(l, "s1", "t1", "r1")
	l.TurnState(3, "t1", TurnRunning)
	l.ReadTurn(4, 5, "s1", "t1", TurnRunning)
	l.TurnSettled(6, "r1", NativeCancelled)
	l.CancelAckSent(7, "r1", true)
	l.CancelAckObserved(8, "r1", true)
	l.TerminalSent(9, TerminalDone, "r1") // done may close a settled cancel stream
	l.TerminalObserved(10, TerminalDone, "r1", ObservedOnWire)
	l.TurnState(11, "t1", TurnCancelled)
	l.ReadTurn(12, 13, "s1", "t1", TurnCancelled)
	if vs := allViolations(l); len(vs) != 0 {
		t.Fatalf("cancelled turn has violations:\n%s", Render(vs))
	}
	if res := linearize.Check(l.History(), linearize.Options{}); res.Result != porcupine.Ok {
		t.Fatalf("cancelled turn: %s", res)
	}
}

// Render is the canonical text of all violations, one per line.
func Render(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.String())
		b.WriteByte('\n')
	}
	return b.String()
}

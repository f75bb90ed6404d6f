package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// refusalWorld: device d1 declares the test kind and was sent a valid
// prepare p1 for s1.
func refusalWorld(cfg wire.ExecutionConfiguration) (*Ledger, wireFeed) {
	l, w := prepareWorld(testSpec(), allKind())
	w.coreSends(1, "d1", prepareFrame("p1", "s1", cfg))
	return l, w
}

func granted(w wireFeed) {
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 1, State: wire.StatePreparing}))
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{ExecutorID: "e1", Handle: "h1", Revision: 2, State: wire.StateReady}))
}

func rejected(code, op string) wire.PreparationStatus {
	return wire.PreparationStatus{State: wire.StateRejected, ErrorCode: code, Operation: op}
}

func TestRefusalCodesClean(t *testing.T) {
	l, w := refusalWorld(goodConfig("s1"))
	granted(w)
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	l.TurnCreated(w.tick(), "d1", "t-1")
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{Handle: "h1", Revision: 3, State: wire.StateStarting, RunID: "t-1"}))
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{Handle: "h1", Revision: 4, State: wire.StateStarted, RunID: "t-1"}))
	w.coreSends(1, "d1", wire.Frame{ID: "t-1", Payload: wire.PromptSteer{InputID: "1", Input: wire.TextInput("y"), DurableReceipt: true}})
	w.deviceSends(1, "d1", wire.Frame{ID: "t-1", Payload: wire.PromptSteerAck{InputID: "1", Written: true}})
	w.coreSends(1, "d1", wire.Frame{ID: "t-1", Payload: wire.PromptCancel{DeliveryID: "c1"}})
	w.deviceSends(1, "d1", wire.Frame{ID: "t-1", Payload: wire.InteractionDecisionAck{DeliveryID: "c1", Applied: true}})
	// A second prepare refused for capacity (not decided by its content).
	again := goodConfig("s1")
	again.RequireExistingNativeSession = true
	w.coreSends(1, "d1", prepareFrame("p2", "s1", again))
	w.deviceSends(1, "d1", statusFrame("p2", rejected("preparation_capacity", "execution_prepare")))
	if vs := framesOnly(l.Violations()); len(vs) > 0 {
		t.Fatalf("clean exchange judged: %v", vs)
	}
}

func TestRefusalCodesPrepare(t *testing.T) {
	cases := map[string]struct {
		cfg      func(*wire.ExecutionConfiguration)
		answer   wire.PreparationStatus
		fragment string
	}{
		"unknown code":     {nil, rejected("too_busy", "execution_prepare"), `code "too_busy" is not a preparation code`},
		"no code":          {nil, rejected("", "execution_prepare"), `rejected with code ""`},
		"bad operation":    {nil, rejected("preparation_capacity", "execution_begin"), `operation "execution_begin"`},
		"bad state":        {nil, wire.PreparationStatus{Handle: "h1", Revision: 1, State: "warming"}, `state "warming"`},
		"expired code":     {nil, wire.PreparationStatus{Handle: "h1", Revision: 1, State: wire.StateExpired, ErrorCode: "preparation_failed"}, "expired carries"},
		"content code":     {nil, rejected("unsupported_configuration", "execution_prepare"), "whose content passes"},
		"history unasked":  {nil, rejected("history_unavailable", "execution_prepare"), "requires no existing history"},
		"granted bad key":  {func(c *wire.ExecutionConfiguration) { c.AgentOptions["x"] = []byte(`1`) }, wire.PreparationStatus{Handle: "h1", Revision: 1, State: wire.StatePreparing}, `want rejected "unsupported_configuration"`},
		"wrong code":       {func(c *wire.ExecutionConfiguration) { c.StrictResume = false }, rejected("unsupported_configuration", "execution_prepare"), `want rejected "invalid_configuration"`},
		"both environment": {func(c *wire.ExecutionConfiguration) { c.LocalEnvironment = &wire.LocalEnvironment{ID: "e"} }, rejected("invalid_configuration", "execution_prepare"), `want rejected "unsupported_configuration"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := goodConfig("s1")
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			var now int64
			l := NewLedger()
			w := wireFeed{l: l, now: &now}
			w.open(1, "d1")
			w.heartbeat(1, "d1", allKind())
			w.coreSends(1, "d1", prepareFrame("p1", "s1", cfg)) // no SessionCreated: only the daemon is judged
			w.deviceSends(1, "d1", statusFrame("p1", tc.answer))
			wantOnly(t, l, CheckRefusalCode, tc.fragment)
		})
	}
}

func TestRefusalCodesUngrantedStart(t *testing.T) {
	for name, answer := range map[string]wire.PreparationStatus{
		"wrong code": rejected("preparation_not_ready", "execution_start"),
		"started":    {Handle: "h9", Revision: 3, State: wire.StateStarting, RunID: "t-1"},
	} {
		t.Run(name, func(t *testing.T) {
			l, w := refusalWorld(goodConfig("s1"))
			granted(w)
			w.coreSends(1, "d1", startFrame("p1", "h9", "t-1", wire.TextInput("x")))
			w.deviceSends(1, "d1", statusFrame("p1", answer))
			wantOnly(t, l, CheckRefusalCode, "ungranted handle h9")
		})
	}
	l, w := refusalWorld(goodConfig("s1"))
	granted(w)
	w.coreSends(1, "d1", startFrame("p1", "h9", "t-1", wire.TextInput("x")))
	w.deviceSends(1, "d1", statusFrame("p1", rejected("unknown_preparation", "execution_start")))
	if vs := framesOnly(l.Violations()); len(vs) > 0 {
		t.Fatalf("documented refusal judged: %v", vs)
	}
}

// startedRun: run t-1 started on d1 and runs natively.
func startedRun() (*Ledger, wireFeed) {
	l, w := refusalWorld(goodConfig("s1"))
	granted(w)
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	l.TurnCreated(w.tick(), "d1", "t-1")
	w.deviceSends(1, "d1", statusFrame("p1", wire.PreparationStatus{Handle: "h1", Revision: 3, State: wire.StateStarted, RunID: "t-1"}))
	return l, w
}

func TestRefusalCodesReceipts(t *testing.T) {
	steer := wire.Frame{ID: "t-1", Payload: wire.PromptSteer{InputID: "1", Input: wire.TextInput("y"), DurableReceipt: true}}
	cancel := wire.Frame{ID: "t-1", Payload: wire.PromptCancel{DeliveryID: "c1"}}
	cases := map[string]struct {
		ask      wire.Frame
		answer   wire.Payload
		fragment string
	}{
		"steer code":         {steer, wire.PromptSteerAck{InputID: "1", ErrorCode: "later"}, "not a steering code"},
		"accepted with code": {steer, wire.PromptSteerAck{InputID: "1", Accepted: true, ErrorCode: "busy"}, "accepted with code"},
		"steer not ready":    {steer, wire.PromptSteerAck{InputID: "1", ErrorCode: "not_ready"}, "not_ready, but the run started"},
		"steer inactive":     {steer, wire.PromptSteerAck{InputID: "1", ErrorCode: "run_inactive"}, "run_inactive for a live run"},
		"cancel code":        {cancel, wire.InteractionDecisionAck{DeliveryID: "c1", ErrorCode: "busy"}, "not a cancel code"},
		"cancel applied":     {cancel, wire.InteractionDecisionAck{DeliveryID: "c1", Applied: true, ErrorCode: "not_ready"}, "applied with code"},
		"cancel not ready":   {cancel, wire.InteractionDecisionAck{DeliveryID: "c1", ErrorCode: "not_ready"}, "not_ready, but the run started"},
		"cancel inactive":    {cancel, wire.InteractionDecisionAck{DeliveryID: "c1", ErrorCode: "run_inactive"}, "run_inactive for a live run"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l, w := startedRun()
			w.coreSends(1, "d1", tc.ask)
			w.deviceSends(1, "d1", wire.Frame{ID: "t-1", Payload: tc.answer})
			wantOnly(t, l, CheckRefusalCode, tc.fragment)
		})
	}
	// run_inactive is the documented answer after done, and once the
	// daemon was asked to shut down (it cancels its Runs), even while the
	// Run still streams.
	inactive := map[string]func(l *Ledger, w wireFeed){
		"after done": func(l *Ledger, w wireFeed) {
			w.deviceSends(1, "d1", wire.Frame{ID: "t-1", Payload: wire.Done{}})
			l.TurnSettled(w.tick(), "t-1", NativeCompleted)
		},
		"after a shutdown request": func(l *Ledger, w wireFeed) { l.ShutdownRequested(w.tick(), "d1") },
	}
	for name, before := range inactive {
		l, w := startedRun()
		before(l, w)
		w.coreSends(1, "d1", steer)
		w.deviceSends(1, "d1", wire.Frame{ID: "t-1", Payload: wire.PromptSteerAck{InputID: "1", ErrorCode: "run_inactive"}})
		w.coreSends(1, "d1", cancel)
		w.deviceSends(1, "d1", wire.Frame{ID: "t-1", Payload: wire.InteractionDecisionAck{DeliveryID: "c1", ErrorCode: "run_inactive"}})
		if vs := framesOnly(l.Violations()); len(vs) > 0 {
			t.Fatalf("run_inactive %s judged: %v", name, vs)
		}
	}
}

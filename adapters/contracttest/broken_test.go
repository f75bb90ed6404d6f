package contracttest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// Deliberately broken adapters: each wraps the synthetic Harness and breaks
// one rule of the contract.
type breakage int

const (
	nilAfterInput      breakage = iota // hides a Turn whose input was submitted
	reusedTurn                         // returns the previous Turn object for the next Turn
	appliedEarly                       // a receipt reports applied as soon as the input is written
	lateOnNext                         // a late native callback lands on the next Turn
	retireNoReason                     // settles Reusable=false without a reason
	effectfulRefusal                   // refuses a function result after steering natively
	earlySettle                        // reports settlement before the output closed
	eventAfterDone                     // emits a delta after done
	unsafeReason                       // refusal reason echoes submitted content
	swallowedClose                     // reports a failed Close as success
	minimalTurn                        // implements only agent.Turn, no extensions
	noopCancel                         // Cancel does nothing
	acceptsAnyResult                   // takes a function result for a call it never emitted
	bareToolCall                       // a tool_call without observation although tool_observations is declared
	completedMessage                   // an output_message completed without its in_progress start
	undeclaredSubagent                 // a subagent observation although subagent_observations is not declared
)

type brokenFactory struct {
	h    *synthetic.Harness
	mode breakage
	late *lateState
}

// lateState is the marker a LateEvent hook armed, for lateOnNext.
type lateState struct {
	mu     sync.Mutex
	marker string
	armed  bool // the armed Turn started; the next one gets the callback
}

func (f brokenFactory) NewExecutor(ctx context.Context, cfg agent.ExecutorConfig) (agent.Executor, error) {
	ex, err := f.h.NewExecutor(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &brokenExecutor{Executor: ex.(*synthetic.Executor), mode: f.mode, late: f.late}, nil
}

type brokenExecutor struct {
	*synthetic.Executor
	mode breakage
	late *lateState
	last *brokenTurn
}

func (e *brokenExecutor) StartTurn(ctx context.Context, req agent.TurnRequest) (agent.Turn, error) {
	out := req.Output
	inner := make(chan agent.Event, wire.OutputFramesMax)
	req.Output = inner
	t, err := e.Executor.StartTurn(ctx, req)
	switch {
	case t == nil:
		return nil, err // inner is unused; the caller still owns out
	case e.mode == nilAfterInput && err != nil:
		go forward(inner, out, nil, nil)
		return nil, err
	}
	var before []agent.Event
	var after *agent.Event
	switch e.mode {
	case eventAfterDone:
		after = &agent.Event{RunID: req.RunID, Payload: wire.Delta{Delta: "late", Sequence: 1000}}
	case lateOnNext:
		if m := e.late.take(); m != "" {
			before = []agent.Event{{RunID: req.RunID, Payload: wire.Delta{Delta: m}}}
		}
	case bareToolCall:
		before = []agent.Event{{RunID: req.RunID, Payload: wire.ToolCall{ID: "tool-1", Name: "shell", Stage: wire.ToolStageBefore}}}
	case undeclaredSubagent:
		before = []agent.Event{{RunID: req.RunID, Payload: wire.SubagentIdentity{NativeID: "child-1", ParentTurnID: "t-1"}}}
	case completedMessage:
		text := "hi"
		before = []agent.Event{{RunID: req.RunID, Payload: wire.OutputMessage{ID: "msg-1", Status: wire.OutputStatusCompleted, Text: &text}}}
	}
	go forward(inner, out, before, after)
	if e.mode == minimalTurn {
		return struct{ agent.Turn }{t}, err
	}
	if e.mode == reusedTurn && e.last != nil {
		e.last.Turn = t.(*synthetic.Turn) // the old object, reset for the new Turn
		return e.last, err
	}
	e.last = &brokenTurn{Turn: t.(*synthetic.Turn), mode: e.mode}
	return e.last, err
}

// take returns the armed marker once, on the Turn after the armed one.
func (l *lateState) take() string {
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.marker == "" {
		return ""
	}
	if !l.armed {
		l.armed = true
		return ""
	}
	m := l.marker
	l.marker = ""
	return m
}

// forward copies in to out with extra events first and after done, and
// closes out when in closes.
func forward(in <-chan agent.Event, out chan<- agent.Event, before []agent.Event, after *agent.Event) {
	for _, ev := range before {
		out <- ev
	}
	for ev := range in {
		out <- ev
		if ev.Terminal() && after != nil {
			out <- *after
		}
	}
	close(out)
}

func (e *brokenExecutor) Close(ctx context.Context) error {
	err := e.Executor.Close(ctx)
	if e.mode == swallowedClose {
		return nil
	}
	return err
}

type brokenTurn struct {
	*synthetic.Turn
	mode breakage
}

func (t *brokenTurn) AwaitSettlement(ctx context.Context) (agent.TurnSettlement, error) {
	if t.mode == earlySettle {
		return agent.Reuse(), nil
	}
	s, err := t.Turn.AwaitSettlement(ctx)
	if t.mode == retireNoReason && err == nil && !s.Reusable {
		s.Reason = ""
	}
	return s, err
}

func (t *brokenTurn) Cancel(ctx context.Context) error {
	if t.mode == noopCancel {
		return nil
	}
	return t.Turn.Cancel(ctx)
}

// appliedNow is a receipt that claims application without asking the
// native side.
type appliedNow struct{}

func (appliedNow) AwaitApplied(context.Context) error { return nil }

func (t *brokenTurn) SteerDurable(ctx context.Context, in agent.SteerInput) (agent.AppliedReceipt, error) {
	rc, err := t.Turn.SteerDurable(ctx, in)
	if t.mode == appliedEarly && err == nil {
		return appliedNow{}, nil
	}
	return rc, err
}

func (t *brokenTurn) SubmitFunctionResult(ctx context.Context, r wire.FunctionResult) error {
	switch t.mode {
	case effectfulRefusal:
		_ = t.Turn.Steer(ctx, agent.SteerInput{InputID: "smuggled", Input: wire.TextInput("smuggled")})
		return agent.Unsupported("not qualified")
	case unsafeReason:
		return fmt.Errorf("%w: cannot apply %q", agent.ErrUnsupportedOperation, *r.Content[0].Text)
	case acceptsAnyResult:
		return nil
	}
	return t.Turn.SubmitFunctionResult(ctx, r)
}

// captureTB is a fake testing.TB that records what a kit reports instead
// of failing the test.
type captureTB struct {
	testing.TB
	mu     sync.Mutex
	errs   []string
	failed bool
}

func (c *captureTB) Helper() {}

func (c *captureTB) Errorf(format string, args ...any) { c.record(fmt.Sprintf(format, args...)) }
func (c *captureTB) Error(args ...any)                 { c.record(fmt.Sprint(args...)) }
func (c *captureTB) Logf(string, ...any)               {}
func (c *captureTB) Log(...any)                        {}
func (c *captureTB) Fatalf(format string, args ...any) {
	c.record(fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (c *captureTB) Failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

func (c *captureTB) record(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed = true
	c.errs = append(c.errs, msg)
}

func (c *captureTB) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.errs, "\n")
}

type kit func(testing.TB, agent.ExecutorFactory, contracttest.Fixture)

// TestBrokenAdaptersAreCaught proves that each broken rule is reported
// through a testing.TB with a message naming the broken clause.
func TestBrokenAdaptersAreCaught(t *testing.T) {
	slow := synthetic.TurnScript{Deltas: []string{"a", "b"}, EventInterval: time.Second}
	text := contracttest.TextLifecycle
	unsupported := contracttest.UnsupportedExtensionsHaveNoNativeEffects
	cases := []struct {
		name   string
		mode   breakage
		setup  func(h *synthetic.Harness, fx *contracttest.Fixture)
		run    kit
		clause contracttest.Clause
		want   string
	}{
		{"Turn object reused", reusedTurn, nil, text, contracttest.ClauseIndependentStreams,
			"lifecycle-2: StartTurn returned the Turn object of lifecycle-1"},
		{"applied before native application", appliedEarly, nil, text, contracttest.ClauseWriteVsApplied,
			"receipt reported applied before the native side applied the input"},
		{"applied although settled without applying", appliedEarly, nil, text, contracttest.ClauseWriteVsApplied,
			"receipt reported applied for an input the Turn settled without applying"},
		{"nil Turn after input", nilAfterInput, nil, text, contracttest.ClauseNilTurn,
			"start-after-input: failure after input returned a nil Turn"},
		{"nil Turn but output used", nilAfterInput, nil, text, contracttest.ClauseNilTurn,
			"start-after-input: nil Turn but the adapter closed the caller's output channel"},
		{"late event on the next Turn", lateOnNext, nil, text, contracttest.ClauseLateEvents,
			"lifecycle-2: a native callback of the settled lifecycle-1 was delivered on this Turn"},
		{"Reusable=false without a reason", retireNoReason, nil, text, contracttest.ClauseRetire,
			"retire-1: agent: invalid settlement: non-reusable settlement without a reason"},
		{"undeclared extension with a native effect", effectfulRefusal, nil, unsupported, contracttest.ClauseUnsupported,
			"Turn.FunctionResultSubmitter: answered Unsupported but had a native effect"},
		{"declared but refused", effectfulRefusal,
			func(_ *synthetic.Harness, fx *contracttest.Fixture) {
				fx.Capabilities.FunctionTools = wire.CapabilitySupported
			},
			unsupported, contracttest.ClauseDeclaration, "Turn.FunctionResultSubmitter: declared supported but answered Unsupported"},
		{"result for a call never emitted", acceptsAnyResult,
			func(_ *synthetic.Harness, fx *contracttest.Fixture) {
				fx.Capabilities.FunctionTools = wire.CapabilitySupported
			},
			unsupported, contracttest.ClauseFreshTurnState, "Turn.FunctionResultSubmitter: accepted an answer for an identity this Turn never emitted"},
		{"refusal echoes content", unsafeReason, nil, unsupported, contracttest.ClauseUnsupported,
			"Turn.FunctionResultSubmitter: refusal reason echoes submitted content"},
		{"settled before output closed", earlySettle,
			func(h *synthetic.Harness, _ *contracttest.Fixture) { h.Script(slow, slow) },
			text, contracttest.ClauseSettlement, "settlement reported while the output channel was still open"},
		{"event after done", eventAfterDone, nil, text, contracttest.ClauseStreamShape, "(delta) after done"},
		{"close failure swallowed", swallowedClose, nil, text, contracttest.ClauseCleanupFailure, "failed Close reported success"},
		{"extensions missing", minimalTurn, nil, unsupported, contracttest.ClauseUnsupported,
			"Turn does not implement agent.Steerer"},
		{"cancel ignored", noopCancel, nil, text, contracttest.ClauseSettlement, "AwaitSettlement: agent: settlement not confirmed"},
		{"tool call without observation", bareToolCall, nil, text, contracttest.ClauseStreamShape,
			`tool_call "tool-1" (before) without the observation its declared tool_observations promises`},
		{"subagent observation not declared", undeclaredSubagent, nil, text, contracttest.ClauseStreamShape,
			"observation not declared: subagent_identity"},
		{"output message not asked for", completedMessage, nil, text, contracttest.ClauseStreamShape,
			`output_message "msg-1" although observe_messages is not set`},
		{"output message completed without its start", completedMessage,
			func(_ *synthetic.Harness, fx *contracttest.Fixture) { fx.Config.Configuration.ObserveMessages = true },
			text, contracttest.ClauseStreamShape, `output_message "msg-1" completed without its in_progress start`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := synthetic.New()
				fx := fixture(h)
				fx.Timeout = 30 * time.Second
				late := &lateState{}
				hook := fx.LateEvent
				fx.LateEvent = func(m string) {
					hook(m)
					late.mu.Lock()
					late.marker = m
					late.mu.Unlock()
				}
				if tc.setup != nil {
					tc.setup(h, &fx)
				}
				tb := &captureTB{TB: t}
				tc.run(tb, brokenFactory{h: h, mode: tc.mode, late: late}, fx)
				out := tb.output()
				if !tb.Failed() {
					t.Fatal("broken adapter passed")
				}
				if !namesClause(out, tc.clause, tc.want) {
					t.Fatalf("no line names [%s] with %q:\n%s", tc.clause, tc.want, out)
				}
			})
		})
	}
}

// namesClause reports whether one line of out names clause and says want.
func namesClause(out string, clause contracttest.Clause, want string) bool {
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "["+string(clause)+"] ") && strings.Contains(line, want) {
			return true
		}
	}
	return false
}

package daemon

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

func steer(id, text string) wire.PromptSteer {
	return wire.PromptSteer{InputID: id, Input: wire.TextInput(text), DurableReceipt: true}
}

func acks(r *rig) []wire.PromptSteerAck { return payloadsOf[wire.PromptSteerAck](r.sent()) }

func oneAck(r *rig) wire.PromptSteerAck {
	r.t.Helper()
	a := acks(r)
	if len(a) != 1 {
		require.Fail(r.t, fmt.Sprintf("want one steer ack, got %s", describeAll(r.out)))
	}
	return a[0]
}

func TestSteerWrittenThenAccepted(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", steer("1", "more"))
	c, op := callOf[DurableWrite](r)
	require.Equal(t, turn, op.Turn, "written into the exact turn")
	require.Equal(t, "1", op.InputID, "input id")
	require.Empty(t, r.sent(), "no receipt before the native write")
	at, ok := r.armed(writeTimer(turn, "1"))
	require.Truef(t, ok && at.Equal(r.now.Add(10*time.Second)), "10s native write budget")
	r.result(c, WriteResult{Outcome: WriteWritten})
	w := oneAck(r)
	require.Truef(t, w.Written && !w.Accepted && w.ErrorCode == "", "written stage: %+v", w)
	for _, e := range r.out {
		if s, ok := e.(Send); ok {
			require.Equal(t, 5*time.Second, s.Budget, "receipt send budget")
			require.Equal(t, "run1", s.Frame.ID, "receipt on the Run ID")
		}
	}
	_, armed := r.armed(writeTimer(turn, "1"))
	require.Truef(t, !armed, "budget stops when the write completes")
	r.step(NativeInputApplied{Turn: turn, InputID: "1"})
	a := oneAck(r)
	require.Truef(t, a.Accepted && a.Written, "accepted stage: %+v", a)
	r.recv("run1", steer("1", "more"))
	require.Equal(t, a, oneAck(r), "repeat returns the stored receipt")
	noCall[DurableWrite](r)
}

func TestSteerOneInFlightPerRun(t *testing.T) {
	r := newRig(t)
	r.started("p1", "s1", "run1")
	r.recv("run1", steer("1", "a"))
	c, _ := callOf[DurableWrite](r)
	r.recv("run1", steer("2", "b"))
	require.Equal(t, CodeBusy, oneAck(r).ErrorCode, "second input while one is written")
	noCall[DurableWrite](r)
	r.recv("run1", steer("1", "a"))
	require.Equal(t, CodeInFlight, oneAck(r).ErrorCode, "same input in flight")
	r.recv("run1", steer("1", "changed"))
	require.Equal(t, CodeInputConflict, oneAck(r).ErrorCode, "same id, different content")
	r.result(c, WriteResult{Outcome: WriteWritten})
	r.recv("run1", steer("2", "b"))
	callOf[DurableWrite](r)
}

func TestSteerOverBudgetIsUnknownAndNeverReplayed(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", steer("1", "a"))
	c, _ := callOf[DurableWrite](r)
	r.fire(writeTimer(turn, "1"))
	u := oneAck(r)
	require.Equal(t, CodeOutcomeUnknown, u.ErrorCode, "over budget")
	require.Truef(t, !u.Written && !u.Accepted, "claims nothing")
	r.recv("run1", steer("1", "a"))
	require.Equal(t, u, oneAck(r), "stored unknown receipt")
	noCall[DurableWrite](r)
	r.recv("run1", steer("2", "b"))
	require.Equal(t, CodeBusy, oneAck(r).ErrorCode, "the native write is still outstanding")
	r.result(c, WriteResult{Outcome: WriteWritten})
	require.Empty(t, r.sent(), "a late result does not replace the unknown receipt")
	snap := r.m.Snapshot().Turns[0].Inputs
	require.Equal(t, "unknown", snap[0].State, "kept as unknown")
}

func TestSteerFailedAndUnknownResults(t *testing.T) {
	for _, tc := range []struct {
		outcome WriteOutcome
		code    string
	}{{WriteFailed, CodeRejected}, {WriteUnknown, CodeOutcomeUnknown}} {
		r := newRig(t)
		r.started("p1", "s1", "run1")
		r.recv("run1", steer("1", "a"))
		c, _ := callOf[DurableWrite](r)
		r.result(c, WriteResult{Outcome: tc.outcome, Err: "x"})
		a := oneAck(r)
		require.Equal(t, tc.code, a.ErrorCode, "code for "+tc.outcome.String())
		require.Truef(t, !a.Written && !a.Accepted, "claims nothing")
	}
}

func TestSteerCodes(t *testing.T) {
	r := newRig(t)
	r.recv("run0", steer("1", "a"))
	require.Equal(t, CodeRunInactive, oneAck(r).ErrorCode, "unknown run")
	r.recv("run0", wire.PromptSteer{InputID: " ", Input: wire.TextInput("a"), DurableReceipt: true})
	require.Equal(t, CodeInvalidInput, oneAck(r).ErrorCode, "blank input id")
	r.recv("run0", wire.PromptSteer{InputID: strings.Repeat("x", 257), Input: wire.TextInput("a"), DurableReceipt: true})
	a := oneAck(r)
	require.Equal(t, CodeInvalidInput, a.ErrorCode, "long input id")
	require.Equal(t, "", a.InputID, "oversized id not echoed")
	r.recv("run0", wire.PromptSteer{InputID: "1", DurableReceipt: true})
	require.Equal(t, CodeInvalidInput, oneAck(r).ErrorCode, "invalid input")
	st := r.ready("p1", "s1")
	r.recv("p1", startFor(st, "run1"))
	c, _ := callOf[StartTurn](r)
	r.recv("run1", steer("1", "a"))
	require.Equal(t, CodeNotReady, oneAck(r).ErrorCode, "run still starting")
	r.result(c, StartResult{Turn: true})
	r.recv("run1", wire.PromptSteer{InputID: "1", Input: wire.TextInput("a")})
	require.Equal(t, CodeUnsupported, oneAck(r).ErrorCode, "plain steering has no native path")
}

func TestSteerInputLimit(t *testing.T) {
	cfg := testConfig()
	cfg.Limits.SteerInputsPerRunMax = 2
	r := newRigWith(t, cfg)
	r.started("p1", "s1", "run1")
	for _, id := range []string{"1", "2"} {
		r.recv("run1", steer(id, id))
		c, _ := callOf[DurableWrite](r)
		r.result(c, WriteResult{Outcome: WriteWritten})
	}
	r.recv("run1", steer("3", "3"))
	require.Equal(t, CodeInputLimit, oneAck(r).ErrorCode, "inputs per run bounded")
}

func TestSteerUnsupportedWithoutDurableReceipts(t *testing.T) {
	cfg := testConfig()
	cfg.Kinds[0].Capabilities.DurableInputReceipts = wire.CapabilityUnsupported
	r := newRigWith(t, cfg)
	r.started("p1", "s1", "run1")
	r.recv("run1", steer("1", "a"))
	require.Equal(t, CodeUnsupported, oneAck(r).ErrorCode, "declaration snapshot lacks durable receipts")
	noCall[DurableWrite](r)
}

func TestDoneWaitsForAdmittedReceipt(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", steer("1", "a"))
	w, _ := callOf[DurableWrite](r)
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	require.Empty(t, r.sent(), "no done while a receipt is pending")
	r.result(w, WriteResult{Outcome: WriteWritten})
	require.Equal(t, "prompt_steer_ack,done", frameTypes(r.sent()), "receipt, then done")
}

func TestDoneAfterWriteBudgetExpires(t *testing.T) {
	r := newRig(t)
	turn := r.started("p1", "s1", "run1")
	r.recv("run1", steer("1", "a"))
	r.settle(turn, SettleResult{Settled: true, Reusable: true})
	r.fire(writeTimer(turn, "1"))
	require.Equal(t, "prompt_steer_ack,done", frameTypes(r.sent()), "unknown receipt, then done")
	owned := r.m.Owned()
	require.Truef(t, len(owned) == 2 && owned[1].Kind == "call" && owned[1].State == "write", "the write call stays owned: %v", owned)
}

// Regression: seed 5052 of the swarm. A cancelled Run whose executor was
// retired and closed while an input's write was still out answered that
// input ID reused with other content `unsupported`, since the capability
// check (no executor) ran before the input's identity was looked up.
func TestSteerKnownInputJudgedByIdentityAfterExecutorCloses(t *testing.T) {
	r := newRig(t)
	r.started("p1", "s1", "run1")
	r.recv("run1", steer("1", "a"))
	wc, _ := callOf[DurableWrite](r)
	r.recv("run1", wire.PromptCancel{DeliveryID: "d"})
	sc, _ := callOf[AwaitSettlement](r)
	r.result(sc, SettleResult{Settled: true, Reusable: false, Reason: "retire"})
	cc, _ := callOf[CloseExecutor](r)
	r.result(cc, CloseResult{})
	r.recv("run1", steer("1", "changed"))
	require.Equal(t, CodeInputConflict, oneAck(r).ErrorCode, "same id, other content")
	r.recv("run1", steer("1", "a"))
	require.Equal(t, CodeInFlight, oneAck(r).ErrorCode, "the same input, still being written")
	// A new input once the executor that ran the Run has closed: the Run
	// is over (run_inactive), not a kind without durable inputs.
	r.recv("run1", steer("2", "b"))
	require.Equal(t, CodeRunInactive, oneAck(r).ErrorCode, "new input after the executor closed")
	r.result(wc, WriteResult{Outcome: WriteWritten})
	w := oneAck(r)
	require.Truef(t, w.Written, "written: %+v", w)
	noCall[DurableWrite](r)
}

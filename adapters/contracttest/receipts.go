package contracttest

import (
	"context"
	"errors"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// CheckReceipts checks durable input on a held Turn: a nil SteerDurable is
// the written stage only, and the receipt reports application separately,
// never before the native side applied the input (Fixture.HoldSlowApply
// and Fixture.Applied); while application is pending the outcome stays
// unknown (the caller's deadline, neither applied nor inactive); a retry
// of a known input ID keeps its receipt, different content conflicts;
// after settlement every receipt is decided: applied only if the input
// really was, otherwise ErrTurnInactive or, when the native side cannot
// tell, the adapter's Fixture.UnknownOutcome; a settled Turn refuses new
// input.
func CheckReceipts(f agent.ExecutorFactory, fx Fixture) *Report {
	fx = fx.withDefaults()
	rep := newReport()
	arm := fx.HoldSlowApply
	if arm == nil {
		arm = fx.Hold
	}
	if arm == nil {
		rep.fail(ClauseFixture, "receipts", "Hold or HoldSlowApply is required to steer a running Turn")
		return rep
	}
	ex := newExecutor(rep, f, fx)
	if ex == nil {
		return rep
	}
	defer closeExecutor(rep, fx, ex)
	arm()
	r := start(rep, fx, ex, "receipts-1", fx.Input)
	if !r.started() {
		rep.fail(ClauseWriteVsApplied, r.runID, "held Turn did not start: %v", r.startErr)
		return rep
	}
	const one, two = "receipt text one", "receipt text two"
	rc, err := steer(fx, r, "receipt-1", one)
	rep.exercise(ClauseWriteVsApplied)
	if err != nil {
		rep.fail(ClauseWriteVsApplied, r.runID, "SteerDurable on a running Turn: %v", err)
		cancelTurn(rep, fx, r)
		settle(rep, fx, r)
		return rep
	}
	if fx.HoldSlowApply != nil {
		checkPendingReceipt(rep, fx, r, rc, one)
	}
	checkRetryIdentity(rep, fx, r, rc, one)
	checkAppliedEventually(rep, fx, r, rc, one)
	late, lateErr := steer(fx, r, "receipt-2", two)
	cancelTurn(rep, fx, r)
	settle(rep, fx, r)
	checkStream(rep, r, false)
	if lateErr == nil && late != nil {
		checkDecidedAfterSettlement(rep, fx, r, late, two)
	}
	if _, err := steer(fx, r, "receipt-3", "after settlement"); !errors.Is(err, agent.ErrTurnInactive) {
		rep.fail(ClauseSettlement, r.runID, "SteerDurable on a settled Turn = %v, want ErrTurnInactive", err)
	}
	return rep
}

// checkPendingReceipt: the native side applies after more than the
// window, so within it the receipt must stay unknown.
func checkPendingReceipt(rep *Report, fx Fixture, r *run, rc agent.AppliedReceipt, text string) {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Window)
	err := rc.AwaitApplied(ctx)
	cancel()
	rep.exercise(ClauseUnknownKept)
	switch {
	case err == nil && (fx.Applied == nil || !fx.Applied(text)):
		rep.fail(ClauseWriteVsApplied, r.runID, "receipt reported applied before the native side applied the input (written is not applied)")
	case errors.Is(err, agent.ErrTurnInactive):
		rep.fail(ClauseUnknownKept, r.runID, "receipt reported the running Turn inactive while application was pending")
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		rep.fail(ClauseUnknownKept, r.runID, "pending application answered %v, not the caller's deadline", err)
	}
}

func checkRetryIdentity(rep *Report, fx Fixture, r *run, rc agent.AppliedReceipt, text string) {
	again, err := steer(fx, r, "receipt-1", text)
	if err != nil {
		rep.fail(ClauseWriteVsApplied, r.runID, "retry of a known input ID with the same input: %v", err)
	} else if !sameReceipt(again, rc) {
		rep.fail(ClauseWriteVsApplied, r.runID, "retry of a known input ID returned a new receipt, not the original one")
	}
	if _, err := steer(fx, r, "receipt-1", text+" changed"); !errors.Is(err, agent.ErrInputConflict) {
		rep.fail(ClauseWriteVsApplied, r.runID, "retry of a known input ID with other content = %v, want ErrInputConflict", err)
	}
}

func checkAppliedEventually(rep *Report, fx Fixture, r *run, rc agent.AppliedReceipt, text string) {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Timeout)
	err := rc.AwaitApplied(ctx)
	cancel()
	switch {
	case err != nil:
		rep.fail(ClauseWriteVsApplied, r.runID, "a written input on a running Turn was never applied: %v", err)
	case fx.Applied != nil && !fx.Applied(text):
		rep.fail(ClauseWriteVsApplied, r.runID, "receipt reported applied, but the native side never consumed the input")
	}
}

// checkDecidedAfterSettlement: settlement settles inputs, so the receipt
// is decided at once: applied only when the native side applied it.
func checkDecidedAfterSettlement(rep *Report, fx Fixture, r *run, rc agent.AppliedReceipt, text string) {
	ctx, cancel := context.WithTimeout(context.Background(), fx.Window)
	err := rc.AwaitApplied(ctx)
	cancel()
	rep.exercise(ClauseUnknownKept)
	applied := fx.Applied != nil && fx.Applied(text)
	switch {
	case err == nil && fx.Applied != nil && !applied:
		rep.fail(ClauseWriteVsApplied, r.runID, "receipt reported applied for an input the Turn settled without applying")
	case errors.Is(err, context.DeadlineExceeded):
		rep.fail(ClauseSettlement, r.runID, "receipt still undecided after the Turn settled")
	case err != nil && fx.UnknownOutcome != nil && errors.Is(err, fx.UnknownOutcome):
		// Decided as uncertain: neither applied nor inactive is claimed.
	case err != nil && !errors.Is(err, agent.ErrTurnInactive):
		rep.fail(ClauseUnknownKept, r.runID, "receipt after settlement = %v, want nil or ErrTurnInactive", err)
	case err != nil && applied:
		rep.fail(ClauseWriteVsApplied, r.runID, "receipt says inactive for an input the native side applied")
	}
}

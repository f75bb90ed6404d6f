package agent

import (
	"errors"
	"fmt"
)

// Errors of the adapter contract. Callers tell them apart with errors.Is.
// Every error an adapter returns for one of these conditions wraps the
// matching sentinel; the text added around it is a fixed, safe reason and
// never submitted content, credentials or raw native diagnostics.
var (
	// ErrUnsupportedOperation reports a designed refusal: the operation was
	// not attempted and had no native side effect. It never means that the
	// operation succeeded with an empty result.
	ErrUnsupportedOperation = errors.New("agent: unsupported operation")

	// ErrInvalidRequest reports a request that broke the contract's shape
	// rules (blank Run ID, nil output channel, invalid input). Nothing was
	// submitted.
	ErrInvalidRequest = errors.New("agent: invalid request")

	// ErrExecutorUnavailable is an explicit Start refusal: the Executor is
	// closed or retired and no input was submitted. It is the only Start
	// failure that permits a recovery attempt with a fresh Executor.
	ErrExecutorUnavailable = errors.New("agent: executor unavailable")

	// ErrExecutorBusy reports a StartTurn while the Executor's previous Turn
	// has not settled. No input was submitted.
	ErrExecutorBusy = errors.New("agent: executor busy")

	// ErrTurnInactive reports an operation on a Turn that has settled or
	// whose native work ended before the operation could apply.
	ErrTurnInactive = errors.New("agent: turn inactive")

	// ErrNotPending reports an unknown or expired interaction, call or
	// input identity. It is distinct from ErrUnsupportedOperation.
	ErrNotPending = errors.New("agent: not pending")

	// ErrInputConflict reports a retry of a known input ID with different
	// content. The original input keeps its identity and receipt.
	ErrInputConflict = errors.New("agent: input conflict")

	// ErrNotSettled reports that settlement was not confirmed before the
	// caller stopped waiting. Ownership and capacity stay with the caller.
	ErrNotSettled = errors.New("agent: settlement not confirmed")

	// ErrCloseFailed reports an Executor.Close that did not confirm the
	// release of native resources. The Executor keeps them; Close may be
	// retried serially.
	ErrCloseFailed = errors.New("agent: close not confirmed")

	// ErrInvalidSettlement reports a TurnSettlement that breaks its rules.
	ErrInvalidSettlement = errors.New("agent: invalid settlement")

	// ErrUndeclaredObservation reports a subagent observation (identity,
	// lifecycle, turn or item) from an adapter whose declaration does not
	// support subagent_observations. The Runtime drops it: it never reaches
	// Core.
	ErrUndeclaredObservation = errors.New("agent: subagent observation not declared")
)

// UnsupportedReason is a fixed, safe explanation of a designed refusal.
// Declare reasons as constants: a reason must never be built from
// submitted content, credentials or native diagnostics.
type UnsupportedReason string

// Unsupported returns an error wrapping ErrUnsupportedOperation with reason.
func Unsupported(reason UnsupportedReason) error {
	return fmt.Errorf("%w: %s", ErrUnsupportedOperation, string(reason))
}

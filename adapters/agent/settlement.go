package agent

import (
	"fmt"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// TurnSettlement is the confirmed end of a Turn.
type TurnSettlement struct {
	// Reusable confirms that the native owner can accept the next Turn.
	Reusable bool
	// Reason says why the Executor must retire; required exactly when
	// Reusable is false. After a non-reusable settlement the caller must
	// confirm Executor.Close before the Executor's slot is free.
	Reason string
}

// Reuse is the settlement of a Turn whose Executor stays healthy.
func Reuse() TurnSettlement { return TurnSettlement{Reusable: true} }

// Retire is the settlement of a Turn whose Executor must be closed.
func Retire(reason string) TurnSettlement { return TurnSettlement{Reason: reason} }

// Validate checks the Reusable/Reason pairing; it wraps ErrInvalidSettlement.
func (s TurnSettlement) Validate() error {
	blank := strings.TrimSpace(s.Reason) == ""
	if s.Reusable && !blank {
		return fmt.Errorf("%w: reusable settlement carries a retire reason", ErrInvalidSettlement)
	}
	if !s.Reusable && blank {
		return fmt.Errorf("%w: non-reusable settlement without a reason", ErrInvalidSettlement)
	}
	return nil
}

// CancellationOutcome is a snapshot of what was observed from a native
// execution. Members stay unset when not observed: a zero snapshot means
// nothing was observed, not that a cancel succeeded or is unsupported.
// Reading it never waits for settlement, and it stays readable after
// cancellation and settlement.
type CancellationOutcome struct {
	// NativeSessionID and NativeSessionType are the observed native
	// identity, empty when not observed.
	NativeSessionID   string
	NativeSessionType string
	// Usage is the last observed cumulative usage snapshot; nil is unknown.
	Usage *wire.Usage
	// Content is the output text observed so far.
	Content string
	// Completed is set when the native side reported its own completion.
	Completed bool
}

// Observed reports whether anything at all was observed.
func (o CancellationOutcome) Observed() bool {
	return o.NativeSessionID != "" || o.NativeSessionType != "" || o.Usage != nil ||
		o.Content != "" || o.Completed
}

// Done renders the snapshot as the continuity payload carried by a cancel
// receipt. An empty Done means nothing was observed.
func (o CancellationOutcome) Done() wire.Done {
	d := wire.Done{Content: o.Content}
	if o.Usage != nil {
		u := *o.Usage
		d.Usage = &u
	}
	if o.NativeSessionID != "" || o.NativeSessionType != "" {
		d.Metadata = &wire.DoneMetadata{
			AgentSessionID:   o.NativeSessionID,
			AgentSessionType: o.NativeSessionType,
		}
	}
	return d
}

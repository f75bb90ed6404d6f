package agent

import "context"

// InputReceipt is the AppliedReceipt of one durably steered input, settled
// once. An adapter keeps it beside its Turn state and calls Resolve under
// the lock that guards that state; AwaitApplied needs no lock.
type InputReceipt struct {
	text    string
	applied chan struct{}
	err     error // written before applied closes
	done    bool  // guarded by the owner's lock
}

// NewInputReceipt returns the open receipt of an input whose text is text
// (kept to tell a repeat from a conflict).
func NewInputReceipt(text string) *InputReceipt {
	return &InputReceipt{text: text, applied: make(chan struct{})}
}

// Text is the input's text.
func (r *InputReceipt) Text() string { return r.text }

// Resolve settles the receipt with err (nil: applied); later calls change
// nothing. The caller holds the owner's lock.
func (r *InputReceipt) Resolve(err error) {
	if r.done {
		return
	}
	r.done, r.err = true, err
	close(r.applied)
}

// AwaitApplied returns the settled outcome (nil once applied), or the
// context error while the outcome is open.
func (r *InputReceipt) AwaitApplied(ctx context.Context) error {
	select {
	case <-r.applied:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

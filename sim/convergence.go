package sim

// SetConvergenceLazy is SetConvergence for a predicate whose reason costs
// more to build than its verdict: f returns ok and a function building
// the reason of that very call. The kernel keeps only the latest one and
// calls it only when it needs the text (a liveness violation, the run's
// Result.Pending), so the function must render the state f saw, not the
// state at the time it is called. It replaces a SetConvergence predicate.
func (w *Kernel) SetConvergenceLazy(f func() (ok bool, pending func() string)) {
	w.converge, w.convergeLazy = nil, f
}

// convergenceSet reports whether a liveness predicate is set.
func (w *Kernel) convergenceSet() bool { return w.converge != nil || w.convergeLazy != nil }

// evalConvergence runs the liveness predicate and keeps its reason (built
// later, for a lazy predicate).
func (w *Kernel) evalConvergence() bool {
	if w.convergeLazy != nil {
		ok, pending := w.convergeLazy()
		w.pending, w.pendingFn = "", pending
		return ok
	}
	ok, pending := w.converge()
	w.pending, w.pendingFn = pending, nil
	return ok
}

// pendingText is the reason of the latest evaluation of the predicate.
func (w *Kernel) pendingText() string {
	if w.pendingFn != nil {
		w.pending, w.pendingFn = w.pendingFn(), nil
	}
	return w.pending
}

package campaign

import "github.com/turnstile-sim/turnstile/internal/invariant"

// assert checks this package's invariants (see internal/invariant):
// always on, it panics with a message naming the package.
const assert = invariant.Scope("campaign: assertion failed: ")

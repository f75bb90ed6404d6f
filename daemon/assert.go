package daemon

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/internal/invariant"
)

// assert checks this package's invariants (see internal/invariant):
// always on, it panics with a message naming the package.
const assert = invariant.Scope("daemon: assertion failed: ")

// panicf reports a violated invariant. Callers test the condition first,
// so the arguments are only boxed when the check fails.
func panicf(format string, args ...any) {
	panic("daemon: invariant violated: " + fmt.Sprintf(format, args...))
}

package core

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/internal/invariant"
)

// assert checks this package's invariants (see internal/invariant):
// always on, it panics with a message naming the package.
const assert = invariant.Scope("core: assertion failed: ")

// panicf reports a broken invariant. Invariant checks call it only on
// failure, so the formatting arguments cost nothing on the hot path.
func panicf(format string, args ...any) {
	panic(fmt.Sprintf("core: invariant broken: "+format, args...))
}

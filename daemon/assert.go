package daemon

import "fmt"

// assertf panics when cond is false. Assertions are always on: an
// impossible state is a bug, and continuing would corrupt ownership.
func assertf(cond bool, format string, args ...any) {
	if !cond {
		panic("daemon: assertion failed: " + fmt.Sprintf(format, args...))
	}
}

// panicf reports a violated invariant. Callers test the condition first,
// so the arguments are only boxed when the check fails.
func panicf(format string, args ...any) {
	panic("daemon: invariant violated: " + fmt.Sprintf(format, args...))
}

package core

import "fmt"

// assert panics when an impossible state is reached: a bug in the machine,
// never a reaction to bad input.
func assert(cond bool, format string, args ...any) {
	if !cond {
		panic(fmt.Sprintf("core: assertion failed: "+format, args...))
	}
}

// panicf reports a broken invariant. Invariant checks call it only on
// failure, so the formatting arguments cost nothing on the hot path.
func panicf(format string, args ...any) {
	panic(fmt.Sprintf("core: invariant broken: "+format, args...))
}

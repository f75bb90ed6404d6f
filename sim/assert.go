package sim

import "fmt"

// assert panics when an impossible kernel state is reached. Assertions are
// always on: a broken invariant inside the simulator is a bug, and a panic
// with the seed in hand is the cheapest way to find it.
func assert(ok bool, msg string) {
	if !ok {
		panic("sim: assertion failed: " + msg)
	}
}

// assertf is assert with a formatted message; the message is only built when
// the assertion fails (but the arguments are boxed on every call, so hot
// paths test and panic inline instead).
func assertf(ok bool, format string, args ...any) {
	if !ok {
		panic("sim: assertion failed: " + fmt.Sprintf(format, args...))
	}
}

package core

import "fmt"

// assert panics when an impossible state is reached: a bug in the machine,
// never a reaction to bad input.
func assert(cond bool, format string, args ...any) {
	if !cond {
		panic(fmt.Sprintf("core: assertion failed: "+format, args...))
	}
}

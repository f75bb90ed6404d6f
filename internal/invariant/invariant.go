package invariant

import "fmt"

// Scope is the prefix of every failure message of one package, for example
// "sim: assertion failed: ".
type Scope string

// That panics with the scope followed by the formatted message when ok is
// false.
func (s Scope) That(ok bool, format string, args ...any) {
	if !ok {
		s.Failf(format, args...)
	}
}

// Failf panics as That does when its condition is false. A hot path tests
// the condition itself and calls Failf only when it fails: the arguments
// of That are boxed (allocated) on every call, held or not.
func (s Scope) Failf(format string, args ...any) {
	panic(string(s) + fmt.Sprintf(format, args...))
}

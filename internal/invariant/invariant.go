package invariant

import "fmt"

// Scope is the prefix of every failure message of one package, for example
// "sim: assertion failed: ".
type Scope string

// That panics with the scope followed by the formatted message when ok is
// false.
func (s Scope) That(ok bool, format string, args ...any) {
	if !ok {
		panic(string(s) + fmt.Sprintf(format, args...))
	}
}

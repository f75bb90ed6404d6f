package adaptertest

import dmachine "github.com/turnstile-sim/turnstile/daemon"

// WithBugs plants daemon bugs so that tests can prove a checker fires.
func WithBugs(o Options, b dmachine.Bugs) Options {
	o.bugs = b
	return o
}

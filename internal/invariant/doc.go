// Package invariant is the one always-on assertion of the module: a broken
// invariant is a bug, never a reaction to bad input, and it panics with a
// message that names the package it broke in.
//
// Each package declares its scope once, as a constant named assert, and
// checks with it:
//
//	const assert = invariant.Scope("core: assertion failed: ")
//
//	assert.That(n <= max, "%d runs over the limit %d", n, max)
//
// The message is built only when the check fails, but the arguments are
// boxed on every call, so a hot path tests first and calls That with no
// arguments (or panics inline).
//
// The package obeys the machine rule of DESIGN.md §1 (no clock, goroutine,
// I/O or global state): the machine packages wire, core, daemon and sim
// import it.
package invariant

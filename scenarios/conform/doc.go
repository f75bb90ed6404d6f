// Package conform plays the wire scenarios against an implementation in
// its own process, in real time (`turnstile conform`;
// scenarios/README.md, "Conformance of another implementation", is the
// guide): RunRuntime serves the scripted Core of every scenario to a
// Runtime, RunCore plays the scripted Runtime against a Core. Each
// returns a Report: per scenario pass, fail (the first difference) or
// skip (the reason), and what could not be checked from outside. With
// Options.Settle the side under test runs in process in a
// testing/synctest bubble, in fake time, and every scenario plays: its
// tests play every file so against Core's and the daemon's production
// shells.
package conform

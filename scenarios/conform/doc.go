// Package conform plays the wire scenarios against an implementation
// running in its own process, in real time: RunRuntime serves the
// scripted Core of every scenario (bootstrap and WebSocket) to an
// external Runtime, RunCore plays the scripted Runtime of every scenario
// against an external Core. Each returns a Report: per scenario pass,
// fail (with the first differing frame or assertion) or skip (with the
// reason), and the assertions it could not make from outside, listed as
// not checked. `turnstile conform` is the command over it;
// scenarios/README.md ("Conformance of another implementation") is the
// guide for implementers. Like every runner, it applies the zero-work
// rule (scenarios.Work): a scenario that submitted Turns but in which no
// Run started fails, unless a core-state step asserts what became of them.
//
// Real time replaces the runners' fake time: `advance` and `silence`
// sleep on the real clock, so a scenario whose waits add up to more than
// Options.MaxWait is skipped ("needs fake time"); "the side sent nothing"
// means nothing arrived within Options.Quiet, and an expected frame may
// take up to Options.FrameTimeout. Harness steps reach an external
// Runtime only through the control channel (scenarios.ControlPath); a
// Runtime that does not open it has every scenario with harness steps
// skipped ("needs harness control"). With Options.Settle the side under
// test runs in process in a testing/synctest bubble, in fake time, and
// every scenario plays: its tests play every file so against Core's
// production shell (core/server, core/gateway, core/api; preparations
// through CoreTarget.Prepare) and the daemon's (daemon/runner, its
// transport, the controlled adapter on the control channel).
package conform

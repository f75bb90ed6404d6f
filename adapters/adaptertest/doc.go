// Package adaptertest runs a Harness adapter in the real daemon shell
// against a simulated Core, before any real Core or model is involved.
//
//	func TestAgainstSimulatedCore(t *testing.T) {
//		adaptertest.RunAgainstSimulatedCore(t, mykind.Declaration(), adaptertest.Options{})
//	}
//
// # What runs
//
// The author's declaration is installed by runner.Install exactly as the
// daemon program installs it, and daemon/runner with daemon/transport runs
// it. Core is core.Machine in its real loop (core/server) over an
// in-memory store, with the real gateway serving the Runtime routes. The
// two meet over in-memory net.Pipe connections inside a testing/synctest
// bubble, so timers run on virtual time and a run of minutes takes
// milliseconds. A relay on the daemon's connection shows every frame, in
// both directions, to the checkers and never changes one.
//
// A seeded workload creates Sessions and, step by step, submits Turns,
// steers (mostly the newest running Turn) and cancels them, replaces a
// Session Core can no longer run (its native identity was lost to a fault
// and the adapter declares no native_session_recovery), cuts the daemon's connection (it reconnects)
// and restarts Core over the same store (core.Restart recovers it). Then
// it waits for every Turn to end, shuts the daemon down and stops Core.
// Options.BeforeTurn lets the author's native fixture draw a behaviour per
// Turn (slow streams, slow applies, errors, retirement) from the same
// seeded source.
//
// # What is judged
//
// Only what the adapter shows: frames on the wire, the Turns it returned,
// its settlements, the receipts reporting application and its confirmed
// closes (seen through thin wrappers that forward every call unchanged).
// The campaign checkers of package sim/check that need nothing more judge
// the run: a Run becomes one native Turn, an input is applied once,
// accepted only after the adapter reported application, done and applied
// cancel only after settlement (and after the confirmed Close a
// Reusable=false settlement requires), documented codes only, and a
// shutdown report claims completeness only when the adapter holds nothing
// (the checker that needs the instant a machine stepped on a received
// frame, done_before_receipt, is left out: in a real shell that instant
// is not on the wire). This
// package adds: the heartbeat declares what was installed, no Run output
// after its done, every Turn ends, the shutdown completes and nothing
// stays owned. No checker calls daemon or core decision code.
//
// # Report and replay
//
// RunAgainstSimulatedCore logs the seed first and ends with what Core
// admitted (Sessions and Turns, those it refused, the Runs the adapter
// started, how the Turns ended with Core's failure codes) and one line per
// clause: exercised N times, passed, or failed with the first failing
// step (the workload step, what it did and when). A run that admitted no
// work is a failure, not a pass: a clause exercised zero times fails with
// the reason derived from what happened ("Core refused every Turn:
// capability `steering` not declared", "Core refused every Session: ...",
// "no steered input was reported applied ..."), unless
// Options.NotApplicable marks it with a reason, which the report prints.
// The simulated Core qualifies the kind with an open test profile unless
// Options.Policy holds the adapter against another. A failing seed replays
// with -adaptertest.seed=N (or Options.Seed): the workload, the faults and
// the daemon's reconnect jitter are drawn from it, so a run replays as far
// as the adapter itself is deterministic — an adapter with its own
// goroutines, clocks or native processes may interleave differently.
package adaptertest

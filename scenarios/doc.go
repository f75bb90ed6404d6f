// Package scenarios reads the wire scenarios of the Core–Runtime
// protocol: data files under scenarios/testdata, each defined once and
// played by every runner, on both sides (README.md in this directory is
// the format's reference for implementers in any language).
//
// A file is a sequence of datadriven directives, one per step: a frame
// that Core or the Runtime sends, connection events, fake time, the
// controlled Harness's behaviour and assertions on what each side owns.
// Parse returns the steps with their file:line positions; every parse
// error is an *Error naming the file and line. Placeholders ($name) stand
// for values a side mints: the Player renders the scripted peer's frames
// and matches the frames of the side under test, binding each of its
// placeholders to the first value it sends and requiring it afterwards.
//
// One Player plays a scenario on one side (Play, NewPlayer): it owns the
// step dispatch, the one-sided scenarios (only), placeholder binding and
// frame matching, the quiet checks (every frame a side sent is listed
// before its next step and at the end) and the failures, each named by
// the step's file:line. A runner is a Driver of one side: a CoreDriver
// or a RuntimeDriver says what each step does on its machine, shell or
// process, reporting through the Log it embeds. Player.Finish is the one
// place a check of a whole run goes (Report counts what was played).
//
// The drivers live below: scenarios/machine plays every file against
// core.Machine and daemon.Machine directly; scenarios/conform plays
// either side running in another process, in real time (turnstile
// conform), and its tests play every file in process, in fake time,
// against Core's real server, gateway and HTTP API and against the real
// daemon runner and transport with the controlled Harness adapter
// (scenarios/controlled). The steps only Core
// has are played once, by scenarios/coreapi, for every Core driver.
// Embedded holds the files for a binary that carries them.
package scenarios

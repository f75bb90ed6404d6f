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
// for values a side mints: Bindings renders the scripted peer's frames
// and matches the frames of the side under test, binding each of its
// placeholders to the first value it sends and requiring it afterwards.
//
// The runners live below: scenarios/machine plays every file against
// core.Machine and daemon.Machine directly; scenarios/coreside against
// Core's real gateway over a WebSocket; scenarios/runtimeside against the
// real daemon runner and transport with the controlled Harness adapter
// (scenarios/controlled); scenarios/conform plays either side running in
// another process, in real time (turnstile conform). Embedded holds the
// files for a binary that carries them.
package scenarios

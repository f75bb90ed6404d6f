// Package scenarios reads the wire scenarios of the Core–Runtime
// protocol (testdata; README.md in this directory is the format's
// reference) and plays them: Parse returns a file's steps with their
// file:line positions (every parse error is an *Error naming them), and
// one Player plays a scenario on one side through a Driver (a CoreDriver
// or a RuntimeDriver says what each step does on its machine, shell or
// process). The Player owns the step dispatch, only, placeholder binding
// and frame matching, the quiet checks and the failures; Finish is the
// one place a check of a whole run goes.
//
// The drivers live below: scenarios/machine (core.Machine and
// daemon.Machine directly) and scenarios/conform (either side in another
// process, or in process in its tests); scenarios/coreapi plays the steps
// only Core has for every Core driver. Embedded holds the files for a
// binary that carries them.
package scenarios

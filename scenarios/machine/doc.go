// Package machine is the machine runner of the wire scenarios: every file
// of scenarios/testdata is played against core.Machine (package
// coremachine, a scripted Runtime) and against daemon.Machine (package
// daemonmachine, a scripted Core and the controlled Harness). The two
// runners never see each other: each plays its machine against the
// file's frames of the other side. The transcript of both is checked with
// datadriven; `go test ./scenarios/machine -rewrite` regenerates it.
// Frame and state assertions fail the test whatever the transcript says.
package machine

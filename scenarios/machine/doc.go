// Package machine is the machine runner: it plays every scenario on
// core.Machine (coremachine) and on daemon.Machine (daemonmachine), each
// against the file's frames of the other side, and checks the transcript
// with datadriven (-rewrite regenerates it); assertions fail whatever the
// transcript says.
package machine

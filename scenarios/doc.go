// Package scenarios reads and plays the wire scenarios of the Core–Runtime
// protocol (README.md in this directory is the format's reference): Parse
// returns a file's steps (a parse error is an *Error naming its file:line)
// and a Player plays a scenario on one side through a Driver. The drivers
// live below, in scenarios/machine and scenarios/conform; scenarios/coreapi
// plays the steps only Core has for both.
package scenarios

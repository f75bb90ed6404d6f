//go:build race

package daemon_test

// raceEnabled trims the seed sweep under the race detector: the machine
// starts no goroutines, so many seeds add time and no coverage there.
const raceEnabled = true

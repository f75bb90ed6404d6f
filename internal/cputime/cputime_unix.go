//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Measured reports whether Process reads a real clock on this platform.
const Measured = true

// Process is the CPU time, user and system, the process has used so far,
// in all its threads (the garbage collector's included).
func Process() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic("cputime: getrusage: " + err.Error())
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

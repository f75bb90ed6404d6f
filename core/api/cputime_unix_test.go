//go:build unix

package api_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time, user and system, the process has used so
// far, in all its threads.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		panic("getrusage: " + err.Error())
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

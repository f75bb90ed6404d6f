//go:build !unix

package cputime

import "time"

// Measured reports whether Process reads a real clock on this platform.
const Measured = false

// Process is 0 here: the platform has no getrusage, and benchmarks leave
// their CPU metrics out when Measured is false.
func Process() time.Duration { return 0 }

//go:build !unix

package world

import "time"

// processCPU is unknown here; benchmarks then report no cpu-ns/seed.
func processCPU() time.Duration { return 0 }

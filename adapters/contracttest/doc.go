// Package contracttest checks a Harness adapter against the adapters/agent
// contract. Each Test function drives real Executors and Turns from a
// factory and returns one aggregated error listing every violation it found
// (nil when none), in the shape of testing/fstest.TestFS:
//
//	func TestSharedTextLifecycle(t *testing.T) {
//		synctest.Test(t, func(t *testing.T) {
//			if err := contracttest.TextLifecycle(factory, fixture); err != nil {
//				t.Fatal(err)
//			}
//		})
//	}
//
// The checks observe the output channel for a bounded window (Fixture.Window)
// to prove that something did not happen. Inside a testing/synctest bubble
// that window is virtual time and the observation is deterministic; run
// controlled fixtures there. Every reported problem wraps ErrViolation.
package contracttest

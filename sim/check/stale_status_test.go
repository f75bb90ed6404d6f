package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

func stStatus(handle string, rev uint64, state string) wire.PreparationStatus {
	return wire.PreparationStatus{ExecutorID: "e1", Handle: handle, Revision: rev, State: state}
}

func TestStatusStreamAppliedReactionsAreClean(t *testing.T) {
	l := NewLedger()
	l.StatusStepped(1, "c1", "p1", stStatus("h1", 1, wire.StatePreparing), "")
	l.StatusStepped(2, "c1", "p1", stStatus("h1", 2, wire.StateReady), "sent execution_start and wrote turn t-1")
	// ignored, and Core did nothing: clean
	l.StatusStepped(3, "c1", "p1", stStatus("h1", 2, wire.StateReady), "")
	l.StatusStepped(4, "c1", "p1", stStatus("h1", 1, wire.StatePreparing), "")
	l.StatusStepped(5, "c1", "p1", stStatus("h9", 3, wire.StateExpired), "")
	l.StatusStepped(6, "c1", "p1", wire.PreparationStatus{State: wire.StateRejected, ErrorCode: "x"}, "wrote turn t-1")
	l.StatusStepped(7, "c1", "p1", stStatus("h1", 3, wire.StateStarted), "wrote turn t-1")
	// the same request ID on another connection is another stream
	l.StatusStepped(8, "c2", "p1", stStatus("h5", 1, wire.StateReady), "sent execution_start")
	only(t, l, "", "")
}

func TestStatusStreamReactionToIgnoredStatusIsCaught(t *testing.T) {
	cases := map[string]struct {
		st   wire.PreparationStatus
		want string
	}{
		"duplicate":                  {stStatus("h1", 2, wire.StateReady), "revision 2 of handle h1 after revision 2"},
		"same revision, other state": {stStatus("h1", 2, wire.StateFailed), "revision 2 of handle h1 after revision 2"},
		"stale":                      {stStatus("h1", 1, wire.StateFailed), "revision 1 of handle h1 after revision 2"},
		"foreign":                    {stStatus("h2", 7, wire.StateExpired), "status of handle h2 on the stream of handle h1"},
		"no handle":                  {stStatus("", 3, wire.StateReady), "without handle or revision"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			l := NewLedger()
			l.StatusStepped(1, "c1", "p1", stStatus("h1", 1, wire.StatePreparing), "")
			l.StatusStepped(2, "c1", "p1", stStatus("h1", 2, wire.StateReady), "sent execution_start")
			l.StatusStepped(3, "c1", "p1", c.st, "sent execution_release")
			only(t, l, CheckStaleRevision, c.want)
		})
	}
}

func TestStatusStreamMarksSameRevisionInOtherState(t *testing.T) {
	l := NewLedger()
	l.StatusStepped(1, "c1", "p1", stStatus("h1", 1, wire.StateReady), "sent execution_start")
	l.StatusStepped(2, "c1", "p1", stStatus("h1", 1, wire.StateReady), "")
	if n := l.marks[MarkSameRevisionOtherState]; n != 0 {
		t.Fatalf("an exact duplicate marked %d times", n)
	}
	l.StatusStepped(3, "c1", "p1", stStatus("h1", 1, wire.StateExpired), "")
	if n := l.marks[MarkSameRevisionOtherState]; n != 1 {
		t.Fatalf("same revision in another state marked %d times, want 1", n)
	}
	only(t, l, "", "")
}

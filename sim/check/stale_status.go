package check

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: stale_revision_applied (rules.go; the seed: 每个 handle 的
// revision 决定 status 观测顺序), from what Core does in the step it
// receives a status, never from Core's own view of the stream.

type coreStream struct {
	handle   string
	revision uint64
	state    string // the state of the status that counted last
}

// StatusStepped records Core receiving st for request req on conn, a
// stream Core opened with its execution_prepare there, and what Core did
// in that step: reaction names the frames Core sent for req and any
// durable write ("" when none).
func (l *Ledger) StatusStepped(at int64, conn, req string, st wire.PreparationStatus, reaction string) {
	if st.State == wire.StateRejected {
		return // a refused operation: never a revision of the handle
	}
	k := pairKey(conn, req)
	s := l.daemon.streams[k]
	why := ""
	switch {
	case !preparationStates[st.State] || st.Handle == "" || st.Revision == 0:
		why = fmt.Sprintf("status %q without handle or revision", st.State)
	case s != nil && st.Handle != s.handle:
		why = fmt.Sprintf("status of handle %s on the stream of handle %s", st.Handle, s.handle)
	case s != nil && st.Revision <= s.revision:
		why = fmt.Sprintf("revision %d of handle %s after revision %d", st.Revision, st.Handle, s.revision)
	}
	if why == "" { // the stream's first handle, its revision counts
		made(&l.daemon.streams)[k] = &coreStream{handle: st.Handle, revision: st.Revision, state: st.State}
		return
	}
	if s != nil && st.Handle == s.handle && st.Revision == s.revision && st.State != s.state {
		l.reach(MarkSameRevisionOtherState)
	}
	if reaction != "" {
		l.violate(at, CheckStaleRevision, "Core acted on %s (%s) of request %s on conn %s, which it must ignore: %s",
			why, st.State, req, conn, reaction)
	}
}

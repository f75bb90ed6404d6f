package world

import (
	"bytes"

	"github.com/turnstile-sim/turnstile/wire"
)

// staleStatus is the mutating proxy's stale status: behind a
// preparation_status that a daemon sends Core, a copy of the same handle
// in another state at an earlier revision (as a stream replayed out of
// order by a broken middle would show it) or, half the time and always
// behind revision 1, at the same revision (a duplicate revision carrying
// other content). Core's stream rule must ignore both; the ledger judges
// what Core does in the step it receives it (check.StatusStepped).
func (p *mutatingProxy) staleStatus(b []byte) []byte {
	if p.to != coreID || !bytes.Contains(b, []byte(`"preparation_status"`)) {
		return nil
	}
	f, err := p.u.decode(b)
	if err != nil {
		return nil
	}
	st, ok := f.Payload.(wire.PreparationStatus)
	if !ok || st.State == wire.StateRejected || st.Handle == "" || st.Revision == 0 {
		return nil
	}
	if st.Revision >= 2 && p.r.IntN(2) == 0 {
		st.Revision = 1 + uint64(p.r.IntN(int(min(st.Revision-1, 1<<20))))
	}
	st.ErrorCode, st.RunID = "", ""
	switch p.r.IntN(4) {
	case 0:
		st.State, st.ErrorCode = wire.StateFailed, wire.PrepPreparationFailed
	case 1:
		st.State = wire.StateExpired
	case 2:
		st.State = wire.StateReleased
	default:
		st.State = wire.StateReady
	}
	return encodeFrame(f.ID, st)
}

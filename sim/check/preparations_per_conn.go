package check

import (
	"github.com/turnstile-sim/turnstile/wire"
)

// CheckPreparationsPerConn is rule preparations_per_connection (rules.go),
// counted from Core's own frames: a stream opens with the execution_prepare
// Core sends (or loses at once into a broken connection) and counts as
// closed at the earliest sign that Core may have closed it: a rejected or
// terminal status the gateway delivers (wire-reference §3.3: a non-rejected
// status only with the stream's first handle and a higher revision),
// Core's execution_release, or Core learning that the connection closed.
// Closing early can only undercount, so a count above the limit is Core's.
const CheckPreparationsPerConn = "preparations_per_connection"

// DocumentedPreparationsPerConn is the limit of open preparation streams
// per connection.
const DocumentedPreparationsPerConn = 64

// MarkPreparationsPerConnFull: Core had 64 preparation streams open on one
// connection.
const MarkPreparationsPerConnFull = Mark("preparations_per_conn_full")

// prepCount is one connection's open preparation streams by request ID
// (looked up, never ranged).
type prepCount struct {
	open map[string]*prepStream
	// releasing are streams Core released whose rejected or terminal
	// status has not reached it: closed for the limit, yet Core may count
	// one until that status (an idle read's profile does), which holds a
	// capacity gate's probe back (capGated).
	releasing map[string]*prepStream
}

// prepStream is what the gateway has delivered on one open stream.
type prepStream struct {
	handle string // the first handle seen on the stream
	rev    uint64 // the last revision delivered
}

// delivers reports whether the gateway delivers non-rejected status st on
// the stream, and notes it when it does.
func (s *prepStream) delivers(st wire.PreparationStatus) bool {
	if st.Handle == "" || st.Revision == 0 || s.handle != "" && st.Handle != s.handle || st.Revision <= s.rev {
		return false
	}
	s.handle, s.rev = st.Handle, st.Revision
	return true
}

func (l *Ledger) observePreparationsPerConn(ev WireEvent) {
	pc := made(&l.projection.prepsPerConn)
	switch {
	case ev.Kind == WireClosed && ev.To == CoreNode:
		delete(pc, ev.Conn) // the daemon or the network learning it first frees nothing at Core
		return
	// a frame Core sends into a broken connection is lost at once: Core
	// holds its preparation all the same
	case (ev.Kind == WireSent || ev.Kind == WireLost) && ev.From == CoreNode && ev.HasFrame():
	case ev.Kind == WireDelivered && ev.To == CoreNode && ev.HasFrame():
	default:
		return
	}
	c := entry(pc, ev.Conn)
	id := ev.Frame.ID
	switch p := ev.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		if ev.Kind == WireDelivered || ev.Forged || c.open[id] != nil {
			return
		}
		made(&c.open)[id] = &prepStream{}
		n := len(c.open)
		if n == DocumentedPreparationsPerConn {
			l.reach(MarkPreparationsPerConnFull)
		}
		if n >= DocumentedPreparationsPerConn {
			l.projection.prepsFullAt = ev.At
		}
		if n > DocumentedPreparationsPerConn {
			l.violate(ev.At, CheckPreparationsPerConn, "Core opened preparation %s on conn c%d with %d others open (the limit is %d)",
				id, ev.Conn, n-1, DocumentedPreparationsPerConn)
		}
	case wire.ExecutionRelease:
		if st := c.open[id]; st != nil && ev.Kind == WireSent {
			made(&c.releasing)[id] = st
		}
		delete(c.open, id)
	case wire.PreparationStatus:
		if ev.Kind != WireDelivered {
			return
		}
		for _, streams := range []map[string]*prepStream{c.open, c.releasing} {
			if st := streams[id]; st != nil && (p.State == wire.StateRejected || st.delivers(p) && terminalState(p.State)) {
				delete(streams, id)
			}
		}
	}
}

// prepsCoreCrashed: Core's preparation streams die with it, and it learns
// no close of the connections it had.
func (l *Ledger) prepsCoreCrashed() { clear(l.projection.prepsPerConn) }

// prepStreamsFullSince reports whether some connection held as many
// preparation streams as Core may open on one at an instant since at.
// From then on Core's queued Turns, retries included, wait for a stream
// to free, in an order the wire does not show (Core also counts streams
// the wire cannot: exports, and refused prepares until their Turn is
// taken again), so no retry is judged late.
func (l *Ledger) prepStreamsFullSince(at int64) bool {
	if f := l.projection.prepsFullAt; f > 0 && f >= at {
		return true // on a connection that may have ended since
	}
	for _, c := range l.projection.prepsPerConn { //tidy:sorted any-match only
		if len(c.open) >= DocumentedPreparationsPerConn {
			return true
		}
	}
	return false
}

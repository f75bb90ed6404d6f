package check

import (
	"github.com/turnstile-sim/turnstile/wire"
)

// CheckPreparationsPerConn is rule preparations_per_connection (Rules),
// counted from Core's own
// frames on the wire: a stream opens with the execution_prepare Core
// sends (or loses at once into a broken connection); it is counted closed
// at the earliest sign that Core may have closed it — a status of the
// request in a terminal state (started, released, expired, failed) or
// rejected reaching Core, Core sending execution_release for the request,
// or Core learning that the connection closed (the daemon learning it, or
// the network breaking it, frees nothing at Core). A terminal status the
// gateway ignores is no such sign (wire-reference §3.3: a non-rejected
// status is delivered only with a non-empty handle equal to the first
// handle seen on the stream and a revision above the last delivered one),
// forged or not. Closing early can only undercount, so a count above the
// limit is Core's.
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
	open   map[string]*prepStream
	n      int
	fullAt int64 // the last instant n reached the limit; 0: never
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
	pc := l.projection.prepsPerConn
	switch ev.Kind {
	case WireClosed:
		// Core holds a connection's streams until it learns the
		// connection closed: the daemon learning it first, or the network
		// breaking it, frees none of them
		if ev.To == CoreNode {
			delete(pc, ev.Conn)
		}
		return
	case WireSent, WireLost:
		// a frame Core sends into a broken connection is lost at once,
		// never sent: Core holds its preparation all the same
		if ev.From != CoreNode || !ev.HasFrame() {
			return
		}
	case WireDelivered:
		if ev.To != CoreNode || !ev.HasFrame() {
			return
		}
	default:
		return
	}
	c := pc[ev.Conn]
	if c == nil {
		c = &prepCount{open: map[string]*prepStream{}}
		pc[ev.Conn] = c
	}
	id := ev.Frame.ID
	switch p := ev.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		if ev.Kind == WireDelivered || ev.Forged || c.open[id] != nil {
			return
		}
		c.open[id] = &prepStream{}
		c.n++
		if c.n == DocumentedPreparationsPerConn {
			l.reach(MarkPreparationsPerConnFull)
		}
		if c.n >= DocumentedPreparationsPerConn {
			c.fullAt = ev.At
			l.projection.prepsFullAt = ev.At
		}
		if c.n > DocumentedPreparationsPerConn {
			l.violate(ev.At, CheckPreparationsPerConn, "Core opened preparation %s on conn c%d with %d others open (the limit is %d)",
				id, ev.Conn, c.n-1, DocumentedPreparationsPerConn)
		}
	case wire.ExecutionRelease:
		l.closePrepStream(c, id)
	case wire.PreparationStatus:
		st := c.open[id]
		if ev.Kind != WireDelivered || st == nil {
			return
		}
		if p.State == wire.StateRejected || st.delivers(p) && closesStream(p.State) {
			l.closePrepStream(c, id)
		}
	}
}

// prepsCoreCrashed: Core's preparation streams die with it, and it learns
// no close of the connections it had.
func (l *Ledger) prepsCoreCrashed() { clear(l.projection.prepsPerConn) }

func (l *Ledger) closePrepStream(c *prepCount, id string) {
	if c.open[id] != nil {
		delete(c.open, id)
		c.n--
	}
}

// closesStream: the states after which Core may close a preparation
// stream.
func closesStream(state string) bool {
	switch state {
	case wire.StateStarted, wire.StateReleased, wire.StateExpired, wire.StateFailed, wire.StateRejected:
		return true
	}
	return false
}

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
		if c.n >= DocumentedPreparationsPerConn || c.fullAt > 0 && c.fullAt >= at {
			return true
		}
	}
	return false
}

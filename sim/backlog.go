package sim

import "time"

// Backlog is how a frame written now on one end of a connection would
// leave it, as the sending process's transport experiences it: held while
// the direction is stalled (the write blocks until the stall ends), and
// otherwise delayed by Delay beyond the
// connection's base latency (a slow link, or frames queued ahead of it).
// A shell uses it to honour a write budget the way a blocking socket write
// with a deadline would.
type Backlog struct {
	Held  bool
	Delay time.Duration
}

// Backlog reports the backlog of the direction leaving node id on conn.
// The zero value is returned when id holds no open end of conn.
func (w *Kernel) Backlog(id NodeID, conn ConnID) Backlog {
	s := w.slot(id)
	if s == nil {
		return Backlog{}
	}
	c, e, ok := w.net.endOf(s, conn)
	if !ok || c.ends[e].closed || c.broken {
		return Backlog{}
	}
	d := &c.ends[e]
	if d.stalled {
		return Backlog{Held: true}
	}
	base := w.now + c.latency
	at := max(base+d.extra, d.lastAt)
	return Backlog{Delay: time.Duration(at - base)}
}

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

// FrameBacklog reports how far the write of frame, a frame node id sent
// on conn, still is from done: Held while a stall keeps it on the sending
// side; otherwise Delay is how much later than a frame written now on a
// free link it reaches the peer (zero once it is delivered, or no longer
// in flight). Frames are known by the identity of their bytes: pass the
// slice handed to Send. The scan is linear in the frames in flight; a
// shell calls it only when a write budget runs out.
func (w *Kernel) FrameBacklog(id NodeID, conn ConnID, frame []byte) Backlog {
	s := w.slot(id)
	if s == nil || len(frame) == 0 {
		return Backlog{}
	}
	c, e, ok := w.net.endOf(s, conn)
	if !ok || c.broken {
		return Backlog{}
	}
	key := &frame[0]
	for _, h := range c.ends[e].held {
		if !h.close && len(h.frame) > 0 && &h.frame[0] == key {
			return Backlog{Held: true}
		}
	}
	var last int64 = -1
	for _, k := range w.q.keys {
		it := &w.q.slots[k.slot]
		if it.kind == itemFrame && it.conn == c && int(it.dir) == e && len(it.frame) > 0 && &it.frame[0] == key {
			last = max(last, it.at)
		}
	}
	if base := w.now + c.latency; last > base {
		return Backlog{Delay: time.Duration(last - base)}
	}
	return Backlog{}
}

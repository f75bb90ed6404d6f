package sim

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// FrameBytesMax is the largest frame a simulated connection carries, as on
// the real WebSocket transport. A larger frame closes the connection.
const FrameBytesMax = 4 << 20

// connsMax bounds the number of live connections.
const connsMax = 1 << 16

// Network reasons seen by nodes in ConnClosed and DialFailed.
const (
	ReasonLost        = "connection lost"
	ReasonRefused     = "connection refused"
	ReasonReset       = "connection reset before open"
	ReasonUnknownPeer = "no such host"
	ReasonTooBig      = "message too big"
	// ReasonCrashed is the reason taps give for the ends a crashed node
	// held: its process is gone, and its sockets with it.
	ReasonCrashed = "process crashed"
)

// NetworkConfig holds the network parameters of a run, in nanoseconds; the
// swarm draws them from the seed and the schedule records them (as duration
// strings, see schedule_json.go).
type NetworkConfig struct {
	LatencyMin int64 // one-way, drawn per connection
	LatencyMax int64
	DetectMax  int64 // extra delay before an end learns of a break
}

type held struct {
	frame  []byte
	close  bool
	forged bool // put on the wire by a proxy, not by the end's node
	reason string
	// deadline, when not zero, is the instant a best-effort frame
	// (Send.Budget) must have left the sender by; later it is dropped.
	deadline int64
}

// ReasonBudget is the reason of a best-effort frame dropped because it
// could not leave within its Send.Budget.
const ReasonBudget = "best-effort budget ran out before the frame could leave"

// connEnd is one end of a connection plus the direction leaving it.
type connEnd struct {
	node    int32
	inc     uint32
	opened  bool // the node has seen ConnOpened
	closed  bool // the node closed it, learned it closed, or crashed
	lastAt  int64
	stalled bool
	held    []held
	extra   int64 // slowdown added to every frame leaving this end
	// stallUntil is the latest end of the stalls of this direction: a stall
	// ending earlier leaves the direction stalled.
	stallUntil int64
	// slows are the active slowdowns of this direction; extra is the largest.
	slows []slowWindow
	// proxy, when set, rewrites every frame the end's node sends (see
	// Kernel.SetProxy); nil on the default path.
	proxy Proxy
}

// slowWindow is one active slowdown: extra latency until a virtual instant.
type slowWindow struct {
	until, extra int64
}

type conn struct {
	id      ConnID
	tag     string
	query   string
	latency int64
	broken  bool
	ends    [2]connEnd
}

func (c *conn) done() bool { return c.ends[0].closed && c.ends[1].closed }

// network is the simulated transport. conns lists live connections in ID
// order (new IDs are appended), which is the order faults pick from.
type network struct {
	w      *Kernel
	cfg    NetworkConfig
	rng    *rand.Rand
	conns  []*conn
	byID   map[ConnID]*conn
	nextID ConnID
	refuse map[NodeID]int64 // dial refusal windows: node -> until
}

func newNetwork(w *Kernel) network {
	return network{w: w, rng: w.Rand("network"), byID: map[ConnID]*conn{},
		refuse: map[NodeID]int64{}}
}

func (n *network) note(parts ...string) {
	b := n.w.tr.begin(n.w.now, kernelName, "!!")
	for i, p := range parts {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, p...)
	}
	n.w.tr.end(b)
}

func (n *network) dial(s *slot, d Dial) {
	w := n.w
	lat := durationIn(n.rng, n.cfg.LatencyMin, n.cfg.LatencyMax)
	reason := ""
	t := w.slot(d.Peer)
	switch {
	case t == nil || t == s:
		reason = ReasonUnknownPeer
	case !t.up:
		reason = ReasonRefused
	case n.refuse[d.Peer] > w.now:
		reason = ReasonRefused
		w.stats.DialsRefused++
	}
	if reason != "" {
		w.q.push(item{at: w.now + 2*lat, kind: itemDialFailed, node: s.index, inc: s.inc,
			ev: DialFailed{Peer: d.Peer, Tag: d.Tag, Reason: reason}})
		return
	}
	assert.That(len(n.conns) < connsMax, "too many live connections")
	n.nextID++
	c := &conn{id: n.nextID, tag: d.Tag, query: d.Query, latency: lat}
	c.ends[0] = connEnd{node: s.index, inc: s.inc, lastAt: w.now + lat}
	c.ends[1] = connEnd{node: t.index, inc: t.inc, lastAt: w.now + 2*lat}
	n.conns = append(n.conns, c)
	n.byID[c.id] = c
	w.q.push(item{at: w.now + lat, kind: itemOpened, conn: c, dir: 1})
	w.q.push(item{at: w.now + 2*lat, kind: itemOpened, conn: c, dir: 0})
}

// endOf returns which end of conn id node s holds.
func (n *network) endOf(s *slot, id ConnID) (*conn, int, bool) {
	c := n.byID[id]
	if c == nil {
		return nil, 0, false
	}
	for e := 0; e < 2; e++ {
		if c.ends[e].node == s.index && c.ends[e].inc == s.inc {
			return c, e, true
		}
	}
	return nil, 0, false
}

func (n *network) send(s *slot, m Send) {
	c, e, ok := n.endOf(s, m.Conn)
	switch {
	case !ok:
		n.note("drop send", string(appendConn(nil, m.Conn)), "(not an end of "+string(s.id)+")")
	case c.ends[e].closed:
		n.note("drop send", string(appendConn(nil, m.Conn)), "(closed end)")
	case c.broken:
		n.w.stats.FramesLost++
		n.note("lost send", string(appendConn(nil, m.Conn)), "(broken)")
		n.tap(TapLost, c, e, m.Frame, "broken")
	case c.ends[e].proxy != nil:
		n.tap(TapSent, c, e, m.Frame, "")
		n.proxied(c, e, m.Frame, deadlineOf(n.w.now, m))
	default:
		n.tap(TapSent, c, e, m.Frame, "")
		n.push(c, e, held{frame: m.Frame, deadline: deadlineOf(n.w.now, m)})
	}
}

// deadlineOf is the instant by which best-effort m must leave (0: none).
func deadlineOf(now int64, m Send) int64 {
	if m.Budget <= 0 {
		return 0
	}
	return now + int64(m.Budget)
}

// push moves one frame or close notice along the direction leaving end e.
func (n *network) push(c *conn, e int, h held) {
	d := &c.ends[e]
	if d.stalled {
		d.held = append(d.held, h)
		return
	}
	at := max(n.w.now+c.latency+d.extra, d.lastAt)
	if h.deadline != 0 && at-c.latency >= h.deadline {
		// a best-effort write still queued when its budget ran out
		n.w.stats.FramesDropped++
		n.note("dropped", n.direction(c, e), "len="+strconv.Itoa(len(h.frame)), "(best-effort budget)")
		n.tapFrame(TapDropped, c, e, h.frame, ReasonBudget, h.forged)
		return
	}
	d.lastAt = at
	if h.close {
		n.w.q.push(item{at: at, kind: itemClosed, conn: c, dir: uint8(1 - e), reason: h.reason})
		return
	}
	n.w.q.push(item{at: at, kind: itemFrame, conn: c, dir: uint8(e), frame: h.frame, forged: h.forged})
}

func (n *network) close(s *slot, m Close) {
	c, e, ok := n.endOf(s, m.Conn)
	if !ok || c.ends[e].closed {
		n.note("drop close", string(appendConn(nil, m.Conn)), "(not open at "+string(s.id)+")")
		return
	}
	c.ends[e].closed = true
	n.tapLocalClose(c, e, m.Reason)
	if !c.broken {
		n.push(c, e, held{close: true, reason: m.Reason})
	}
	n.reap(c)
}

// arrive delivers a frame popped from the queue.
func (n *network) arrive(it item) {
	c, r := it.conn, 1-int(it.dir)
	w := n.w
	if c.broken || c.ends[r].closed {
		w.stats.FramesLost++
		n.note("lost frame", string(appendConn(nil, c.id)), "len="+strconv.Itoa(len(it.frame)))
		n.tapFrame(TapLost, c, int(it.dir), it.frame, "in flight", it.forged)
		return
	}
	s := w.slots[c.ends[r].node]
	if len(it.frame) > FrameBytesMax {
		w.stats.FramesTooBig++
		reason := ReasonTooBig + " (" + strconv.Itoa(len(it.frame)) + " bytes > " +
			strconv.Itoa(FrameBytesMax) + ")"
		n.tapFrame(TapLost, c, int(it.dir), it.frame, reason, it.forged)
		n.tap(TapClosed, c, int(it.dir), nil, reason) // the receiver learns at once
		c.broken = true
		c.ends[r].closed = true
		// the sender learns one latency later
		w.q.push(item{at: w.now + c.latency, kind: itemClosed, conn: c, dir: it.dir, reason: reason})
		w.deliver(s, ConnClosed{Conn: c.id, Reason: reason})
		n.reap(c)
		return
	}
	w.stats.FramesDelivered++
	n.tapFrame(TapDelivered, c, int(it.dir), it.frame, "", it.forged)
	w.deliver(s, Delivered{Conn: c.id, Frame: it.frame})
}

func (n *network) opened(it item) {
	c, e := it.conn, int(it.dir)
	end := &c.ends[e]
	if end.closed || c.broken {
		return
	}
	end.opened = true
	n.tap(TapOpened, c, 1-e, nil, "")
	peer := n.w.slots[c.ends[1-e].node].id
	n.w.deliver(n.w.slots[end.node], ConnOpened{Conn: c.id, Peer: peer, Dialer: e == 0, Tag: tagFor(c, e), Query: c.query})
}

func tagFor(c *conn, e int) string {
	if e == 0 {
		return c.tag
	}
	return ""
}

func (n *network) closed(it item) {
	c, e := it.conn, int(it.dir)
	end := &c.ends[e]
	if end.closed {
		return
	}
	end.closed = true
	n.reap(c)
	s := n.w.slots[end.node]
	if !s.up || s.inc != end.inc {
		return
	}
	if !end.opened {
		if e == 0 {
			peer := n.w.slots[c.ends[1].node].id
			n.w.deliver(s, DialFailed{Peer: peer, Tag: c.tag, Reason: ReasonReset})
		}
		return
	}
	n.tap(TapClosed, c, 1-e, nil, it.reason)
	n.w.deliver(s, ConnClosed{Conn: c.id, Reason: it.reason})
}

// breakConn loses every frame in flight; each open end learns at its own
// time, one latency plus a seeded detection delay later.
func (n *network) breakConn(c *conn, reason string) {
	if c.broken {
		return
	}
	c.broken = true
	for e := 0; e < 2; e++ {
		d := &c.ends[e]
		for _, h := range d.held {
			if !h.close {
				n.w.stats.FramesLost++
				n.tapFrame(TapLost, c, e, h.frame, reason, h.forged)
			}
		}
		d.held, d.stalled, d.stallUntil = nil, false, 0
		if d.closed {
			continue
		}
		at := n.w.now + c.latency + durationIn(n.rng, 0, n.cfg.DetectMax)
		n.w.q.push(item{at: at, kind: itemClosed, conn: c, dir: uint8(e), reason: reason})
	}
}

// crash closes every end held by s at once and breaks those connections.
func (n *network) crash(s *slot) {
	for _, c := range n.conns {
		for e := 0; e < 2; e++ {
			if c.ends[e].node == s.index && !c.ends[e].closed {
				c.ends[e].closed = true
				n.tapLocalClose(c, e, ReasonCrashed)
				n.breakConn(c, ReasonLost)
			}
		}
	}
	n.reapAll()
}

func (n *network) reap(c *conn) {
	if c.done() {
		n.reapAll()
	}
}

// reapAll drops finished connections, keeping ID order.
func (n *network) reapAll() {
	kept := n.conns[:0]
	for _, c := range n.conns {
		if c.done() {
			delete(n.byID, c.id)
			continue
		}
		kept = append(kept, c)
	}
	clear(n.conns[len(kept):])
	n.conns = kept
}

// open returns the connections both ends have seen open and that are not
// broken or closing, in ID order.
func (n *network) open() []*conn {
	var out []*conn
	for _, c := range n.conns {
		if c.isOpen() {
			out = append(out, c)
		}
	}
	return out
}

// isOpen: both ends have seen c open, and it is neither broken nor closing.
func (c *conn) isOpen() bool {
	return !c.broken && c.ends[0].opened && c.ends[1].opened && !c.ends[0].closed && !c.ends[1].closed
}

// stall holds the direction leaving end e until at least until.
func (n *network) stall(c *conn, e int, until int64) {
	d := &c.ends[e]
	d.stalled = true
	d.stallUntil = max(d.stallUntil, until)
}

// stallEnd ends one stall of the direction leaving end e: the held frames
// are released in order unless another stall of it is still active. It
// reports whether the direction is still stalled.
func (n *network) stallEnd(c *conn, e int) bool {
	d := &c.ends[e]
	if d.stalled && d.stallUntil > n.w.now {
		return true
	}
	n.release(c, e)
	return false
}

// slow adds extra latency to the direction leaving end e until until; the
// direction's latency is the largest extra of its active slowdowns.
func (n *network) slow(c *conn, e int, until, extra int64) {
	d := &c.ends[e]
	d.slows = append(d.slows, slowWindow{until: until, extra: extra})
	d.extra = max(d.extra, extra)
}

// slowEnd drops the slowdowns of the direction leaving end e that have
// ended and returns the extra latency still in force.
func (n *network) slowEnd(c *conn, e int) int64 {
	d := &c.ends[e]
	kept := d.slows[:0]
	d.extra = 0
	for _, s := range d.slows {
		if s.until > n.w.now {
			kept = append(kept, s)
			d.extra = max(d.extra, s.extra)
		}
	}
	clear(d.slows[len(kept):])
	d.slows = kept
	return d.extra
}

// release ends a stall of the direction leaving end e, sending held frames
// in order.
func (n *network) release(c *conn, e int) {
	d := &c.ends[e]
	if !d.stalled {
		return
	}
	d.stalled, d.stallUntil = false, 0
	pending := d.held
	d.held = nil
	for _, h := range pending {
		n.push(c, e, h)
	}
}

// direction renders the direction leaving end e as "c1 a->b".
func (n *network) direction(c *conn, e int) string {
	from, to := n.w.slots[c.ends[e].node].id, n.w.slots[c.ends[1-e].node].id
	return string(appendConn(nil, c.id)) + " " + string(from) + "->" + string(to)
}

// heal ends every stall, slowdown and dial-refusal window. With never set,
// it instead makes every fault active now permanent.
func (n *network) heal(never bool) {
	if never {
		for _, s := range n.w.slots {
			if n.refuse[s.id] > n.w.now {
				n.refuse[s.id] = math.MaxInt64
			}
		}
		return
	}
	for _, c := range n.conns {
		for e := 0; e < 2; e++ {
			d := &c.ends[e]
			d.extra, d.slows, d.stallUntil = 0, nil, 0
			n.release(c, e)
		}
	}
	clear(n.refuse)
}

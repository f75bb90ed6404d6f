package sim

import (
	"strconv"
	"time"
)

// A proxy is a hostile middle on one direction of a connection: while it
// is installed, every frame the end's node sends passes through it, and
// it decides what crosses instead — the frame itself, nothing, copies,
// altered versions. Kernel.Forge puts a frame of the proxy's own making on
// a direction at any instant. Both keep the transport's guarantees that a
// WebSocket keeps: a direction stays in order (what the proxy returns is
// queued after everything already sent), and a frame over FrameBytesMax
// still closes the connection at the receiver. What a proxy does with its
// randomness is its own business; the kernel draws nothing for it, so a
// proxy seeded from its fault replays exactly.

// ProxyFrame is one frame a proxy lets cross. Forged is false only for the
// frame the node sent, passed on unchanged; every copy, replacement or
// alteration is forged, and taps report it so (TapEvent.Forged).
type ProxyFrame struct {
	Frame  []byte
	Forged bool
}

// Proxy rewrites one frame sent by the end it is installed on. It must not
// modify frame; it may return it (unforged) among its output.
type Proxy func(frame []byte) []ProxyFrame

// ConnInfo names an open connection and its two ends: Dialer dialled
// Acceptor.
type ConnInfo struct {
	ID               ConnID
	Dialer, Acceptor NodeID
}

// OpenConns lists the connections both ends have seen open and that are
// neither broken nor closing, in ID order (the order faults pick from).
func (w *Kernel) OpenConns() []ConnInfo {
	var out []ConnInfo
	for _, c := range w.net.open() {
		out = append(out, ConnInfo{ID: c.id, Dialer: w.slots[c.ends[0].node].id, Acceptor: w.slots[c.ends[1].node].id})
	}
	return out
}

// OpenConn is the entry of OpenConns for connection id, without listing
// the others; ok is false when OpenConns would not list it.
func (w *Kernel) OpenConn(id ConnID) (ConnInfo, bool) {
	c := w.net.byID[id]
	if c == nil || !c.isOpen() {
		return ConnInfo{}, false
	}
	return ConnInfo{ID: c.id, Dialer: w.slots[c.ends[0].node].id, Acceptor: w.slots[c.ends[1].node].id}, true
}

// endOfNode returns the live connection id and the end that node holds.
func (n *network) endOfNode(id ConnID, node NodeID) (*conn, int, bool) {
	c := n.byID[id]
	if c == nil {
		return nil, 0, false
	}
	for e := 0; e < 2; e++ {
		if n.w.slots[c.ends[e].node].id == node {
			return c, e, true
		}
	}
	return nil, 0, false
}

// SetProxy installs p on the direction leaving from's end of connection
// id, replacing any proxy there. It reports false when the connection is
// gone or from holds no end of it.
func (w *Kernel) SetProxy(id ConnID, from NodeID, p Proxy) bool {
	assert.That(p != nil, "SetProxy with a nil proxy")
	c, e, ok := w.net.endOfNode(id, from)
	if !ok {
		return false
	}
	c.ends[e].proxy = p
	return true
}

// ClearProxy removes the proxy of the direction leaving from's end of id,
// if any: frames cross untouched again.
func (w *Kernel) ClearProxy(id ConnID, from NodeID) {
	if c, e, ok := w.net.endOfNode(id, from); ok {
		c.ends[e].proxy = nil
	}
}

// Forge puts frame on the direction leaving from's end of connection id
// now, as a proxy in the middle would: queued after every frame already
// sent that way, tapped as sent and forged. It reports false (and forges
// nothing) when the connection is gone, broken, or that end is closed.
func (w *Kernel) Forge(id ConnID, from NodeID, frame []byte) bool {
	n := &w.net
	c, e, ok := n.endOfNode(id, from)
	if !ok || c.broken || c.ends[e].closed || len(frame) == 0 {
		return false
	}
	n.forge(c, e, frame)
	return true
}

func (n *network) forge(c *conn, e int, frame []byte) {
	n.w.stats.FramesForged++
	n.note("forged", n.direction(c, e), "len="+strconv.Itoa(len(frame)))
	n.tapFrame(TapSent, c, e, frame, "", true)
	n.push(c, e, held{frame: frame, forged: true})
}

// proxied passes a frame the node sent through the direction's proxy.
// A frame the proxy does not pass on is reported lost.
func (n *network) proxied(c *conn, e int, frame []byte, deadline int64) {
	passed := false
	for _, pf := range c.ends[e].proxy(frame) {
		if c.broken || c.ends[e].closed {
			break
		}
		if pf.Forged {
			n.forge(c, e, pf.Frame)
			continue
		}
		passed = true
		n.push(c, e, held{frame: pf.Frame, deadline: deadline})
	}
	if !passed {
		n.w.stats.FramesLost++
		n.tap(TapLost, c, e, frame, "dropped by a proxy")
	}
}

// Stall holds the frames the end of connection id that from holds sends
// for d, then releases them in order, as a stall fault does (a heal ends
// it early). A world uses it to delay one direction at the instant its
// scenario needs. It reports false when the connection is gone, broken,
// or from holds no end of it.
func (w *Kernel) Stall(id ConnID, from NodeID, d time.Duration) bool {
	n := &w.net
	c, e, ok := n.endOfNode(id, from)
	if !ok || c.broken || d <= 0 {
		return false
	}
	n.stall(c, e, w.now+int64(d))
	w.Note("stall " + n.direction(c, e) + " for " + d.String())
	w.After(d, "", func() {
		w.endFault("stall", n.direction(c, e), func() string { return stallEndNote(n.stallEnd(c, e)) })
	})
	return true
}

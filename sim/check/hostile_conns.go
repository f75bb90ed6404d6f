package check

import (
	"cmp"
	"slices"
	"strings"
)

// Checks: hostile_connection (rules.go), with hostile.go's probes that
// want a close or a kept connection; an older generation arriving late
// never displaces the newer.

// ReasonIncompatibleVersion is the documented refusal of an upgrade with
// another protocol version (§2.1).
const ReasonIncompatibleVersion = "incompatible_version"

type connEnds struct {
	opened, closed        map[string]bool // node -> learned open / closed or closed it
	closedBy, closeReason string          // the node that closed it itself first, and why
	claim                 string          // the device a rogue connection claims
	device                string          // the device, as Core sees it once it learned the connection open
}

type connRules struct {
	conns   map[uint64]*connEnds // connection IDs are never reused: kept after both ends closed
	pending []genCheck           // opens at Core, judged once Core stepped them
	newest  map[string]uint64    // device -> the highest connection Core kept open after stepping its open
}

type genCheck struct {
	at   int64
	conn uint64
}

// claim names the device a rogue connection claims; Core's open of it may
// already have been seen under the rogue's node ID.
func (r *connRules) claim(conn uint64, device string) {
	c := entry(made(&r.conns), conn)
	c.claim = device
	if c.device != "" {
		c.device = device
	}
}

// openAt reports whether node has learned conn open and not closed.
func (r *connRules) openAt(conn uint64, node string) bool {
	c := r.conns[conn]
	return c != nil && c.opened[node] && !c.closed[node]
}

func (l *Ledger) hostileConns(ev WireEvent) {
	r := &l.hostile.conns
	if len(r.pending) > 0 && ev.At > r.pending[0].at {
		l.judgeGenerations(ev.At)
	}
	switch ev.Kind {
	case WireOpened:
		c := entry(made(&r.conns), ev.Conn)
		made(&c.opened)[ev.To] = true
		if ev.To == CoreNode {
			c.device = cmp.Or(c.claim, ev.From)
			r.pending = append(r.pending, genCheck{at: ev.At, conn: ev.Conn})
		}
	case WireClosed:
		c := entry(made(&r.conns), ev.Conn)
		if c.closed[ev.To] {
			return
		}
		made(&c.closed)[ev.To] = true
		if ev.From == ev.To && c.closedBy == "" {
			c.closedBy, c.closeReason = ev.To, ev.Reason
		}
		if ev.From != ev.To {
			l.voidProbes(ev.Conn) // the connection is gone: no answer can come
		}
	}
}

// voidProbes drops the probes of a connection one end learned closed.
func (l *Ledger) voidProbes(conn uint64) {
	delete(l.hostile.stepOf, conn)
	l.hostile.probes = slices.DeleteFunc(l.hostile.probes, func(ps *probeState) bool { return ps.done || ps.p.Conn == conn })
}

// judgeGenerations applies the replacement rule to every open Core has
// stepped before instant now.
func (l *Ledger) judgeGenerations(now int64) {
	r := &l.hostile.conns
	kept := r.pending[:0]
	for _, g := range r.pending {
		if g.at >= now {
			kept = append(kept, g)
			continue
		}
		if l.failover.zombieConn(g.conn) {
			continue // the old Core process's (failover.go)
		}
		gc := r.conns[g.conn]
		var open []uint64
		for conn, c := range r.conns { //tidy:sorted sorted below
			// a zombie's connection is another Core process's (failover.go)
			if c.device == gc.device && r.openAt(conn, CoreNode) && !l.failover.zombieConn(conn) {
				open = append(open, conn)
			}
		}
		slices.Sort(open)
		if r.openAt(g.conn, CoreNode) {
			if n := r.newest[gc.device]; g.conn < n {
				l.violate(g.at, CheckHostileConnection, "Core accepted c%d of device %s after newer c%d: an older generation must be refused",
					g.conn, gc.device, n)
			}
			made(&r.newest)[gc.device] = max(r.newest[gc.device], g.conn)
		}
		switch {
		case len(open) > 1:
			l.violate(g.at, CheckHostileConnection, "Core keeps %d connections of device %s open (%s) after c%d opened",
				len(open), gc.device, connList(open), g.conn)
		case len(open) == 1 && open[0] < g.conn:
			if gc.closedBy != CoreNode || gc.closeReason != ReasonIncompatibleVersion {
				l.violate(g.at, CheckHostileConnection, "Core kept older connection c%d of device %s and refused newer c%d (%s)",
					open[0], gc.device, g.conn, gc.closeReason)
			}
		}
	}
	r.pending = kept
}

func connList(ids []uint64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = connKey(id)
	}
	return strings.Join(parts, " ")
}

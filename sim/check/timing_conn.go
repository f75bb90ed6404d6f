package check

import (
	"reflect"
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_connection_idle and timing_heartbeat_cadence (rules.go).
// Any inbound frame restarts the idle timeout; a reason for an early close
// is an undecodable frame, a newer connection of the device, the
// connection itself arriving stale, or hostile traffic. The heartbeat
// decides when it keeps a quiet connection up: Core receives it after a
// full idle timeout without any other inbound frame.

type timedConn struct {
	conn        uint64
	device      string
	opened      int64
	lastInbound int64
	lastData    int64 // last inbound frame other than a heartbeat
	badAt       int64 // last undecodable inbound frame; -1 none
	closed      bool
}

type hbWatch struct {
	conn     uint64
	device   string
	interval int64
	next     int64
	ended    bool
	// kinds is the declaration of the last heartbeat on the connection.
	kinds []wire.SupportedAgentKind
	seen  bool
}

type connState struct {
	core       []*timedConn // open (and some closed), in open order
	byConn     map[uint64]*timedConn
	lastOpenAt map[string]int64 // device → last connection Core learned open
	hb         []*hbWatch
	hbByConn   map[uint64]*hbWatch
	// the last instant hostile traffic touched each connection, and a
	// rogue connection (which may claim a real device) opened: Core may
	// close a connection then for a reason the hostile checks judge
	hostileAt   map[uint64]int64
	rogueOpenAt int64
}

func (l *Ledger) connOpened(ev WireEvent) {
	s := &l.timing.conns
	if ev.To == CoreNode {
		c := &timedConn{conn: ev.Conn, device: ev.From, opened: ev.At, lastInbound: ev.At, lastData: ev.At, badAt: -1}
		s.core = append(s.core, c)
		made(&s.byConn)[ev.Conn] = c
		made(&s.lastOpenAt)[ev.From] = ev.At
		return
	}
	if ev.From != CoreNode || ev.To == RogueNode {
		return // a rogue daemon keeps no heartbeat cadence
	}
	w := &hbWatch{conn: ev.Conn, device: ev.To, interval: l.timer(ev.To, TimerHeartbeat), next: ev.At}
	s.hb = append(s.hb, w)
	made(&s.hbByConn)[ev.Conn] = w
}

func (l *Ledger) coreInbound(ev WireEvent) {
	c := l.timing.conns.byConn[ev.Conn]
	if c == nil || c.closed {
		return
	}
	_, hb := ev.Frame.Payload.(wire.Heartbeat)
	switch {
	case ev.DecodeErr != nil:
		c.badAt, c.lastData = ev.At, ev.At
	case hb:
		if ev.At-c.lastData >= l.timer(CoreNode, TimerConnIdle) {
			l.decide(TimerHeartbeat)
			c.lastData = ev.At // one decision per quiet stretch
		}
	default:
		c.lastData = ev.At
	}
	c.lastInbound = ev.At
}

func (l *Ledger) connWatchEnded(ev WireEvent) {
	s := &l.timing.conns
	if w := s.hbByConn[ev.Conn]; w != nil {
		w.ended = true
	}
	c := s.byConn[ev.Conn]
	if c == nil || c.closed || ev.Kind != WireClosed || (ev.To != CoreNode && ev.From != CoreNode) {
		return
	}
	c.closed = true
	if ev.From != CoreNode || ev.To != CoreNode {
		return // the device's end closed it, or the network broke it
	}
	// Core closed it.
	deadline := c.lastInbound + l.timer(CoreNode, TimerConnIdle)
	switch {
	case ev.At == deadline:
		l.decide(TimerConnIdle)
	case ev.At > deadline:
		// reported by advanceConns
	case c.badAt == ev.At, c.opened == ev.At, s.lastOpenAt[c.device] == ev.At && c.opened != ev.At:
		// an invalid frame, a stale connection or its replacement
	case c.device == RogueNode, s.hostileAt[c.conn] == ev.At, s.rogueOpenAt == ev.At:
		// a rogue's connection, or hostile traffic: the hostile checks judge it
	default:
		l.violate(ev.At, CheckTimingConnIdle,
			"Core closed connection %d of %s at %s, %s after its last inbound frame: before the %s idle timeout and with no reason on the wire",
			c.conn, c.device, vtime(ev.At), time.Duration(ev.At-c.lastInbound), time.Duration(deadline-c.lastInbound))
	}
}

func (l *Ledger) heartbeatSent(ev WireEvent, hb wire.Heartbeat) {
	w := l.timing.conns.hbByConn[ev.Conn]
	if w == nil || w.ended {
		return
	}
	changed := w.seen && !reflect.DeepEqual(hb.SupportedAgentKinds, w.kinds)
	w.kinds, w.seen = hb.SupportedAgentKinds, true
	if changed && ev.At < w.next {
		return // a changed declaration is sent at once; the cadence goes on from the last periodic one
	}
	if ev.At < w.next {
		l.violate(ev.At, CheckTimingHeartbeat, "%s sent a heartbeat on connection %d at %s, before its cadence allowed (%s; next due %s)",
			w.device, w.conn, vtime(ev.At), time.Duration(w.interval), vtime(w.next))
	}
	w.next = ev.At + w.interval
}

// advanceConns reports a heartbeat not sent when due and an idle
// connection Core left open before now, and drops the watches that ended.
func (l *Ledger) advanceConns(now int64) {
	s := &l.timing.conns
	s.hb = slices.DeleteFunc(s.hb, func(w *hbWatch) bool {
		if !w.ended && w.next < now {
			w.ended = true
			l.violate(w.next, CheckTimingHeartbeat, "%s sent no heartbeat on open connection %d at %s (cadence %s)",
				w.device, w.conn, vtime(w.next), time.Duration(w.interval))
		}
		return w.ended
	})
	idle := l.timer(CoreNode, TimerConnIdle)
	s.core = slices.DeleteFunc(s.core, func(c *timedConn) bool {
		if !c.closed && c.device != RogueNode && c.lastInbound+idle < now {
			c.closed = true
			l.violate(c.lastInbound+idle, CheckTimingConnIdle,
				"connection %d of %s had no inbound frame since %s but Core did not close it at %s (%s idle timeout)",
				c.conn, c.device, vtime(c.lastInbound), vtime(c.lastInbound+idle), time.Duration(idle))
		}
		return c.closed
	})
}

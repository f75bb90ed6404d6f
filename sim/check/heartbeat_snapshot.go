package check

import (
	"errors"
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: heartbeat_snapshot (rules.go), judged on the wire.
const CheckHeartbeatSnapshot = "heartbeat_snapshot"

type heartbeatConn struct {
	device     string
	declared   bool  // a valid heartbeat reached Core on this connection
	invalidAt  int64 // when an invalid heartbeat reached Core; -1: none
	coreClosed bool  // Core closed the connection, or learned it closed
}

type heartbeatState struct {
	conns         map[uint64]*heartbeatConn
	awaitingClose []uint64 // connections an invalid heartbeat reached, not closed yet, in arrival order
}

func (l *Ledger) observeHeartbeats(ev WireEvent) {
	h := &l.heartbeat
	l.checkClosedAfterInvalid(ev.At)
	switch {
	case ev.Kind == WireClosed && ev.To == CoreNode:
		if c := h.conns[ev.Conn]; c != nil {
			c.coreClosed = true
		}
	case ev.Kind == WireDelivered && ev.To == CoreNode && ev.From != CoreNode:
		if !isHeartbeat(ev) {
			return
		}
		c := h.conns[ev.Conn]
		if c == nil {
			c = &heartbeatConn{device: ev.From, invalidAt: -1}
			made(&h.conns)[ev.Conn] = c
		}
		if ev.HasFrame() && validDeclaration(ev.Frame.Payload.(wire.Heartbeat)) {
			if c.invalidAt < 0 {
				c.declared = true
			}
			return
		}
		c.declared = false
		if c.invalidAt < 0 {
			c.invalidAt = ev.At
			h.awaitingClose = append(h.awaitingClose, ev.Conn)
		}
	case ev.Kind == WireSent && ev.From == CoreNode && len(ev.Raw) > 0:
		c := h.conns[ev.Conn]
		_, prepare := ev.Frame.Payload.(wire.ExecutionPrepare)
		switch {
		case c != nil && c.invalidAt >= 0:
			what := "an undecodable frame"
			if ev.HasFrame() && ev.Frame.Payload != nil {
				what = ev.Frame.Payload.MessageType()
			}
			l.violate(ev.At, CheckHeartbeatSnapshot, "Core sent %s to %s on conn %s after an invalid heartbeat at %s",
				what, c.device, connKey(ev.Conn), vtime(c.invalidAt))
		case ev.HasFrame() && prepare && (c == nil || !c.declared):
			l.violate(ev.At, CheckHeartbeatSnapshot, "Core sent execution_prepare %s to %s on conn %s before any valid heartbeat on it",
				ev.Frame.ID, ev.To, connKey(ev.Conn))
		}
	}
}

// checkClosedAfterInvalid: once virtual time moved past an invalid
// heartbeat's arrival, Core must have closed that connection.
func (l *Ledger) checkClosedAfterInvalid(now int64) {
	h := &l.heartbeat
	h.awaitingClose = slices.DeleteFunc(h.awaitingClose, func(id uint64) bool {
		c := h.conns[id]
		if !c.coreClosed && now > c.invalidAt {
			l.violate(now, CheckHeartbeatSnapshot, "Core kept conn %s of %s open after an invalid heartbeat at %s",
				connKey(id), c.device, vtime(c.invalidAt))
		}
		return c.coreClosed || now > c.invalidAt
	})
}

func isHeartbeat(ev WireEvent) bool {
	if ev.HasFrame() {
		_, ok := ev.Frame.Payload.(wire.Heartbeat)
		return ok
	}
	var de *wire.DecodeError
	return errors.As(ev.DecodeErr, &de) && de.Type == wire.TypeHeartbeat
}

// validDeclaration: the heartbeat names each kind once, none blank, each
// with a complete capability set; Core refuses any other whole.
func validDeclaration(hb wire.Heartbeat) bool {
	seen := map[string]bool{}
	for _, k := range hb.SupportedAgentKinds {
		if k.Kind == "" || seen[k.Kind] || k.Capabilities.Validate() != nil {
			return false
		}
		seen[k.Kind] = true
	}
	return true
}

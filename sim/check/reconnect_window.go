package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: reconnect_window (rules.go), from connections and heartbeats
// reaching Core and Core's durable Turn failures. A device of the pool
// (declared since Core last started) is reconnecting for the window after
// it last lost a connection at Core, or after Core started; a kind missing
// from its new declaration may be a restarted Runtime still discovering
// its Harnesses. A second of slack comes before the window's end. A
// failure in the step a ready status of the Session's preparation reached
// Core is the final check, against the selected connection alone: skipped.
const CheckReconnectWindow = "reconnect_window"

// ReconnectWindowOf is how long Core waits for a device of the pool to
// return (Core's policy).
const ReconnectWindowOf = 2 * time.Minute

type rwDevice struct {
	declared bool            // a valid heartbeat reached Core since it started
	served   map[string]bool // kinds declared available since Core started
	conn     uint64          // current connection at Core, 0: none
	hb       map[string]bool // kinds available in the current connection's last heartbeat; nil: none yet
	lost     int64           // Core last lost a connection of the device, or started
	undo     *rwDevice       // the state before conn opened, back if Core's shell refuses conn at once
}

type reconnectState struct {
	coreStart int64
	devices   map[string]*rwDevice
	connDev   map[uint64]string // connection → device
	prepSess  map[string]string // conn\x00request → Session of Core's execution_prepare
	readyAt   map[string]int64  // Session → last instant a ready status of its preparation reached Core
}

func (s *reconnectState) device(id string) *rwDevice {
	d := s.devices[id]
	if d == nil {
		d = &rwDevice{lost: s.coreStart}
		made(&s.devices)[id] = d
	}
	return d
}

// observeReconnect sees hostile traffic too: a rogue's connection
// claiming a device is that device's for Core (reconnectRogueOpened), a
// forged heartbeat reaching Core its declaration.
func (l *Ledger) observeReconnect(ev WireEvent) {
	s := &l.reconnect
	switch {
	case ev.Kind == WireOpened && ev.To == CoreNode && ev.From != RogueNode:
		l.reconnectOpened(ev.At, ev.Conn, ev.From)
	case ev.Kind == WireClosed && ev.To == CoreNode:
		// Core's reasons for a connection that never became the device's:
		// the shell's version refusal, the machine's stale generation
		refused := ev.From == CoreNode && (ev.Reason == "incompatible_version" || ev.Reason == "stale connection")
		if d := s.devices[s.connDev[ev.Conn]]; d != nil && d.conn == ev.Conn {
			if u := d.undo; u != nil && refused {
				d.conn, d.hb, d.lost = u.conn, u.hb, u.lost
			} else {
				d.conn, d.hb, d.lost = 0, nil, ev.At
			}
			d.undo = nil
		}
	case ev.Kind == WireSent && ev.From == CoreNode && ev.HasFrame():
		if p, ok := ev.Frame.Payload.(wire.ExecutionPrepare); ok {
			made(&s.prepSess)[connFrameKey(ev.Conn, ev.Frame.ID)] = p.SessionID
		}
	case ev.Kind == WireDelivered && ev.To == CoreNode && ev.HasFrame():
		switch p := ev.Frame.Payload.(type) {
		case wire.Heartbeat:
			l.reconnectHeartbeat(ev.Conn, p)
		case wire.PreparationStatus:
			if sess, ok := s.prepSess[connFrameKey(ev.Conn, ev.Frame.ID)]; ok && p.State == wire.StateReady {
				made(&s.readyAt)[sess] = ev.At
			}
		}
	}
}

// reconnectOpened: Core accepted conn of device, replacing its current one.
func (l *Ledger) reconnectOpened(at int64, conn uint64, device string) {
	s := &l.reconnect
	made(&s.connDev)[conn] = device
	d := s.device(device)
	prev := *d
	prev.undo = nil
	d.undo = &prev
	if d.conn != 0 {
		d.lost = at // replaced by the newer connection
	}
	d.conn, d.hb = conn, nil
}

// reconnectRogueOpened: a rogue peer opened conn claiming device (Core's
// shell refuses it at once without the protocol version or a device).
func (l *Ledger) reconnectRogueOpened(at int64, conn uint64, device, version string) {
	if device != "" && version == wire.Version {
		l.reconnectOpened(at, conn, device)
	}
}

// reconnectHeartbeat: a valid heartbeat reaching Core on conn is the
// connection's declaration.
func (l *Ledger) reconnectHeartbeat(conn uint64, hb wire.Heartbeat) {
	s := &l.reconnect
	d := s.devices[s.connDev[conn]]
	if d == nil || d.conn != conn || !validDeclaration(hb) {
		return
	}
	avail := map[string]bool{}
	for _, k := range hb.SupportedAgentKinds {
		if k.Available {
			avail[k.Kind] = true
			made(&d.served)[k.Kind] = true
		}
	}
	d.declared, d.hb, d.undo = true, avail, nil
}

func (l *Ledger) reconnectTurnFinished(at int64, turn, state, code string) {
	if state != TurnFailed || code != "capability_unsupported" {
		return
	}
	s := &l.reconnect
	session := l.core.turn(turn).session
	sf := l.frames.sessions[session]
	if r, ok := s.readyAt[session]; ok && r == at || sf == nil {
		return // the final check, or a Session the client never learned of
	}
	if l.engineUnqualified(sf.spec) != "" {
		return // the engine policy Core runs no longer qualifies it: no device could serve it (engine_admission.go)
	}
	kind := sf.spec.Kind
	for _, id := range sortedKeys(s.devices) {
		d := s.devices[id]
		if !d.declared {
			continue
		}
		if at >= d.lost+int64(ReconnectWindowOf)-int64(time.Second) {
			continue
		}
		why := ""
		switch {
		case d.conn == 0:
			why = "has no connection"
		case d.hb == nil:
			why = "has sent no heartbeat on its new connection"
		case !d.hb[kind] && d.served[kind]:
			why = "does not declare kind " + kind + " available yet, as it did before"
		default:
			continue
		}
		l.violate(at, CheckReconnectWindow, "Core failed turn %s (session %s, kind %s) capability_unsupported at %s while device %s of the pool %s, within the reconnect window (since %s)",
			turn, session, kind, vtime(at), id, why, vtime(d.lost))
		return
	}
}

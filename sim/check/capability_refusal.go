package check

import "strings"

// Check: capability_unsupported_justified (rules.go). Core failing a
// Turn capability_unsupported at device selection is judged against every
// device connection Core holds: opened since Core last started and not a
// zombie's, a valid heartbeat delivered, nothing undecodable since, not
// closed by either end, not a rogue's, never asked to be quiesced (a
// fenced device serves nothing). The requirement is taken at its widest
// (images and recovery), so a connection found admissible admits the
// Turn whatever its input and history: Core asked for a capability the
// table does not require. The final check (a ready status reaching Core
// in that instant) is reconnect_window's to excuse, and is excused here
// too.

// QuiesceCalled records the API client asking Core to quiesce device: a
// fenced device serves nothing, and from the call on Core may hold a
// suspension of it the wire does not show yet.
func (l *Ledger) QuiesceCalled(device string) { made(&l.frames.quiesced)[device] = true }

// CheckCapabilityRefusal is rule capability_unsupported_justified (rules.go).
const CheckCapabilityRefusal = "capability_unsupported_justified"

func (l *Ledger) capabilityRefusalTurnFinished(at int64, turn, state, code string) {
	if state != TurnFailed || code != "capability_unsupported" {
		return
	}
	session := l.core.turn(turn).session
	sf := l.frames.sessions[session]
	if r, ok := l.reconnect.readyAt[session]; ok && r == at || sf == nil {
		return
	}
	if l.engineUnqualified(sf.spec) != "" {
		l.reach(MarkEngineUnqualifiedAtDispatch)
		return // the policy Core runs no longer qualifies the Session (engine_admission.go)
	}
	req := RequiredCapabilities(sf.spec, true, true)
	f := &l.frames
	for _, id := range f.connIDs { // ascending
		c := f.conns[id]
		if c.closed || !c.known || c.opaque || c.device == RogueNode || f.quiesced[c.device] ||
			c.opened < l.reconnect.coreStart || l.failover.zombieConn(id) {
			continue
		}
		k, ok := c.kinds[sf.spec.Kind]
		if !ok || !k.Available || len(missingCapabilities(req, k.Capabilities)) > 0 {
			continue
		}
		l.violate(at, CheckCapabilityRefusal, "Core failed turn %s (session %s) capability_unsupported while %s on conn c%d declares kind %s available with every capability it needs (%s)",
			turn, session, c.device, id, sf.spec.Kind, strings.Join(req, ","))
		return
	}
}

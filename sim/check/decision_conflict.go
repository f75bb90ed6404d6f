package check

import (
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// CheckDecisionConflictAfterApply is rule decision_conflict_after_apply
// (rules.go), from the wire: the permission request names the Run and, by
// its request_id, the interaction; the daemon's applied receipt for Core's
// decision marks it applied. not_pending is left for a decision the daemon
// no longer remembers, once the Turn is over.
const CheckDecisionConflictAfterApply = "decision_conflict_after_apply"

// MarkDecisionChangedWhileLive: another decision for an applied
// permission request reached the daemon while its Turn ran.
const MarkDecisionChangedWhileLive Mark = "decision_changed_while_live"

type changedDecision struct {
	interaction string
	approved    bool
}

type decisionConflictState struct {
	runOf    map[string]string          // conn\x00interaction → Run, from the permission request
	applied  map[string]bool            // conn\x00interaction → the approved answer of Core's decision the daemon applied
	approved map[string]bool            // conn\x00delivery → approved, of the decisions Core sent
	changed  map[string]changedDecision // conn\x00delivery of a changed decision delivered while live
}

// observeDecisionConflicts follows honest permission traffic and forged
// decisions reaching a daemon; whether the daemon sent the Run's done
// comes from the connection index.
func (l *Ledger) observeDecisionConflicts(ev WireEvent) {
	if !ev.HasFrame() || ev.From == RogueNode || ev.To == RogueNode {
		return
	}
	s := &l.decisionConflict
	key := func(id string) string { return connFrameKey(ev.Conn, id) }
	switch p := ev.Frame.Payload.(type) {
	case wire.PermissionRequest:
		if ev.Kind == WireSent && !ev.Forged && ev.From != CoreNode {
			made(&s.runOf)[key(p.RequestID)] = ev.Frame.ID
		}
	case wire.PermissionDecision:
		switch {
		case ev.Kind == WireSent && !ev.Forged && ev.From == CoreNode:
			made(&s.approved)[key(p.DeliveryID)] = p.Approved
		case ev.Kind == WireDelivered && ev.Forged && ev.To != CoreNode && strings.HasPrefix(p.DeliveryID, HostileIDPrefix):
			l.decisionChangedDelivered(ev, p)
		}
	case wire.InteractionDecisionAck:
		if ev.Kind != WireSent || ev.Forged || ev.From == CoreNode {
			return
		}
		if approved, ok := s.approved[key(p.DeliveryID)]; ok && p.Applied {
			made(&s.applied)[key(ev.Frame.ID)] = approved
		}
		l.decisionChangedAnswered(ev, p)
	}
}

func (l *Ledger) decisionChangedDelivered(ev WireEvent, p wire.PermissionDecision) {
	s := &l.decisionConflict
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	approved, applied := s.applied[k]
	run, asked := s.runOf[k]
	if !applied || !asked || approved == p.Approved || l.conn(ev.Conn).run(run).done != 0 {
		return
	}
	made(&s.changed)[connFrameKey(ev.Conn, p.DeliveryID)] = changedDecision{interaction: ev.Frame.ID, approved: p.Approved}
	l.reach(MarkDecisionChangedWhileLive)
}

func (l *Ledger) decisionChangedAnswered(ev WireEvent, a wire.InteractionDecisionAck) {
	s := &l.decisionConflict
	k := connFrameKey(ev.Conn, a.DeliveryID)
	c, ok := s.changed[k]
	if !ok {
		return
	}
	delete(s.changed, k)
	if a.Applied || a.ErrorCode != wire.AckDecisionConflict {
		got := "applied"
		if !a.Applied {
			got = "refused " + a.ErrorCode
		}
		l.violate(ev.At, CheckDecisionConflictAfterApply,
			"%s answered a changed decision (approved=%t) for permission request %s it had applied, while its Turn ran, %s; want %s",
			ev.From, c.approved, c.interaction, got, wire.AckDecisionConflict)
	}
}

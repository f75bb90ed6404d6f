package world

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// kDecisionDuplicate: the next decision or function result Core sends
// reaches the Runtime twice — an identical copy, or (for an odd pick) a
// conflicting one under a fresh delivery ID Core never waits for. The
// Runtime must apply the decision natively once and answer a conflicting
// copy decision_conflict.
var kDecisionDuplicate = kind{kind: "decision_duplicate"}

// decisionDupsMax bounds the armed duplicates.
const decisionDupsMax = 3

func interactionWorldKinds() []sim.FaultKind { return []sim.FaultKind{kDecisionDuplicate.kind} }

func (u *universe) registerInteractionFaults() {
	u.w.RegisterFault(sim.FaultSpec{Kind: kDecisionDuplicate.kind, Targets: []sim.NodeID{coreID}}, func(w *sim.Kernel, f sim.Fault) {
		if len(u.decisionDups) >= decisionDupsMax {
			u.noVictim(f, "ignored: already armed")
			return
		}
		u.decisionDups = append(u.decisionDups, f.Pick%2 == 1)
		u.detail(fmt.Sprintf("armed=%d conflicting=%t", len(u.decisionDups), f.Pick%2 == 1))
	})
}

// duplicateDecision appends the armed copy of a decision frame Core sends.
func (u *universe) duplicateDecision(out []sim.Effect, e core.Send, b []byte) []sim.Effect {
	if len(u.decisionDups) == 0 {
		return out
	}
	f := e.Frame
	switch p := f.Payload.(type) {
	case wire.PermissionDecision:
		if u.decisionDups[0] {
			p.DeliveryID, p.Approved = "dup:"+p.DeliveryID, !p.Approved
		}
		f.Payload = p
	case wire.UserChoiceDecision:
		if u.decisionDups[0] {
			p.DeliveryID, p.Cancelled, p.QuestionAnswers = "dup:"+p.DeliveryID, !p.Cancelled, nil
		}
		f.Payload = p
	case wire.FunctionResult:
		if u.decisionDups[0] {
			p.DeliveryID, p.Success = "dup:"+p.DeliveryID, !p.Success
		}
		f.Payload = p
	default:
		return out
	}
	u.decisionDups = u.decisionDups[1:]
	copyBytes, err := wire.Encode(f)
	if err != nil {
		copyBytes = b
	}
	return append(out, sim.Send{Conn: sim.ConnID(e.Conn), Frame: copyBytes})
}

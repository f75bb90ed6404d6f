package world

import (
	"math/rand/v2"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// A changed decision for a permission request the daemon applied, while
// its Turn still runs. The hostile_core_frames injector sends one only at
// the end of its fault window, when the Turn has mostly ended and the
// daemon answers from its memory of applied decisions; the rule for a
// live interaction (a different decision after apply is decision_conflict,
// never applied) is reached only by chance. In half the seeds with faults
// (drawn once from the "decision-changed" stream, apart from every other
// draw), when a daemon's applied receipt for one of Core's permission
// decisions passes, a peer in the middle sends the daemon, within 5 ms
// and on the same connection, the opposite answer under a delivery ID of
// its own (two times in three, at most decisionChangedMax a seed). Its
// receipt goes to Core, which ignores it. The hostile_refusal check and
// decision_conflict_after_apply (sim/check/decision_conflict.go) judge
// the answer; mark decision_changed_while_live.
type decisionChanged struct {
	r    *rand.Rand // nil: not in this seed
	left int
}

const (
	decisionChangedMax   = 3
	decisionChangedDelay = 5 * time.Millisecond
)

func (u *universe) initDecisionChanged() {
	r := u.w.Rand("decision-changed")
	if r.IntN(2) == 0 && !u.faultFree() {
		u.decisionChanged = decisionChanged{r: r, left: decisionChangedMax}
	}
}

// changeAppliedDecision reads one honest frame sent on conn: an applied
// receipt for a permission decision Core sent may be followed by the
// opposite decision. It runs before watchDecisions forgets the decision.
func (u *universe) changeAppliedDecision(conn sim.ConnID, from sim.NodeID, f wire.Frame) {
	s := &u.decisionChanged
	ack, ok := f.Payload.(wire.InteractionDecisionAck)
	if s.r == nil || s.left == 0 || !ok || !ack.Applied || from == coreID || u.hostile.decisions == nil {
		return
	}
	d, ok := u.hostile.decisions[statusKey(conn, ack.DeliveryID)]
	if !ok || d.interaction != f.ID || s.r.IntN(3) == 0 {
		return
	}
	s.left--
	wait := time.Duration(s.r.Int64N(int64(decisionChangedDelay)))
	u.w.After(wait, "", func() {
		delivery := u.hostile.mint("d")
		u.forge(conn, coreID, encodeFrame(d.interaction, wire.PermissionDecision{DeliveryID: delivery, Approved: !d.d.Approved, Message: "changed mind"}),
			&check.HostileProbe{Action: check.HostileDecisionConflict, ReplyID: d.interaction, Delivery: delivery, Target: string(from)})
	})
}

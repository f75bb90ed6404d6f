package world

import (
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// Decisions Core sent and the daemon applied, per connection, as a peer in
// the middle reads them: the injector forges another decision for an
// applied permission request (conflictingDecision).

type sentDecision struct {
	interaction string
	d           wire.PermissionDecision
}

// watchDecisions reads one honest frame on conn for the decision forger.
func (h *hostileState) watchDecisions(conn sim.ConnID, from sim.NodeID, f wire.Frame) {
	if h.decisions == nil {
		h.decisions, h.applied = map[string]sentDecision{}, map[sim.ConnID][]sentDecision{}
		h.calls = map[sim.ConnID][][2]string{}
	}
	switch p := f.Payload.(type) {
	case wire.PermissionDecision:
		if from == coreID {
			h.decisions[statusKey(conn, p.DeliveryID)] = sentDecision{interaction: f.ID, d: p}
		}
	case wire.FunctionCall:
		if from != coreID {
			h.calls[conn] = append(h.calls[conn], [2]string{f.ID, p.CallID})
		}
	case wire.InteractionDecisionAck:
		if d, ok := h.decisions[statusKey(conn, p.DeliveryID)]; ok && from != coreID && p.Applied && d.interaction == f.ID {
			delete(h.decisions, statusKey(conn, p.DeliveryID))
			h.applied[conn] = append(h.applied[conn], d)
		}
	}
}

// conflictingDecision: another decision (the opposite answer) for a
// permission request the daemon already applied on this connection:
// decision_conflict, or not_pending once the daemon forgot it.
func (in *injector) conflictingDecision() {
	ds := in.u.hostile.applied[in.conn]
	if len(ds) == 0 {
		return
	}
	d := ds[in.r.IntN(len(ds))]
	delivery := in.u.hostile.mint("d")
	in.send(d.interaction, wire.PermissionDecision{DeliveryID: delivery, Approved: !d.d.Approved, Message: "changed mind"},
		check.HostileProbe{Action: check.HostileDecisionConflict, ReplyID: d.interaction, Delivery: delivery})
}

// imageResult: a function result with an image for a call a Run of this
// connection made, sent only where the kind does not declare
// function_result_images: unsupported (not_pending once the Run or the
// call is gone; decision_conflict once Core's own result for that call
// was applied, since a call's identity is judged before its content).
func (in *injector) imageResult() {
	cs := in.u.hostile.calls[in.conn]
	caps, ok := in.kindCaps()
	if len(cs) == 0 || !ok || caps.FunctionResultImages.IsSupported() || !caps.FunctionTools.IsSupported() {
		return
	}
	c := cs[len(cs)-1]
	delivery := in.u.hostile.mint("d")
	in.send(c[0], wire.FunctionResult{DeliveryID: delivery, CallID: c[1], Success: true,
		Content: []wire.InputContent{wire.TextPart("chart"), wire.ImagePart("https://example.com/chart.png")}},
		check.HostileProbe{Action: check.HostileResultImages, ReplyID: c[0], Delivery: delivery})
}

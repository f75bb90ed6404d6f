package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/wire"
)

// The planted interaction bugs do what they claim, so that the
// simulator's checkers can be shown to catch them.
func TestPlantedAckDecisionBeforeApply(t *testing.T) {
	cfg := interactionConfig()
	cfg.Bugs.AckDecisionBeforeApply = true
	r, _ := asked(t, cfg, permissionReq("perm-1"))
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	callOf[RespondPermission](r)
	require.Truef(t, oneIxAck(t, r, "perm-1").Applied, "bugged: applied before the native result")
}

func TestPlantedReapplyRepeatedDecision(t *testing.T) {
	cfg := interactionConfig()
	cfg.Bugs.ReapplyRepeatedDecision = true
	r, _ := asked(t, cfg, permissionReq("perm-1"))
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d1", Approved: true})
	c, _ := callOf[RespondPermission](r)
	r.result(c, DecisionResult{Outcome: DecisionApplied})
	r.recv("perm-1", wire.PermissionDecision{DeliveryID: "d2", Approved: true})
	callOf[RespondPermission](r) // bugged: a second native apply
}

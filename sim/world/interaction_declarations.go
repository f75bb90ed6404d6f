package world

import (
	"math/rand/v2"

	"github.com/turnstile-sim/turnstile/wire"
)

// interactionDeclarations varies, per device, the declarations the
// interaction rules depend on, from the "interaction-declarations" stream
// apart from every other draw: permissions (governing permission and
// user-choice decisions), function_tools, and function_result_images and
// message_images independently of each other. Every device but the first
// varies; the first in one seed in three. Core must answer only what the
// declaration a Turn was admitted with allows, and a daemon must refuse
// the rest before any native call (sim/check/decision_answers.go).
type interactionDeclarations struct {
	r         *rand.Rand
	varyFirst bool
}

func (u *universe) drawInteractionDeclarations() {
	r := u.w.Rand("interaction-declarations")
	u.ixDecl = &interactionDeclarations{r: r, varyFirst: r.IntN(3) == 0}
}

// interactionCaps applies the draw to device i's declaration.
func (u *universe) interactionCaps(i int, c wire.AgentKindCapabilities) wire.AgentKindCapabilities {
	x := u.ixDecl
	noPermissions, noTools := x.r.IntN(4) == 0, x.r.IntN(5) == 0 // always drawn: stable streams
	noResultImages, noMessageImages := x.r.IntN(3) == 0, x.r.IntN(4) == 0
	if i == 0 && !x.varyFirst {
		return c
	}
	if noPermissions {
		c.Permissions = wire.CapabilityFromBool(false)
	}
	if noTools {
		c.FunctionTools = wire.CapabilityFromBool(false)
	}
	if noResultImages {
		c.FunctionResultImages = wire.CapabilityFromBool(false)
	}
	if noMessageImages {
		c.MessageImages = wire.CapabilityFromBool(false)
	}
	return c
}

package controlled

import (
	"context"

	"github.com/turnstile-sim/turnstile/wire"
)

// The controlled Turn applies every decision the Runtime routes to it at
// once (the Runtime, not the adapter, refuses what no Turn asked).

func (t *cTurn) RespondPermission(context.Context, string, wire.PermissionDecision) error { return nil }

func (t *cTurn) RespondUserChoice(context.Context, string, wire.UserChoiceDecision) error { return nil }

func (t *cTurn) SubmitFunctionResult(context.Context, wire.FunctionResult) error { return nil }

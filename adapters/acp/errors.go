package acp

import (
	"errors"

	"github.com/turnstile-sim/turnstile/wire"
)

// ErrApplyUnknown reports a steered input the agent accepted whose Turn
// ended without proof that the model consumed it: ACP has no such proof,
// so the native outcome is unknown and the input must never be replayed.
var ErrApplyUnknown = errors.New("acp: input outcome unknown")

// messageBytesMax bounds the native message carried by a run error.
const messageBytesMax = 1024

// classify maps a prompt's JSON-RPC error to a run error from its code
// only; the agent's message is carried, never read.
func classify(e *rpcError) wire.RunError {
	msg := e.Message
	if len(msg) > messageBytesMax {
		msg = msg[:messageBytesMax]
	}
	if msg == "" {
		msg = "acp: the prompt failed"
	}
	code := ""
	switch e.Code {
	case rpcAuthRequired:
		code = wire.EngineAuthenticationError
	case rpcResourceNotFound:
		code = wire.EngineResourceNotFound
	case -32602, -32600:
		code = wire.EngineInvalidRequest
	}
	code, status := wire.ClassifyEngineError(code, 0)
	return wire.RunError{Error: msg, Code: code, HTTPStatus: status}
}

// stallError is the failure of a Turn the adapter's deadline cancelled.
func stallError() wire.RunError {
	return wire.RunError{Error: "acp: no progress before the adapter's deadline", Code: wire.EngineRequestTimeout}
}

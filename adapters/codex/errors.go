package codex

import (
	"encoding/json"

	"github.com/turnstile-sim/turnstile/wire"
)

// codexCodes maps codexErrorInfo strings to engine failure codes.
var codexCodes = map[string]string{
	"unauthorized":              wire.EngineAuthenticationError,
	"usageLimitExceeded":        wire.EngineUsageLimitExceeded,
	"sessionBudgetExceeded":     wire.EngineUsageLimitExceeded,
	"rateLimitExceeded":         wire.EngineRateLimitExceeded,
	"serverOverloaded":          wire.EngineServerOverloaded,
	"flexUnavailable":           wire.EngineServerOverloaded,
	"policyCapacityUnavailable": wire.EngineServerOverloaded,
	"internalServerError":       wire.EngineServerError,
	"badRequest":                wire.EngineInvalidRequest,
	"modelNotFound":             wire.EngineResourceNotFound,
	"contextWindowExceeded":     wire.EngineContextLengthExceeded,
	"cyberPolicy":               wire.EngineCyberPolicy,
}

// connectionVariants are the codexErrorInfo objects that carry an HTTP
// status of the model connection.
var connectionVariants = []string{
	"httpConnectionFailed", "responseStreamConnectionFailed",
	"responseStreamDisconnected", "responseTooManyFailedAttempts",
}

// messageBytesMax bounds the native message carried by a run error.
const messageBytesMax = 1024

// runErrorOf maps a native turn error to a run error: an engine code when
// codexErrorInfo names one, connection_failed with the HTTP status when
// the connection failed with a known status (401 and 403 are
// authentication_error, 429 rate_limit_exceeded), no code otherwise.
func runErrorOf(e turnError) wire.RunError {
	msg := e.Message
	if len(msg) > messageBytesMax {
		msg = msg[:messageBytesMax]
	}
	if msg == "" {
		msg = "codex: turn failed"
	}
	code, status := classify(e.CodexErrorInfo)
	code, status = wire.ClassifyEngineError(code, status)
	return wire.RunError{Error: msg, Code: code, HTTPStatus: status}
}

func classify(info json.RawMessage) (string, int) {
	var s string
	if json.Unmarshal(info, &s) == nil {
		return codexCodes[s], 0
	}
	var obj map[string]struct {
		HTTPStatusCode *int `json:"httpStatusCode"`
	}
	if json.Unmarshal(info, &obj) != nil {
		return "", 0
	}
	for _, v := range connectionVariants {
		c, ok := obj[v]
		if !ok {
			continue
		}
		if c.HTTPStatusCode == nil {
			return wire.EngineConnectionFailed, 0
		}
		switch *c.HTTPStatusCode {
		case 401, 403:
			return wire.EngineAuthenticationError, 0
		case 429:
			return wire.EngineRateLimitExceeded, 0
		}
		return wire.EngineConnectionFailed, *c.HTTPStatusCode
	}
	return "", 0
}

package claude

import (
	"encoding/json"

	"github.com/turnstile-sim/turnstile/wire"
)

// assistantCodes maps the CLI's assistant error types
// (SDKAssistantMessageError) to engine failure codes.
var assistantCodes = map[string]string{
	"authentication_failed":  wire.EngineAuthenticationError,
	"oauth_org_not_allowed":  wire.EngineAuthenticationError,
	"cloud_credential_error": wire.EngineAuthenticationError,
	"billing_error":          wire.EngineUsageLimitExceeded,
	"rate_limit":             wire.EngineRateLimitExceeded,
	"overloaded":             wire.EngineServerOverloaded,
	"invalid_request":        wire.EngineInvalidRequest,
	"model_not_found":        wire.EngineResourceNotFound,
	"server_error":           wire.EngineServerError,
}

// statusCode maps an HTTP status of the Messages API to an engine code.
func statusCode(status int) (string, int) {
	switch {
	case status == 401 || status == 403:
		return wire.EngineAuthenticationError, 0
	case status == 429:
		return wire.EngineRateLimitExceeded, 0
	case status == 529:
		return wire.EngineServerOverloaded, 0
	case status == 400 || status == 413:
		return wire.EngineInvalidRequest, 0
	case status == 404:
		return wire.EngineResourceNotFound, 0
	case status == 408 || status == 504:
		return wire.EngineRequestTimeout, 0
	case status >= 500 && status <= 599:
		return wire.EngineServerError, 0
	}
	return "", 0
}

// messageBytesMax bounds the native message carried by a run error.
const messageBytesMax = 1024

// classifyLocked maps a failed result to a run error from structured
// fields only: an API failure without any HTTP status, the assistant
// error type, the API error status, then the terminal reason. The result text is carried as the message, never read.
func (t *Turn) classifyLocked(m outMessage) wire.RunError {
	msg := "claude: turn failed"
	if m.TerminalReason != "" {
		msg += " (" + m.TerminalReason + ")"
	}
	var text string
	if json.Unmarshal(m.Result, &text) == nil && text != "" {
		if len(text) > messageBytesMax {
			text = text[:messageBytesMax]
		}
		msg = text
	}
	status := t.apiStatus
	if m.APIErrorStatus != nil {
		status = *m.APIErrorStatus
	}
	code, httpStatus := "", 0
	noResponse := status == 0 && (t.apiErr == "" || t.apiErr == "server_error" || t.apiErr == "unknown")
	switch {
	case noResponse && (m.TerminalReason == terminalAPIError || t.retried):
		// An API failure without any HTTP status: no server answered (a
		// refused or dropped connection); the CLI calls it server_error.
		code = wire.EngineConnectionFailed
	case assistantCodes[t.apiErr] != "":
		code = assistantCodes[t.apiErr]
	case status != 0:
		code, httpStatus = statusCode(status)
	case m.TerminalReason == terminalPromptTooLong:
		code = wire.EngineContextLengthExceeded
	case m.TerminalReason == terminalBudget:
		code = wire.EngineUsageLimitExceeded
	}
	code, httpStatus = wire.ClassifyEngineError(code, httpStatus)
	return wire.RunError{Error: msg, Code: code, HTTPStatus: httpStatus}
}

// stallError is the failure of a Turn the adapter's deadline interrupted:
// the API status the CLI was retrying, connection_failed when it retried
// without one, request_timeout when the model stream stalled.
func (t *Turn) stallError() wire.RunError {
	re := wire.RunError{Error: "claude: no progress before the adapter's deadline", Code: wire.EngineRequestTimeout}
	switch {
	case t.apiStatus != 0:
		if code, _ := statusCode(t.apiStatus); code != "" {
			re.Code = code
		}
	case t.retried:
		re.Code = wire.EngineConnectionFailed
	}
	return re
}

package wire

// Engine failure codes of the `error` run event (wire-reference §6.3).
const (
	EngineAuthenticationError   = "authentication_error"
	EngineRateLimitExceeded     = "rate_limit_exceeded"
	EngineUsageLimitExceeded    = "usage_limit_exceeded"
	EngineServerOverloaded      = "server_overloaded"
	EngineServerError           = "server_error"
	EngineInvalidRequest        = "invalid_request"
	EngineResourceNotFound      = "resource_not_found"
	EngineRequestTimeout        = "request_timeout"
	EngineContextLengthExceeded = "context_length_exceeded"
	EngineCyberPolicy           = "cyber_policy"
	EngineConnectionFailed      = "connection_failed"
)

// EngineErrorCodes lists the 11 accepted engine failure codes.
var EngineErrorCodes = []string{
	EngineAuthenticationError, EngineRateLimitExceeded, EngineUsageLimitExceeded,
	EngineServerOverloaded, EngineServerError, EngineInvalidRequest,
	EngineResourceNotFound, EngineRequestTimeout, EngineContextLengthExceeded,
	EngineCyberPolicy, EngineConnectionFailed,
}

// IsEngineErrorCode reports whether code is one of the 11 accepted codes.
func IsEngineErrorCode(code string) bool { return oneOf(code, EngineErrorCodes...) }

// ClassifyEngineError normalises a code and HTTP status: an unknown code
// becomes "" (unclassified) and drops the status; the status is kept only
// with connection_failed and only in 100..599.
func ClassifyEngineError(code string, httpStatus int) (string, int) {
	if !IsEngineErrorCode(code) {
		return "", 0
	}
	if code != EngineConnectionFailed || httpStatus < 100 || httpStatus > 599 {
		return code, 0
	}
	return code, httpStatus
}

// classifyRunError applies the lenient reading of §6.3 after decoding:
// `error` must be a string (the walker checked it); a `code` or
// `http_status` of the wrong JSON type was read as absent
// (decodeLenient), then ClassifyEngineError normalises.
func classifyRunError(p Payload) Payload {
	e := p.(RunError)
	e.Code, e.HTTPStatus = ClassifyEngineError(e.Code, e.HTTPStatus)
	return e
}

// Validate checks the normalised form: a known code or none, and a status
// only with connection_failed in 100..599.
func (e RunError) Validate() error {
	if e.Code != "" && !IsEngineErrorCode(e.Code) {
		return invalid("error.code", "unknown engine error code")
	}
	if e.HTTPStatus != 0 {
		if e.Code != EngineConnectionFailed {
			return invalid("error.http_status", "only with connection_failed")
		}
		if e.HTTPStatus < 100 || e.HTTPStatus > 599 {
			return invalid("error.http_status", "outside 100..599")
		}
	}
	return nil
}

// oneOf reports whether s equals one of set.
func oneOf(s string, set ...string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}

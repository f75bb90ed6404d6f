package harness

import "github.com/turnstile-sim/turnstile/wire"

// engineErrorKinds are the failures the simulated engine reports, in the
// order a device cycles through them: each of the 11 classified codes,
// codes outside the set (misspelt, differently cased, empty) and HTTP
// statuses at and past both ends of 100..599, on connection_failed and on
// codes that must not keep one. What Core records for each is judged by
// check's engine_error_projection.
var engineErrorKinds = []struct {
	code   string
	status int
}{
	{wire.EngineServerError, 0},
	{wire.EngineConnectionFailed, 503},
	{wire.EngineRateLimitExceeded, 429},
	{"overloaded", 529},
	{wire.EngineConnectionFailed, 600},
	{wire.EngineAuthenticationError, 401},
	{wire.EngineConnectionFailed, 99},
	{wire.EngineUsageLimitExceeded, 0},
	{wire.EngineConnectionFailed, 100},
	{"Server_Error", 0},
	{wire.EngineServerOverloaded, 529},
	{wire.EngineConnectionFailed, 599},
	{wire.EngineInvalidRequest, 400},
	{"", 502},
	{wire.EngineResourceNotFound, 404},
	{wire.EngineConnectionFailed, 0},
	{wire.EngineRequestTimeout, 408},
	{"connection_failed ", 502},
	{wire.EngineContextLengthExceeded, 0},
	{wire.EngineCyberPolicy, 451},
	{wire.EngineConnectionFailed, 1000},
}

// engineError is the engine failure of run: the kinds are taken in turn
// from a place its Run ID chooses, so no random draw is spent on them and
// a device's few failures still meet every kind across seeds.
func (h *Harness) engineError(run string) wire.RunError {
	start := 0
	for _, c := range []byte(run) {
		start = (start*31 + int(c)) % len(engineErrorKinds)
	}
	k := engineErrorKinds[(start+h.dev.engineErrors)%len(engineErrorKinds)]
	h.dev.engineErrors++
	return wire.RunError{Error: "simulated engine error", Code: k.code, HTTPStatus: k.status}
}

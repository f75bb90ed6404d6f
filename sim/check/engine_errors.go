package check

import (
	"encoding/json"
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// CheckEngineErrorProjection is rule engine_error_projection (Rules),
// with wire-reference §6.3's classification written out again below.
const CheckEngineErrorProjection = "engine_error_projection"

// Engine error marks: a Runtime's unclassified code or out-of-range
// status reached Core (the simulated engine sends every kind in turn).
const (
	MarkEngineCodeUnclassified = Mark("engine_code_unclassified") // an unknown code Core must record as ""
	MarkEngineStatusDropped    = Mark("engine_status_dropped")    // connection_failed with a status outside 100..599
	MarkEngineStatusKept       = Mark("engine_status_kept")       // connection_failed with a status Core must keep
)

// documentedEngineCodes are the 11 engine failure codes of §6.3.
var documentedEngineCodes = codeSet("authentication_error rate_limit_exceeded usage_limit_exceeded server_overloaded " +
	"server_error invalid_request resource_not_found request_timeout context_length_exceeded cyber_policy connection_failed")

// engineFailure is a code and status pair as §6.3 classifies it.
type engineFailure struct {
	code   string
	status int
}

func (e engineFailure) String() string {
	return fmt.Sprintf("code=%q http_status=%d", e.code, e.status)
}

// classifyRawEngineError reads an `error` frame's own bytes: a code that
// is not a JSON string and a status that is not a plain JSON integer count
// as absent; then the §6.3 table. mark is the rare classification met, if
// any: a code left unclassified, or connection_failed's status (any JSON
// integer) dropped or kept.
func classifyRawEngineError(raw []byte) (want engineFailure, mark Mark, ok bool) {
	var env struct {
		Payload struct {
			Code       json.RawMessage `json:"code"`
			HTTPStatus json.RawMessage `json:"http_status"`
		} `json:"payload"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return engineFailure{}, "", false
	}
	var code string
	if c := env.Payload.Code; len(c) > 0 && c[0] == '"' && json.Unmarshal(c, &code) != nil {
		return engineFailure{}, "", false
	}
	if !documentedEngineCodes[code] {
		if code != "" {
			mark = MarkEngineCodeUnclassified
		}
		return engineFailure{}, mark, true
	}
	var status int // a JSON integer (not 502.0 or "502"), or absent
	integer := json.Unmarshal(env.Payload.HTTPStatus, &status) == nil
	if code != "connection_failed" || !integer || status < 100 || status > 599 {
		if code == "connection_failed" && integer && status != 0 {
			mark = MarkEngineStatusDropped
		}
		return engineFailure{code: code}, mark, true
	}
	return engineFailure{code: code, status: status}, MarkEngineStatusKept, true
}

// observeEngineErrors keeps the classification of the latest `error`
// frame of each Run delivered to Core, forged or not: Core classifies
// whatever reaches it.
func (l *Ledger) observeEngineErrors(ev WireEvent) {
	if _, isErr := ev.Frame.Payload.(wire.RunError); ev.Kind != WireDelivered || ev.To != CoreNode || !isErr {
		return // a frame that did not decode has no payload
	}
	want, mark, ok := classifyRawEngineError(ev.Raw)
	if !ok {
		return
	}
	made(&l.projection.engineErrors)[ev.Frame.ID] = want
	if mark != "" {
		l.reach(mark)
	}
}

// EngineErrorRecorded records the engine failure Core's durable record of
// run's Turn now holds (the world reports it when the record first notes
// an error or its code or status changes).
func (l *Ledger) EngineErrorRecorded(at int64, run, code string, status int) {
	got := engineFailure{code: code, status: status}
	want, ok := l.projection.engineErrors[run]
	if !ok {
		l.violate(at, CheckEngineErrorProjection, "run %s: Core recorded an engine error (%s) but no error frame of the run reached it", run, got)
		return
	}
	if got != want {
		l.violate(at, CheckEngineErrorProjection, "run %s: Core recorded %s for the latest error frame it received; §6.3 classifies it as %s", run, got, want)
	}
}

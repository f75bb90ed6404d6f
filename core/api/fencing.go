package api

import (
	"net/http"
	"strings"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
)

// Suspension fencing (wire-reference §3.12): an operator quiesces the
// Runtime of a device for one Environment before its Sandbox Provider
// suspends it, and resumes it afterwards. Core answers as soon as the
// request is recorded durably and sent; the Runtime's reply decides the
// suspension's state, read with GET /core/v1/suspensions/{suspend}.

// Fencing error codes.
const (
	CodeInvalidFencingRequest = "invalid_fencing_request"
	CodeFencingUnavailable    = "fencing_unavailable"
	CodeDeviceNotConnected    = "device_not_connected"
	CodeSuspensionsInFlight   = "suspensions_in_flight"
	CodeSuspensionConflict    = "suspension_conflict"
	CodeUnknownSuspension     = "unknown_suspension"
	CodeSuspensionTerminal    = "suspension_terminal"
	CodeSuspensionPending     = "suspension_pending"
)

func init() {
	Codes = append(Codes, CodeInvalidFencingRequest, CodeFencingUnavailable, CodeDeviceNotConnected,
		CodeSuspensionsInFlight, CodeSuspensionConflict, CodeUnknownSuspension, CodeSuspensionTerminal,
		CodeSuspensionPending)
	machineErrors = append(machineErrors, []struct {
		err    error
		status int
		code   string
	}{
		{core.ErrFencingUnavailable, http.StatusServiceUnavailable, CodeFencingUnavailable},
		{core.ErrDeviceNotConnected, http.StatusConflict, CodeDeviceNotConnected},
		{core.ErrSuspensionsInFlight, http.StatusTooManyRequests, CodeSuspensionsInFlight},
		{core.ErrSuspensionConflict, http.StatusConflict, CodeSuspensionConflict},
		{core.ErrUnknownSuspension, http.StatusNotFound, CodeUnknownSuspension},
		{core.ErrSuspensionTerminal, http.StatusConflict, CodeSuspensionTerminal},
		{core.ErrSuspensionPending, http.StatusConflict, CodeSuspensionPending},
	}...)
}

// QuiesceRequest is the body of POST /core/v1/suspensions: quiesce the
// Runtime of DeviceID for EnvironmentID.
type QuiesceRequest struct {
	DeviceID      string `json:"device_id"`
	EnvironmentID string `json:"environment_id"`
}

// ResumeRequest is the (optional) body of a resume. Rollback asks for a
// no-op resume when the Runtime is not quiesced; Core implies it after an
// unknown outcome.
type ResumeRequest struct {
	Rollback bool `json:"rollback,omitempty"`
}

// SuspensionJSON is a suspension record. State is quiescing,
// quiesce_unknown, quiesced, refused, resuming, resume_unknown or resumed;
// refused and resumed are final.
type SuspensionJSON struct {
	SuspendID     string `json:"suspend_id"`
	DeviceID      string `json:"device_id"`
	EnvironmentID string `json:"environment_id"`
	State         string `json:"state"`
	Attempts      int    `json:"attempts"`
	Rollback      bool   `json:"rollback"`
	ErrorCode     string `json:"error_code,omitempty"`
}

func suspensionJSON(r core.SuspensionRecord) SuspensionJSON {
	return SuspensionJSON{SuspendID: r.ID, DeviceID: r.Device, EnvironmentID: r.EnvironmentID, State: string(r.State),
		Attempts: r.Attempts, Rollback: r.Rollback, ErrorCode: r.ErrorCode}
}

// fenceSent is the answer of an accepted quiesce or resume: the request
// is recorded and on its way; its reply is not in yet.
func fenceSent(res core.APIResult) (int, any) {
	return http.StatusAccepted, map[string]string{"suspend_id": res.Value.(core.SuspendRef).Suspend}
}

// fencingID checks an identifier of a fencing request.
func fencingID(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return &badRequest{code: CodeInvalidFencingRequest, detail: name + " is required"}
	}
	if len(v) > 256 || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return &badRequest{code: CodeInvalidFencingRequest, detail: name + " must be at most 256 bytes without control characters"}
	}
	return nil
}

func (a *API) quiesce(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	var req QuiesceRequest
	if err == nil {
		err = decodeStrict(body, &req)
	}
	if err == nil {
		err = fencingID("device_id", req.DeviceID)
	}
	if err == nil {
		err = fencingID("environment_id", req.EnvironmentID)
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	a.post(w, r, body, func(c core.CallID) core.Event {
		return core.QuiesceEnvironment{Call: c, Device: req.DeviceID, EnvironmentID: req.EnvironmentID}
	}, fenceSent)
}

func (a *API) resume(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	var req ResumeRequest
	if err == nil && len(body) > 0 {
		err = decodeStrict(body, &req)
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	id := r.PathValue("suspend")
	a.post(w, r, body, func(c core.CallID) core.Event {
		return core.ResumeEnvironment{Call: c, SuspendID: id, Rollback: req.Rollback}
	}, fenceSent)
}

func (a *API) getSuspension(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("suspend")
	rep, err := a.s.Call(r.Context(), server.Request{Event: func(c core.CallID) core.Event {
		return core.ReadSuspension{Call: c, SuspendID: id}
	}})
	if err == nil {
		err = rep.Result.Err
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, suspensionJSON(*rep.Result.Value.(*core.SuspensionRecord)))
}

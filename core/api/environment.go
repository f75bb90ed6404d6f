package api

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
)

// Environment error codes.
const (
	// CodeNoEnvironmentDefinition: the Session was created without an
	// Environment definition.
	CodeNoEnvironmentDefinition = "no_environment_definition"
	// CodePreparationUnavailable: Core's store keeps no preparation
	// records, so it cannot accept a Session with a definition.
	CodePreparationUnavailable = "preparation_unavailable"
)

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// EnvironmentJSON is a Session's Environment preparation state: State is
// that of the latest connection's preparation ("pending" before any
// connection prepared it), and Preparations lists every connection's, in
// start order.
type EnvironmentJSON struct {
	SessionID     string            `json:"session_id"`
	State         string            `json:"state"`
	Preparations  []PreparationJSON `json:"preparations"`
	EnvironmentID string            `json:"environment_id,omitempty"`
}

// PreparationJSON is one connection's preparation of the definition.
type PreparationJSON struct {
	ID     string                `json:"id"`
	Device string                `json:"device"`
	State  string                `json:"state"`
	Steps  []PreparationStepJSON `json:"steps"`
}

// PreparationStepJSON is one step: action (file, skill, plugin,
// initialize), name (path, package name or initialization action), state
// (pending, running, completed, rejected, failed, unknown) and, when it
// did not complete, the Runtime's code (runtime_preparation_unconfirmed
// after a transport error) and a setup command's exit code.
type PreparationStepJSON struct {
	Action    string `json:"action"`
	Name      string `json:"name,omitempty"`
	SizeBytes int64  `json:"size_bytes"`
	State     string `json:"state"`
	ErrorCode string `json:"error_code,omitempty"`
	ExitCode  int    `json:"exit_code,omitempty"`
}

func environmentJSON(sid string, recs []core.EnvironmentPreparationRecord) EnvironmentJSON {
	out := EnvironmentJSON{SessionID: sid, State: string(core.PreparationPending), Preparations: []PreparationJSON{}}
	for _, r := range recs {
		p := PreparationJSON{ID: r.ID, Device: r.Device, State: string(r.State), Steps: []PreparationStepJSON{}}
		for _, s := range r.Steps {
			p.Steps = append(p.Steps, PreparationStepJSON{Action: s.Action, Name: s.Name, SizeBytes: s.Size,
				State: string(s.State), ErrorCode: s.ErrorCode, ExitCode: s.ExitCode})
		}
		out.Preparations = append(out.Preparations, p)
		out.State, out.EnvironmentID = p.State, r.EnvironmentID
	}
	return out
}

func (a *API) getEnvironment(w http.ResponseWriter, r *http.Request) {
	sid := r.PathValue("session")
	rep, err := a.s.Call(r.Context(), server.Request{Event: func(c core.CallID) core.Event {
		return core.ReadEnvironment{Call: c, Session: sid}
	}})
	if err == nil {
		err = rep.Result.Err
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, environmentJSON(sid, rep.Result.Value.(core.Preparations)))
}

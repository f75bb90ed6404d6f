package api

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
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

// EnvironmentDefinitionRequest is environment.definition of a Session
// creation: files, skills and plugins (contents in standard base64) and
// setup commands. Every connection installs them in that order, through
// runtime_prepare, before the Session's work runs there. The whole
// request body stays within BodyBytesMax.
type EnvironmentDefinitionRequest struct {
	Files []struct {
		Path          string `json:"path"`
		ContentBase64 string `json:"content_base64"`
	} `json:"files,omitempty"`
	Skills  []PackageRequest `json:"skills,omitempty"`
	Plugins []PackageRequest `json:"plugins,omitempty"`
	Setup   []struct {
		Command string `json:"command"`
		Cwd     string `json:"cwd,omitempty"`
		Network string `json:"network,omitempty"`
	} `json:"setup,omitempty"`
}

// PackageRequest is an inline skill or plugin archive.
type PackageRequest struct {
	Name          string `json:"name"`
	Description   string `json:"description"`
	Slot          int    `json:"slot,omitempty"`
	ContentBase64 string `json:"content_base64"`
}

func decode64(field, s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, &badRequest{code: CodeInvalidConfig, detail: field + " is not standard base64"}
	}
	return b, nil
}

func (r PackageRequest) pkg(field string) (core.EnvironmentPackage, error) {
	b, err := decode64(field+".content_base64", r.ContentBase64)
	return core.EnvironmentPackage{Name: r.Name, Description: r.Description, Slot: r.Slot, SHA256: digest(b), Content: b}, err
}

// digest is the SHA-256 Core declares for a body; the Runtime checks it.
func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// definition decodes the request; the machine validates the rest.
func (r *EnvironmentDefinitionRequest) definition() (*core.EnvironmentDefinition, error) {
	if r == nil {
		return nil, nil
	}
	d := &core.EnvironmentDefinition{}
	for i, f := range r.Files {
		b, err := decode64(fmt.Sprintf("environment.definition.files[%d].content_base64", i), f.ContentBase64)
		if err != nil {
			return nil, err
		}
		d.Files = append(d.Files, core.EnvironmentFile{Path: f.Path, SHA256: digest(b), Content: b})
	}
	for _, list := range []struct {
		name string
		in   []PackageRequest
		out  *[]core.EnvironmentPackage
	}{{"skills", r.Skills, &d.Skills}, {"plugins", r.Plugins, &d.Plugins}} {
		for i, p := range list.in {
			pk, err := p.pkg(fmt.Sprintf("environment.definition.%s[%d]", list.name, i))
			if err != nil {
				return nil, err
			}
			*list.out = append(*list.out, pk)
		}
	}
	for _, s := range r.Setup {
		d.Setup = append(d.Setup, core.EnvironmentSetup{Command: s.Command, Cwd: s.Cwd, Network: s.Network})
	}
	return d, nil
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
	writeJSON(w, http.StatusOK, environmentJSON(sid, rep.Result.Preparations))
}

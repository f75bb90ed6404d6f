package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// The administration routes under OperatorPrefix: device enrolment and
// revocation, API keys, the Harness kinds Core's policy enables, and the
// open suspensions and preparations. A refused request changes nothing.

// Administration error codes.
const (
	CodeInvalidDeviceID = "invalid_device_id"
	CodeDeviceExists    = "device_exists"
	CodeUnknownDevice   = "unknown_device"
	CodeDeviceRevoked   = "device_revoked"
	CodeInvalidKeyName  = "invalid_key_name"
	CodeUnknownKey      = "unknown_key"
	CodeKeyRevoked      = "key_revoked"
)

func init() {
	Codes = append(Codes, CodeInvalidDeviceID, CodeDeviceExists, CodeUnknownDevice, CodeDeviceRevoked,
		CodeInvalidKeyName, CodeUnknownKey, CodeKeyRevoked)
}

// DeviceCredentialPrefix starts every device credential, so a leaked one
// is recognisable (and redacted in logs).
const DeviceCredentialPrefix = "tsd_"

// NewDeviceCredential returns a fresh device credential (256 random bits
// after DeviceCredentialPrefix) and its SHA-256, the only form stored.
func NewDeviceCredential() (string, [32]byte, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", [32]byte{}, err
	}
	cred := DeviceCredentialPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return cred, sha256.Sum256([]byte(cred)), nil
}

// CheckDeviceID refuses a device ID that is no wire correlation ID:
// empty, over wire.IDBytesMax bytes, not UTF-8, or with a control
// character.
func CheckDeviceID(id string) error {
	detail := ""
	switch {
	case id == "":
		detail = "empty"
	case len(id) > wire.IDBytesMax:
		detail = fmt.Sprintf("%d bytes, at most %d", len(id), wire.IDBytesMax)
	case !utf8.ValidString(id):
		detail = "not UTF-8"
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		detail = "control character"
	default:
		return nil
	}
	return &badRequest{code: CodeInvalidDeviceID, detail: "device id: " + detail}
}

// EnrolRequest is the body of POST /core/v1/devices.
type EnrolRequest struct {
	ID string `json:"id"`
}

// EnrolledJSON answers an enrolment: the credential is shown this once;
// Core keeps only its SHA-256.
type EnrolledJSON struct {
	ID         string    `json:"id"`
	Credential string    `json:"credential"`
	CreatedAt  time.Time `json:"created_at"`
}

func (a *API) enrolDevice(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	var req EnrolRequest
	if err == nil {
		err = decodeStrict(body, &req)
	}
	if err == nil {
		err = CheckDeviceID(req.ID)
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	cred, hash, err := NewDeviceCredential()
	if err != nil {
		a.failErr(w, err)
		return
	}
	now := a.s.Clock().Now().UTC()
	var opErr error
	err = a.s.Query(r.Context(), func(v server.View) {
		// The loop orders every write of this Core: the check and the
		// insert see the same records.
		if _, ok, err := v.Backend().Device(req.ID); err != nil || ok {
			opErr = err
			if ok {
				opErr = &badRequest{code: CodeDeviceExists, status: http.StatusConflict,
					detail: fmt.Sprintf("device %q is already enrolled (revoked or not); enrol another ID", req.ID)}
			}
			return
		}
		opErr = v.Backend().AddDevice(req.ID, hash, now)
	})
	if err == nil {
		err = opErr
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	a.log.Info("device enrolled", "device", req.ID)
	writeJSON(w, http.StatusCreated, EnrolledJSON{ID: req.ID, Credential: cred, CreatedAt: now})
}

// RevokedJSON answers a revocation.
type RevokedJSON struct {
	ID        string    `json:"id"`
	Revoked   bool      `json:"revoked"`
	RevokedAt time.Time `json:"revoked_at"`
}

// noBody reads a body a route takes none of: empty or {} (within
// BodyBytesMax; unknown members are refused).
func noBody(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(w, r)
	if err == nil && len(bytes.TrimSpace(body)) > 0 {
		err = decodeStrict(body, &struct{}{})
	}
	return err
}

func (a *API) revokeDevice(w http.ResponseWriter, r *http.Request) {
	if err := noBody(w, r); err != nil {
		a.failErr(w, err)
		return
	}
	id := r.PathValue("device")
	now := a.s.Clock().Now().UTC()
	var opErr error
	err := a.s.Query(r.Context(), func(v server.View) {
		d, ok, err := v.Backend().Device(id)
		switch {
		case err != nil:
			opErr = err
			return
		case !ok:
			opErr = &badRequest{code: CodeUnknownDevice, status: http.StatusNotFound,
				detail: fmt.Sprintf("no device %q is enrolled", id)}
			return
		case d.Revoked:
			opErr = &badRequest{code: CodeDeviceRevoked, status: http.StatusConflict,
				detail: fmt.Sprintf("device %q was revoked at %s", id, d.RevokedAt.UTC().Format(time.RFC3339))}
			return
		}
		if opErr = v.Backend().RevokeDevice(id, now); opErr == nil {
			v.Retire(id) // its live connection closes with 4001 at once
		}
	})
	if err == nil {
		err = opErr
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	a.log.Info("device revoked", "device", id)
	writeJSON(w, http.StatusOK, RevokedJSON{ID: id, Revoked: true, RevokedAt: now})
}

// KindJSON is one Harness kind Core's engine policy enables.
type KindJSON struct {
	Kind       string   `json:"kind"`
	Label      string   `json:"label"`
	Placements []string `json:"placements"`
}

// kindsJSON lists the policy's kinds in sorted order.
func kindsJSON(p engine.Policy) []KindJSON {
	out := []KindJSON{}
	cat := p.Catalog()
	for _, k := range cat.Kinds() {
		prof, _ := cat.Lookup(k)
		kj := KindJSON{Kind: k, Label: prof.Label, Placements: []string{}}
		for _, pl := range prof.Placements {
			kj.Placements = append(kj.Placements, string(pl))
		}
		out = append(out, kj)
	}
	return out
}

// listKinds: GET /core/v1/kinds. The policy is fixed when Core starts
// (-kinds and -engine-profiles); the list is read-only.
func (a *API) listKinds(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"kinds": kindsJSON(a.s.Policy())})
}

// listSuspensions: GET /core/v1/suspensions, in creation order.
func (a *API) listSuspensions(w http.ResponseWriter, r *http.Request) {
	out := []SuspensionJSON{}
	unavailable := false
	err := a.s.Query(r.Context(), func(v server.View) {
		st, ok := v.Backend().(core.SuspensionStore)
		if !ok {
			unavailable = true
			return
		}
		for _, rec := range st.Suspensions() {
			out = append(out, suspensionJSON(rec))
		}
	})
	if err == nil && unavailable {
		err = core.ErrFencingUnavailable
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"suspensions": out})
}

// PreparationRecordJSON is one Environment preparation (runtime_prepare)
// of a device: its Session, Environment, state and steps.
type PreparationRecordJSON struct {
	PreparationJSON
	SessionID     string `json:"session_id,omitempty"`
	EnvironmentID string `json:"environment_id"`
}

// listPreparations: GET /core/v1/preparations, every Environment
// preparation record in start order.
func (a *API) listPreparations(w http.ResponseWriter, r *http.Request) {
	out := []PreparationRecordJSON{}
	unavailable := false
	err := a.s.Query(r.Context(), func(v server.View) {
		st, ok := v.Backend().(core.PreparationStore)
		if !ok {
			unavailable = true
			return
		}
		for _, rec := range st.EnvironmentPreparations() {
			sid := rec.SessionID
			if sid == "" {
				sid = rec.Session
			}
			env := environmentJSON(sid, []core.EnvironmentPreparationRecord{rec})
			out = append(out, PreparationRecordJSON{PreparationJSON: env.Preparations[0], SessionID: sid,
				EnvironmentID: rec.EnvironmentID})
		}
	})
	if err == nil && unavailable {
		err = core.ErrPreparationUnavailable
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"preparations": out})
}

// KeyRequest is the body of POST /core/v1/keys.
type KeyRequest struct {
	Name string `json:"name"`
}

// KeyJSON is an API key record; Secret is set only in the answer of its
// creation, the one time it is shown.
type KeyJSON struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Secret    string     `json:"secret,omitempty"`
	Revoked   bool       `json:"revoked"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

func keyJSON(k APIKey) KeyJSON {
	out := KeyJSON{ID: k.ID, Name: k.Name, Revoked: k.Revoked(), CreatedAt: k.CreatedAt.UTC()}
	if k.Revoked() {
		at := k.RevokedAt.UTC()
		out.RevokedAt = &at
	}
	return out
}

// keyError names the errors of the key records.
func keyError(err error) error {
	switch {
	case errors.Is(err, ErrInvalidKeyName):
		return &badRequest{code: CodeInvalidKeyName, detail: err.Error()}
	case errors.Is(err, ErrUnknownKey):
		return &badRequest{code: CodeUnknownKey, status: http.StatusNotFound, detail: err.Error()}
	case errors.Is(err, ErrKeyRevoked):
		return &badRequest{code: CodeKeyRevoked, status: http.StatusConflict, detail: err.Error()}
	}
	return err
}

func (a *API) addKey(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r)
	var req KeyRequest
	if err == nil {
		err = decodeStrict(body, &req)
	}
	if err == nil {
		err = keyError(CheckKeyName(req.Name))
	}
	if err != nil {
		a.failErr(w, err)
		return
	}
	secret, key, err := NewKeys(a.res).Add(r.Context(), req.Name, a.s.Clock().Now())
	if err != nil {
		a.failErr(w, keyError(err))
		return
	}
	a.log.Info("API key added", "key_id", key.ID, "name", key.Name)
	out := keyJSON(key)
	out.Secret = secret
	writeJSON(w, http.StatusCreated, out)
}

func (a *API) listKeys(w http.ResponseWriter, r *http.Request) {
	ks, err := NewKeys(a.res).List(r.Context())
	if err != nil {
		a.failErr(w, err)
		return
	}
	out := []KeyJSON{}
	for _, k := range ks {
		out = append(out, keyJSON(k))
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": out})
}

func (a *API) revokeKey(w http.ResponseWriter, r *http.Request) {
	if err := noBody(w, r); err != nil {
		a.failErr(w, err)
		return
	}
	id := r.PathValue("key")
	keys := NewKeys(a.res)
	a.mu.Lock() // one revocation at a time in this process
	err := keys.Revoke(r.Context(), id, a.s.Clock().Now())
	a.mu.Unlock()
	if err != nil {
		a.failErr(w, keyError(err))
		return
	}
	k, _, err := keys.Get(context.WithoutCancel(r.Context()), id)
	if err != nil {
		a.failErr(w, err)
		return
	}
	a.log.Info("API key revoked", "key_id", id)
	writeJSON(w, http.StatusOK, keyJSON(k))
}

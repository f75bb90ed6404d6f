package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// Routes (wire-reference §2.2).
const (
	BootstrapPath    = "/api/v1/agent-daemon/bootstrap"
	WSPath           = "/api/v1/agent-daemon/ws"
	DeviceStatusPath = "/api/v1/agent-daemon/device-status"
)

// Error codes of the shared error body (wire-reference §2.2).
const (
	CodeMissingParams   = "missing_params"
	CodeMissingDeviceID = "missing_device_id"
	CodeBadJSON         = "bad_json"
	// CodeBodyTimeout: the bootstrap body did not arrive within the body
	// read deadline of the server.
	CodeBodyTimeout = "body_timeout"
	// CodeBodyTooLarge: the bootstrap body is over its limit (413, as on
	// every API route).
	CodeBodyTooLarge        = "body_too_large"
	CodeMissingBearer       = "missing_bearer"
	CodeUnknownDevice       = "unknown_device"
	CodeBadCredential       = "bad_credential"
	CodeMethodNotAllowed    = "method_not_allowed"
	CodeIncompatibleVersion = "incompatible_version"
	CodeInternal            = "internal"
)

// Connection limits (wire-reference §2.3).
const (
	ReadLimitBytes   = wire.FrameBytesMax // 4 MiB; the library default is 32 KiB
	WriteTimeout     = 10 * time.Second
	OutboundFrames   = 64
	bootstrapBodyMax = 64 << 10
)

// Options configure the gateway.
type Options struct {
	// PublicURL is Core's public base URL (http or https); ws_url is
	// derived from it, never from request headers.
	PublicURL   string
	WorkspaceID string // default "default"
	// PodID names this Core process as the owner of the connections it
	// holds (device-status owner_pod_id); default "core".
	PodID            string
	HeartbeatSeconds int // default 15
	Logger           *slog.Logger
	// OutboundFrames and WriteTimeout default to the documented 64 and 10 s.
	OutboundFrames int
	WriteTimeout   time.Duration
	// Clock times the write budget; clock.New() when nil.
	Clock clock.Clock
}

// Gateway serves the Runtime routes over a server.Server.
type Gateway struct {
	live  sync.WaitGroup // connection handlers
	s     *server.Server
	opt   Options
	log   *slog.Logger
	wsURL string
}

// New returns a gateway; it fails when PublicURL is not an absolute http(s)
// URL.
func New(s *server.Server, opt Options) (*Gateway, error) {
	ws, err := WSURL(opt.PublicURL)
	if err != nil {
		return nil, err
	}
	if opt.WorkspaceID == "" {
		opt.WorkspaceID = "default"
	}
	if opt.PodID == "" {
		opt.PodID = "core"
	}
	if opt.HeartbeatSeconds <= 0 {
		opt.HeartbeatSeconds = 15
	}
	if opt.OutboundFrames <= 0 {
		opt.OutboundFrames = OutboundFrames
	}
	if opt.WriteTimeout <= 0 {
		opt.WriteTimeout = WriteTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Clock == nil {
		opt.Clock = clock.New()
	}
	return &Gateway{s: s, opt: opt, log: opt.Logger, wsURL: ws}, nil
}

// WSURL derives the public WebSocket URL from Core's public base URL.
func WSURL(public string) (string, error) {
	u, err := url.Parse(public)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("gateway: public URL must be an absolute http or https URL")
	}
	u.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
	u.Path = strings.TrimRight(u.Path, "/") + WSPath
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String(), nil
}

// Register mounts the three Runtime routes on mux.
func (g *Gateway) Register(mux *http.ServeMux) {
	mux.HandleFunc(BootstrapPath, g.bootstrap)
	mux.HandleFunc(WSPath, g.ws)
	mux.HandleFunc(DeviceStatusPath, g.deviceStatus)
}

type errorBody struct {
	Error  string `json:"error"`
	Detail string `json:"detail"`
}

// fail writes the shared error body. detail never carries a credential.
func fail(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorBody{Error: code, Detail: detail})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// credentialParams are query parameters that would carry a credential in
// the URL; any of them refuses the request.
var credentialParams = []string{"token", "access_token", "credential", "bearer", "authorization", "auth", "key", "api_key"}

// credentialInURL reports whether the query carries a credential: a
// credential-like parameter name, or any value equal to the bearer
// credential presented (cred may be empty).
func credentialInURL(q url.Values, cred string) bool {
	for k, vs := range q {
		for _, p := range credentialParams {
			if strings.EqualFold(k, p) {
				return true
			}
		}
		for _, v := range vs {
			if cred != "" && subtle.ConstantTimeCompare([]byte(v), []byte(cred)) == 1 {
				return true
			}
		}
	}
	return false
}

// bearer returns the credential of the Authorization header ("Bearer "
// prefix exactly, value trimmed), or "".
func bearer(r *http.Request) string {
	v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(v)
}

// authError is a 401 with its code.
type authError struct{ code, detail string }

func (e *authError) Error() string { return e.code }

// authenticate checks device's credential against its stored SHA-256 in
// constant time. It returns an *authError, or another error for a backend
// failure.
func (g *Gateway) authenticate(ctx context.Context, device, credential string) error {
	var rec server.Device
	var found bool
	var lookupErr error
	err := g.s.Query(ctx, func(v server.View) { rec, found, lookupErr = v.Backend().Device(device) })
	if err == nil {
		err = lookupErr
	}
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(credential))
	match := subtle.ConstantTimeCompare(sum[:], rec.CredentialHash[:]) == 1
	switch {
	case !found || rec.Revoked:
		return &authError{CodeUnknownDevice, "no such device"}
	case !match:
		return &authError{CodeBadCredential, "credential does not match"}
	}
	return nil
}

// authFail answers an authentication error.
func (g *Gateway) authFail(w http.ResponseWriter, r *http.Request, device string, err error) {
	var ae *authError
	if errors.As(err, &ae) {
		g.log.Info("runtime authentication refused", "route", r.URL.Path, "device", device, "code", ae.code)
		fail(w, http.StatusUnauthorized, ae.code, ae.detail)
		return
	}
	g.log.Error("device lookup failed", "route", r.URL.Path, "err", err)
	fail(w, http.StatusInternalServerError, CodeInternal, "device lookup failed")
}

type bootstrapRequest struct {
	DeviceID string `json:"device_id"`
}

// BootstrapResponse is the bootstrap answer.
type BootstrapResponse struct {
	DeviceID         string `json:"device_id"`
	WorkspaceID      string `json:"workspace_id"`
	WSURL            string `json:"ws_url"`
	HeartbeatSeconds int    `json:"heartbeat_seconds"`
	ProtocolVersion  string `json:"protocol_version"`
}

func (g *Gateway) bootstrap(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed, "bootstrap takes POST")
		return
	}
	cred := bearer(r)
	if credentialInURL(r.URL.Query(), cred) {
		fail(w, http.StatusBadRequest, CodeMissingParams, "credentials go in the Authorization header only")
		return
	}
	if cred == "" {
		fail(w, http.StatusUnauthorized, CodeMissingBearer, "Authorization: Bearer <credential> required")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, bootstrapBodyMax))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		fail(w, http.StatusRequestEntityTooLarge, CodeBodyTooLarge, fmt.Sprintf("body over %d bytes", bootstrapBodyMax))
		return
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		w.Header().Set("Connection", "close")
		fail(w, http.StatusRequestTimeout, CodeBodyTimeout, "request body not received within the body read deadline")
		return
	}
	var req bootstrapRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		fail(w, http.StatusBadRequest, CodeBadJSON, "body must be a JSON object {\"device_id\": ...}")
		return
	}
	if strings.TrimSpace(req.DeviceID) == "" {
		fail(w, http.StatusBadRequest, CodeMissingDeviceID, "device_id required")
		return
	}
	if err := g.authenticate(r.Context(), req.DeviceID, cred); err != nil {
		g.authFail(w, r, req.DeviceID, err)
		return
	}
	writeJSON(w, BootstrapResponse{DeviceID: req.DeviceID, WorkspaceID: g.opt.WorkspaceID, WSURL: g.wsURL,
		HeartbeatSeconds: g.opt.HeartbeatSeconds, ProtocolVersion: wire.Version})
}

// DeviceStatus is the device-status answer (wire-reference §2.2). Owner
// is nil while the device has no live connection.
type DeviceStatus struct {
	DeviceID string       `json:"device_id"`
	Online   bool         `json:"online"`
	Owner    *DeviceOwner `json:"owner"`
}

// Owner statuses: whether a valid heartbeat arrived on the connection.
const (
	OwnerAwaitingHeartbeat = "awaiting_heartbeat" // capabilities unknown yet
	OwnerReady             = "ready"
)

// DeviceOwner is the machine's view of the connection that owns a device:
// this Core process (PodID, public URL), the connection generation (its
// connection ID, increasing per device in accept order), whether it has
// heartbeated, and the instant, in Unix milliseconds, at which Core closes
// it unless an inbound frame arrives first.
type DeviceOwner struct {
	OwnerPodID     string `json:"owner_pod_id"`
	OwnerURL       string `json:"owner_url"`
	Generation     uint64 `json:"generation"`
	Status         string `json:"status"`
	LeaseExpiresAt int64  `json:"lease_expires_at"`
}

func (g *Gateway) deviceStatus(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		fail(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed, "device-status takes GET")
		return
	}
	q := r.URL.Query()
	device, cred := q.Get("device_id"), bearer(r)
	if credentialInURL(q, cred) {
		fail(w, http.StatusBadRequest, CodeMissingParams, "credentials go in the Authorization header only")
		return
	}
	if device == "" {
		fail(w, http.StatusBadRequest, CodeMissingDeviceID, "device_id required")
		return
	}
	if cred == "" {
		fail(w, http.StatusUnauthorized, CodeMissingBearer, "Authorization: Bearer <credential> required")
		return
	}
	if err := g.authenticate(r.Context(), device, cred); err != nil {
		g.authFail(w, r, device, err)
		return
	}
	ans := DeviceStatus{DeviceID: device}
	err := g.s.Query(r.Context(), func(v server.View) {
		for _, d := range v.Machine().Devices() {
			if d.Device != device || d.Conn == 0 {
				continue
			}
			ans.Online = true
			ans.Owner = &DeviceOwner{OwnerPodID: g.opt.PodID, OwnerURL: g.opt.PublicURL, Generation: uint64(d.Conn),
				Status: OwnerAwaitingHeartbeat, LeaseExpiresAt: d.IdleDeadline.UnixMilli()}
			if d.Known {
				ans.Owner.Status = OwnerReady
			}
		}
	})
	if err != nil {
		fail(w, http.StatusServiceUnavailable, CodeInternal, "core is stopping")
		return
	}
	writeJSON(w, ans)
}

// Wait waits up to d for every connection handler to finish (after the
// loop stopped and closed them), so close frames reach the peers.
func (g *Gateway) Wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() { g.live.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

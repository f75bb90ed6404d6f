package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
)

// BodyBytesMax bounds a request body.
const BodyBytesMax = 1 << 20

// Error codes: the operator routes answer {"error": <code>, "detail":
// <text>} with the codes of Codes; the machine's named errors keep their
// codes in the Agents API's errors too.
const (
	CodeUnauthorized     = "unauthorized"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeBadJSON          = "bad_json"
	CodeUnknownField     = "unknown_field"
	CodeBodyTooLarge     = "body_too_large"
	// CodeBodyTimeout: the request body did not arrive within the body
	// read deadline of the server (turnstile core -body-read-timeout).
	CodeBodyTimeout   = "body_timeout"
	CodeInvalidConfig = "invalid_config"
	// CodeEngineUnqualified: the engine profile catalog does not qualify
	// the kind, placement, an operation or an MCP origin the request needs.
	CodeEngineUnqualified     = "engine_unqualified"
	CodeInvalidInput          = "invalid_input"
	CodeUnknownSession        = "unknown_session"
	CodeUnknownTurn           = "unknown_turn"
	CodeTurnTerminal          = "turn_terminal"
	CodeCancelPending         = "cancel_pending"
	CodeSessionLimit          = "session_limit"
	CodeQueueFull             = "queue_full"
	CodeInputLimit            = "input_limit"
	CodeCapabilityUnsupported = "capability_unsupported"
	// CodeSessionUnrecoverable: the Session's next Turn needs
	// native_session_recovery and no device of the pool declares it.
	CodeSessionUnrecoverable = "session_unrecoverable"
	CodeSubscriberLimit      = "subscriber_limit"
	CodeIdempotencyConflict  = "idempotency_conflict"
	CodeBadLastEventID       = "bad_last_event_id"
	CodeBadLimit             = "bad_limit"
	CodeBadCursor            = "bad_cursor"
	CodeUnavailable          = "unavailable"
	CodeInternal             = "internal"
)

// Codes lists every error code of the operator routes (the Error schema
// of the OpenAPI document, checked by a test). The machine's codes of
// Session creation, Turn submission, steering, cancel and Turn lists are
// the Agents API's (V1ErrorDetail).
var Codes = []string{CodeUnauthorized, CodeMethodNotAllowed, CodeBadJSON, CodeUnknownField,
	CodeBodyTooLarge, CodeUnknownSession, CodeUnknownTurn, CodeTurnTerminal, CodeCapabilityUnsupported,
	CodeIdempotencyConflict, CodeUnavailable, CodeInternal, CodeNoWorkspace, CodeInvalidWorkspaceRequest,
	CodeWorkspaceBusy, CodeWorkspaceMutationPending, CodeIdempotencyUnsupported, CodeUnknownInteraction,
	CodeInteractionClosed, CodeDecisionInFlight, CodeInvalidAnswer, CodeNoEnvironmentDefinition,
	CodePreparationUnavailable, CodeBodyTimeout}

// machineErrors maps the machine's named errors to status and code.
var machineErrors = []struct {
	err    error
	status int
	code   string
}{
	{core.ErrInvalidConfig, 400, CodeInvalidConfig},
	{core.ErrEngineUnqualified, 400, CodeEngineUnqualified},
	{core.ErrInvalidInput, 400, CodeInvalidInput},
	{core.ErrUnknownSession, 404, CodeUnknownSession},
	{core.ErrUnknownTurn, 404, CodeUnknownTurn},
	{core.ErrTurnTerminal, 409, CodeTurnTerminal},
	{core.ErrCancelPending, 409, CodeCancelPending},
	{core.ErrCapabilityUnsupported, 409, CodeCapabilityUnsupported},
	{core.ErrSessionUnrecoverable, 409, CodeSessionUnrecoverable},
	{core.ErrSessionLimit, 429, CodeSessionLimit},
	{core.ErrQueueFull, 429, CodeQueueFull},
	{core.ErrInputLimit, 429, CodeInputLimit},
	{core.ErrSubscriberLimit, 429, CodeSubscriberLimit},
	{core.ErrBadLimit, 400, CodeBadLimit},
	{core.ErrBadCursor, 400, CodeBadCursor},
	{core.ErrNoWorkspace, 409, CodeNoWorkspace},
	{core.ErrInvalidWorkspaceRequest, 400, CodeInvalidWorkspaceRequest},
	{core.ErrWorkspaceBusy, 409, CodeWorkspaceBusy},
	{core.ErrWorkspaceMutationPending, 409, CodeWorkspaceMutationPending},
	{core.ErrUnknownInteraction, 404, CodeUnknownInteraction},
	{core.ErrInteractionClosed, 409, CodeInteractionClosed},
	{core.ErrDecisionInFlight, 409, CodeDecisionInFlight},
	{core.ErrInvalidAnswer, 400, CodeInvalidAnswer},
	{core.ErrNoEnvironmentDefinition, 404, CodeNoEnvironmentDefinition},
	{core.ErrPreparationUnavailable, 409, CodePreparationUnavailable},
}

// Options configure the API.
type Options struct {
	// OperatorToken authenticates every call (Authorization: Bearer).
	OperatorToken string
	Logger        *slog.Logger
	// Keys verifies the API keys of /v1 (Authorization: Bearer). Nil:
	// every /v1 call is 401 invalid_api_key.
	Keys KeyVerifier
	// Resources keeps the /v1 objects that are not machine state. Nil: an
	// in-memory store (lost when the process ends).
	Resources ResourceStore
	// ProviderKeys keeps the write-only api_key of an Agent's model
	// provider. Nil: the Vaults when VaultKey is set, else an api_key is
	// refused.
	ProviderKeys ProviderKeyStore
	// VaultKey encrypts Vault credential secrets at rest (vault.go). Nil:
	// the credential routes answer 503 vault_key_unconfigured.
	VaultKey *VaultKey
}

// API is the public HTTP API over a server.Server.
type API struct {
	s         *server.Server
	tokenHash [32]byte
	log       *slog.Logger
	keys      KeyVerifier
	res       ResourceStore
	provKeys  ProviderKeyStore
	vaults    *Vaults
	// mu serialises read-modify-write updates of /v1 resources.
	mu sync.Mutex
	// idx lists each Session's Turns (loop goroutine only).
	idx turnIndex
	// gone are the Sessions deleted from the Agents API.
	gone deletedSessions
	// turnTimes caches the latest Turns' creation times.
	turnTimes turnTimes
}

// New returns the API; an empty operator token is refused.
func New(s *server.Server, opt Options) (*API, error) {
	if opt.OperatorToken == "" {
		return nil, errors.New("api: an operator token is required")
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Resources == nil {
		opt.Resources = NewMemoryResources()
	}
	vaults := NewVaults(opt.Resources, opt.VaultKey)
	if opt.ProviderKeys == nil && opt.VaultKey != nil {
		opt.ProviderKeys = vaults
	}
	return &API{s: s, tokenHash: sha256.Sum256([]byte(opt.OperatorToken)), log: opt.Logger,
		keys: opt.Keys, res: opt.Resources, provKeys: opt.ProviderKeys, vaults: vaults}, nil
}

// OperatorPrefix is the administrator prefix of Core's own operator
// routes, authenticated by the operator token: devices, suspensions, and
// the Session operations the Agents API has no form for (the Session's
// environment view, workspace reads and export, a Turn's delivery view,
// user-choice answers).
const OperatorPrefix = "/core/v1"

// Route is one endpoint of the API.
type Route struct {
	Method, Path string
	handler      func(*API, http.ResponseWriter, *http.Request)
}

// Routes lists the endpoints; Register mounts exactly these, and the
// OpenAPI document describes exactly these (checked by a test).
func Routes() []Route {
	operator := []Route{
		{"GET", OperatorPrefix + "/devices", (*API).listDevices},
		{"POST", OperatorPrefix + "/devices", (*API).enrolDevice}, // admin.go
		{"POST", OperatorPrefix + "/devices/{device}/revoke", (*API).revokeDevice},
		{"GET", OperatorPrefix + "/keys", (*API).listKeys},
		{"POST", OperatorPrefix + "/keys", (*API).addKey},
		{"POST", OperatorPrefix + "/keys/{key}/revoke", (*API).revokeKey},
		{"GET", OperatorPrefix + "/kinds", (*API).listKinds},
		{"GET", OperatorPrefix + "/preparations", (*API).listPreparations},
		{"GET", OperatorPrefix + "/suspensions", (*API).listSuspensions},
		{"GET", OperatorPrefix + "/sessions/{session}/environment", (*API).getEnvironment},
		{"GET", OperatorPrefix + "/sessions/{session}/workspace/file", (*API).readFile},
		{"GET", OperatorPrefix + "/sessions/{session}/workspace/directory", (*API).listDirectory},
		{"GET", OperatorPrefix + "/sessions/{session}/workspace/export", (*API).exportWorkspace},
		{"GET", OperatorPrefix + "/turns/{turn}", (*API).getTurn},
		{"POST", OperatorPrefix + "/turns/{turn}/user-choices/{interaction}", (*API).answerUserChoice},
		{"POST", OperatorPrefix + "/suspensions", (*API).quiesce}, // fencing.go
		{"GET", OperatorPrefix + "/suspensions/{suspend}", (*API).getSuspension},
		{"POST", OperatorPrefix + "/suspensions/{suspend}/resume", (*API).resume},
	}
	return append(operator, v1Routes()...)
}

// v1Routes are the routes under V1Prefix, mounted by registerV1.
func v1Routes() []Route {
	var out []Route
	out = append(out, agentRoutes()...)
	out = append(out, sessionRoutes()...)
	out = append(out, Route{"POST", "/v1/agents/sessions/{session}/events", (*API).postSessionEvents},
		Route{"GET", "/v1/agents/sessions/{session}/events", (*API).sessionEventsV1})
	out = append(out, turnRoutes()...)
	out = append(out, vaultRoutes()...)
	out = append(out, environmentRoutes()...)
	return out
}

// Register mounts the API on mux. A known path with another method gets a
// 405 error body.
func (a *API) Register(mux *http.ServeMux) {
	paths := map[string]bool{}
	var v1 []Route
	for _, r := range Routes() {
		if strings.HasPrefix(r.Path, V1Prefix+"/") {
			v1 = append(v1, r)
			continue
		}
		h := r.handler
		mux.HandleFunc(r.Method+" "+r.Path, func(w http.ResponseWriter, req *http.Request) {
			if !a.authorized(req) {
				fail(w, http.StatusUnauthorized, CodeUnauthorized, "Authorization: Bearer <operator token> required")
				return
			}
			h(a, w, req)
		})
		if !paths[r.Path] {
			paths[r.Path] = true
			mux.HandleFunc(r.Path, func(w http.ResponseWriter, _ *http.Request) {
				fail(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method not allowed on this path")
			})
		}
	}
	a.registerV1(mux, v1)
}

func (a *API) authorized(r *http.Request) bool {
	v := r.Header.Get("Authorization")
	tok, ok := bytes.CutPrefix([]byte(v), []byte("Bearer "))
	sum := sha256.Sum256(bytes.TrimSpace(tok))
	return subtle.ConstantTimeCompare(sum[:], a.tokenHash[:]) == 1 && ok
}

type errorBody struct {
	Error  string `json:"error"`
	Detail string `json:"detail"`
}

func fail(w http.ResponseWriter, status int, code, detail string) {
	writeJSON(w, status, errorBody{Error: code, Detail: detail})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, []byte(`{"error":"internal","detail":"encoding failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// badRequest is a decoding failure with its code; status 0 is 400.
type badRequest struct {
	code, detail string
	status       int
}

func (e *badRequest) Error() string { return e.detail }

// readBody reads at most BodyBytesMax bytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, BodyBytesMax))
	if err != nil {
		return nil, bodyError(err, BodyBytesMax)
	}
	return b, nil
}

// bodyError names a failed body read: over limit bytes (413
// body_too_large, on every route), past the body
// read deadline the server set on the connection (408 body_timeout), or
// unreadable.
func bodyError(err error, limit int64) *badRequest {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return &badRequest{code: CodeBodyTooLarge, detail: fmt.Sprintf("body over %d bytes", limit),
			status: http.StatusRequestEntityTooLarge}
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &badRequest{code: CodeBodyTimeout, detail: "request body not received within the body read deadline",
			status: http.StatusRequestTimeout}
	}
	return &badRequest{code: CodeBadJSON, detail: "body could not be read"}
}

// decodeStrict decodes one JSON object into v: unknown members, trailing
// data and wrong types are named errors.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ):
			return &badRequest{code: CodeBadJSON, detail: fmt.Sprintf("member %q: want %s", typ.Field, typ.Type)}
		case errors.As(err, &syn), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return &badRequest{code: CodeBadJSON, detail: "body is not valid JSON"}
		case bytes.HasPrefix([]byte(err.Error()), []byte("json: unknown field")):
			return &badRequest{code: CodeUnknownField, detail: err.Error()[len("json: "):]}
		}
		return &badRequest{code: CodeBadJSON, detail: "body is not a valid JSON object"}
	}
	if dec.More() {
		return &badRequest{code: CodeBadJSON, detail: "trailing data after the JSON object"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &badRequest{code: CodeBadJSON, detail: "trailing data after the JSON object"}
	}
	return nil
}

func (a *API) failErr(w http.ResponseWriter, err error) {
	var br *badRequest
	switch {
	case errors.As(err, &br):
		status := br.status
		if status == 0 {
			status = http.StatusBadRequest
		}
		if status == http.StatusRequestTimeout {
			w.Header().Set("Connection", "close")
		}
		fail(w, status, br.code, br.detail)
	case errors.Is(err, server.ErrStopped), errors.Is(err, context.Canceled):
		fail(w, http.StatusServiceUnavailable, CodeUnavailable, "core is stopping")
	default:
		for _, m := range machineErrors {
			if errors.Is(err, m.err) {
				fail(w, m.status, m.code, err.Error())
				return
			}
		}
		a.log.Error("api call failed", "err", err)
		fail(w, http.StatusInternalServerError, CodeInternal, "internal error")
	}
}

// answer is the stored form of a POST answer (for Idempotency-Key).
type answer struct {
	Fingerprint string          `json:"fp"`
	Status      int             `json:"status"`
	Body        json.RawMessage `json:"body"`
}

// render turns a machine result into status and body.
type render func(core.APIResult) (int, any)

func errorAnswer(err error) (int, any) {
	for _, m := range machineErrors {
		if errors.Is(err, m.err) {
			return m.status, errorBody{Error: m.code, Detail: err.Error()}
		}
	}
	return 500, errorBody{Error: CodeInternal, Detail: "internal error"}
}

// post runs a mutating call, honouring Idempotency-Key durably: the
// answer is stored in the commit of the call's own writes, and a retry
// with the same key (and the same body) gets it back and changes nothing.
func (a *API) post(w http.ResponseWriter, r *http.Request, body []byte, ev func(core.CallID) core.Event, rd render) {
	key := r.Header.Get("Idempotency-Key")
	fp := sha256.Sum256(body)
	req := server.Request{Event: ev}
	if key != "" {
		req.IdempotencyKey = r.Method + " " + r.URL.Path + " " + key
		req.Answer = func(res core.APIResult) []byte {
			st, v := renderResult(res, rd)
			b, _ := json.Marshal(v)
			out, _ := json.Marshal(answer{Fingerprint: hex.EncodeToString(fp[:]), Status: st, Body: b})
			return out
		}
	}
	rep, err := a.s.Call(r.Context(), req)
	if err != nil {
		a.failErr(w, err)
		return
	}
	if key == "" {
		st, v := renderResult(rep.Result, rd)
		writeJSON(w, st, v)
		return
	}
	var ans answer
	if err := json.Unmarshal(rep.Stored, &ans); err != nil {
		a.failErr(w, err)
		return
	}
	if rep.Replayed && ans.Fingerprint != hex.EncodeToString(fp[:]) {
		fail(w, http.StatusUnprocessableEntity, CodeIdempotencyConflict, "Idempotency-Key reused with a different body")
		return
	}
	if rep.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ans.Status)
	_, _ = w.Write(append(ans.Body, '\n'))
}

func renderResult(res core.APIResult, rd render) (int, any) {
	if res.Err != nil {
		return errorAnswer(res.Err)
	}
	return rd(res)
}

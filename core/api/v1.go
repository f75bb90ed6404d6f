package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/core/store"
)

// V1Prefix is the mount of the Agents API (the OpenAI SDK's beta Agents
// resources, base URL <core>/v1).
const V1Prefix = "/v1"

// V1BodyBytesMax bounds a /v1 request body: the seeds' inline limit.
const V1BodyBytesMax = 5 << 20

// Error types of /v1 answers ({"error":{"message","type","param","code"}}).
const (
	TypeInvalidRequest = "invalid_request_error"
	TypeAuthentication = "authentication_error"
	TypeRateLimit      = "rate_limit_error"
	TypeServer         = "server_error"
)

// Error codes only /v1 answers (besides the machine's codes, which keep
// their names).
const (
	CodeInvalidAPIKey   = "invalid_api_key"
	CodeUnknownRoute    = "unknown_route"
	CodeInvalidValue    = "invalid_value"
	CodeUnknownAgent    = "unknown_agent"
	CodeNotSupported    = "not_supported"
	CodeKeysUnavailable = "keys_unavailable"
)

// KeyVerifier checks the secret of an API key (Authorization: Bearer on
// /v1). ok is false for an unknown or revoked key; err is a failure to
// check (answered 503, never 401).
type KeyVerifier interface {
	VerifyKey(ctx context.Context, secret string) (keyID string, ok bool, err error)
}

// ResourceStore keeps the /v1 objects that are not machine state (agents,
// API keys, vaults, credentials) as JSON documents by kind and ID, in
// creation order. MemoryResources and sqlitestore.Store implement
// it; store.ErrResourceCursor names an unknown `after`.
type ResourceStore interface {
	PutResource(ctx context.Context, kind, id string, doc []byte) error
	GetResource(ctx context.Context, kind, id string) (doc []byte, ok bool, err error)
	ListResources(ctx context.Context, q store.ResourceQuery) (store.ResourcePage, error)
	DeleteResource(ctx context.Context, kind, id string) (ok bool, err error)
}

// V1Error is the body of every /v1 error answer.
type V1Error struct {
	Error V1ErrorDetail `json:"error"`
}

// V1ErrorDetail is an OpenAI-shaped error: Param and Code are null when
// they do not apply.
type V1ErrorDetail struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// typeFor is the error type of a status.
func typeFor(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return TypeAuthentication
	case status == http.StatusTooManyRequests:
		return TypeRateLimit
	case status >= 500:
		return TypeServer
	}
	return TypeInvalidRequest
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// failV1 answers an OpenAI-shaped error; an empty typ is the status's
// type, an empty code or param is null.
func failV1(w http.ResponseWriter, status int, typ, code, param, msg string) {
	if typ == "" {
		typ = typeFor(status)
	}
	if status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable && status < 500 {
		// The SDK retries 408, 409, 429 and 5xx unless told otherwise:
		// a refusal of this API is final.
		w.Header().Set("X-Should-Retry", "false")
	}
	writeJSON(w, status, V1Error{V1ErrorDetail{Message: msg, Type: typ, Param: strOrNil(param), Code: strOrNil(code)}})
}

// v1Bad is a request refused before anything ran: status, code, param.
type v1Bad struct {
	status      int
	code, param string
	msg         string
}

func (e *v1Bad) Error() string { return e.msg }

// badParam is a 400 naming the parameter at fault.
func badParam(code, param, format string, args ...any) error {
	return &v1Bad{status: http.StatusBadRequest, code: code, param: param, msg: fmt.Sprintf(format, args...)}
}

// notFound is a 404 naming the parameter that names the missing object.
func notFound(code, param, format string, args ...any) error {
	return &v1Bad{status: http.StatusNotFound, code: code, param: param, msg: fmt.Sprintf(format, args...)}
}

// failV1Err answers err: a refusal of this package keeps its status and
// code, a named machine error its status and code, a stopping Core 503,
// anything else 500 (logged, never echoed).
func (a *API) failV1Err(w http.ResponseWriter, err error) {
	var vb *v1Bad
	var br *badRequest
	var rf *v1Refusal
	switch {
	case errors.As(err, &rf):
		failV1(w, rf.status, rf.detail.Type, deref(rf.detail.Code), deref(rf.detail.Param), rf.detail.Message)
	case errors.As(err, &vb):
		failV1(w, vb.status, "", vb.code, vb.param, vb.msg)
	case errors.As(err, &br):
		st := http.StatusBadRequest
		if br.status != 0 {
			st = br.status
		}
		failV1(w, st, "", br.code, unknownFieldParam(br), br.detail)
	case errors.Is(err, store.ErrResourceCursor):
		failV1(w, http.StatusBadRequest, "", CodeBadCursor, "after", "after names no object of this list")
	case errors.Is(err, server.ErrStopped), errors.Is(err, context.Canceled):
		failV1(w, http.StatusServiceUnavailable, "", CodeUnavailable, "", "core is stopping")
	default:
		for _, m := range machineErrors {
			if errors.Is(err, m.err) {
				failV1(w, m.status, "", m.code, "", err.Error())
				return
			}
		}
		a.log.Error("api call failed", "err", err)
		failV1(w, http.StatusInternalServerError, "", CodeInternal, "", "internal error")
	}
}

// unknownFieldParam is the member an unknown_field or bad_json refusal
// names, when it names one.
func unknownFieldParam(br *badRequest) string {
	if br.code != CodeUnknownField && br.code != CodeBadJSON {
		return ""
	}
	if i := strings.IndexByte(br.detail, '"'); i >= 0 {
		if j := strings.IndexByte(br.detail[i+1:], '"'); j >= 0 {
			return br.detail[i+1 : i+1+j]
		}
	}
	return ""
}

// readV1 reads a /v1 body of at most V1BodyBytesMax bytes and decodes it
// strictly into v (an empty body is an empty object when allowEmpty).
func readV1(w http.ResponseWriter, r *http.Request, v any, allowEmpty bool) ([]byte, error) {
	b, err := readV1Body(w, r)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 && allowEmpty {
		b = []byte(`{}`)
	}
	if err := decodeStrict(b, v); err != nil {
		return nil, err
	}
	return b, nil
}

// readV1Body reads a /v1 body of at most V1BodyBytesMax bytes.
func readV1Body(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var b []byte
	if n := r.ContentLength; n > 0 && n <= V1BodyBytesMax {
		// The declared size and room to see the end, up to 64 KiB: a
		// larger body grows the buffer as it arrives.
		b = make([]byte, 0, min(n, 64<<10)+1)
	}
	b, err := readAll(b, http.MaxBytesReader(w, r.Body, V1BodyBytesMax))
	if err != nil {
		return nil, bodyError(err, V1BodyBytesMax)
	}
	return b, nil
}

// readAll appends what r holds to b until EOF.
func readAll(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

type keyIDKey struct{}

// KeyID is the ID of the API key that authenticated the /v1 request of
// ctx ("" outside /v1).
func KeyID(ctx context.Context) string {
	id, _ := ctx.Value(keyIDKey{}).(string)
	return id
}

// newID returns prefix_ followed by 24 random hex digits.
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// registerV1 mounts the /v1 routes behind one handler: it authenticates
// (Bearer API key through Options.Keys), then dispatches; a path no route
// has is 404 unknown_route, a known path with another method 405
// method_not_allowed, both OpenAI-shaped.
func (a *API) registerV1(mux *http.ServeMux, routes []Route) {
	var served, shapes layeredMux // method patterns; the same paths without methods
	known := map[string]bool{}
	for _, r := range routes {
		h := r.handler
		served.handle(r.Method+" "+r.Path, func(w http.ResponseWriter, req *http.Request) { h(a, w, req) })
		if !known[r.Path] {
			known[r.Path] = true
			shapes.handle(r.Path, func(http.ResponseWriter, *http.Request) {})
		}
	}
	route := served.serveOr(func(w http.ResponseWriter, r *http.Request) {
		if shapes.match(r) != nil {
			failV1(w, http.StatusMethodNotAllowed, "", CodeMethodNotAllowed, "", fmt.Sprintf("%s is not allowed on %s", r.Method, r.URL.Path))
			return
		}
		failV1(w, http.StatusNotFound, "", CodeUnknownRoute, "", fmt.Sprintf("no route %s %s", r.Method, r.URL.Path))
	})
	h := func(w http.ResponseWriter, r *http.Request) {
		keyID, ok := a.authorizeV1(w, r)
		if !ok {
			return
		}
		route.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyIDKey{}, keyID)))
	}
	mux.HandleFunc(V1Prefix+"/", h)
	mux.HandleFunc(V1Prefix, h)
}

// authorizeV1 checks Authorization: Bearer <API key>; it answers the
// refusal itself.
func (a *API) authorizeV1(w http.ResponseWriter, r *http.Request) (string, bool) {
	secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	secret = strings.TrimSpace(secret)
	if !ok || secret == "" {
		failV1(w, http.StatusUnauthorized, "", CodeInvalidAPIKey, "", "Authorization: Bearer <API key> required")
		return "", false
	}
	if a.keys == nil {
		failV1(w, http.StatusUnauthorized, "", CodeInvalidAPIKey, "", "no API key is accepted: Core has no key verifier")
		return "", false
	}
	id, ok, err := a.keys.VerifyKey(r.Context(), secret)
	if err != nil {
		a.log.Error("api key check failed", "err", err)
		failV1(w, http.StatusServiceUnavailable, "", CodeKeysUnavailable, "", "the API key could not be checked")
		return "", false
	}
	if !ok {
		failV1(w, http.StatusUnauthorized, "", CodeInvalidAPIKey, "", "unknown or revoked API key")
		return "", false
	}
	return id, true
}

// ListParams are the cursor parameters of a /v1 list: after (an ID of the
// list), limit (1..100, default 20) and order (asc or desc; the default
// is the route's).
type ListParams struct {
	After string
	Limit int
	Desc  bool
}

// V1ListLimitMax bounds the limit of a /v1 list.
const V1ListLimitMax = 100

// listParams reads after, limit and order; any other query parameter is
// refused unless extra names it.
func listParams(r *http.Request, descDefault bool, extra ...string) (ListParams, error) {
	q := r.URL.Query()
	p := ListParams{Limit: 20, Desc: descDefault}
	for name, vs := range q {
		if len(vs) != 1 {
			return p, badParam(CodeInvalidValue, name, "%s given %d times", name, len(vs))
		}
		v := vs[0]
		switch name {
		case "after":
			if v == "" {
				return p, badParam(CodeBadCursor, "after", "after must be an ID")
			}
			p.After = v
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > V1ListLimitMax {
				return p, badParam(CodeBadLimit, "limit", "limit must be an integer in 1..%d", V1ListLimitMax)
			}
			p.Limit = n
		case "order":
			switch v {
			case "asc":
				p.Desc = false
			case "desc":
				p.Desc = true
			default:
				return p, badParam(CodeInvalidValue, "order", "order must be asc or desc")
			}
		default:
			known := false
			for _, e := range extra {
				known = known || e == name
			}
			if !known {
				return p, badParam(CodeInvalidValue, name, "unknown query parameter %q", name)
			}
		}
	}
	return p, nil
}

// Page is a /v1 cursor page: {"object":"list","data",...}; FirstID and
// LastID are null on an empty page. The SDK pages with after=<last id>.
type Page struct {
	Object  string  `json:"object"`
	Data    []any   `json:"data"`
	FirstID *string `json:"first_id"`
	LastID  *string `json:"last_id"`
	HasMore bool    `json:"has_more"`
}

// newPage builds a page of items with their IDs.
func newPage(items []any, ids []string, hasMore bool) Page {
	p := Page{Object: "list", Data: items, HasMore: hasMore}
	if p.Data == nil {
		p.Data = []any{}
	}
	if len(ids) > 0 {
		p.FirstID, p.LastID = &ids[0], &ids[len(ids)-1]
	}
	return p
}

// listResources answers one page of a kind from the resource store,
// each document turned into its answer by view.
func (a *API) listResources(w http.ResponseWriter, r *http.Request, kind string, view func([]byte) (any, error)) {
	p, err := listParams(r, true)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	page, err := a.res.ListResources(r.Context(), store.ResourceQuery{Kind: kind, After: p.After, Limit: p.Limit, Desc: p.Desc})
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	items, ids := make([]any, 0, len(page.Items)), make([]string, 0, len(page.Items))
	for _, it := range page.Items {
		v, err := view(it.Doc)
		if err != nil {
			a.failV1Err(w, err)
			return
		}
		items, ids = append(items, v), append(ids, it.ID)
	}
	writeJSON(w, http.StatusOK, newPage(items, ids, page.HasMore))
}

// staticKey accepts one secret.
type staticKey struct {
	id   string
	hash [32]byte
}

// StaticKey is a KeyVerifier accepting exactly one secret, as key id
// (compared by SHA-256 in constant time).
func StaticKey(id, secret string) KeyVerifier {
	return staticKey{id: id, hash: sha256.Sum256([]byte(secret))}
}

func (k staticKey) VerifyKey(_ context.Context, secret string) (string, bool, error) {
	sum := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(sum[:], k.hash[:]) != 1 {
		return "", false, nil
	}
	return k.id, true, nil
}

// Deleted is the answer of a delete: {"id","object":"<kind>.deleted","deleted":true}.
type Deleted struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

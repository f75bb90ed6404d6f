package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
)

// API keys of the tests: key_live is valid, key_down fails to be checked;
// any other secret is unknown.
const apiKey = "sk-test-live"

type testKeys struct{}

func (testKeys) VerifyKey(_ context.Context, secret string) (string, bool, error) {
	switch secret {
	case apiKey:
		return "key_live", true, nil
	case "sk-test-down":
		return "", false, errors.New("key store unreachable")
	}
	return "", false, nil
}

// v1 sends a /v1 request with the API key (header pairs override it) and
// returns status and body.
func (e *env) v1(method, path, body string, header ...string) (int, string) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("OpenAI-Beta", "agents=v1")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// v1Err decodes an OpenAI-shaped error body; it fails the test on any
// other shape.
func v1Err(t *testing.T, body string) api.V1ErrorDetail {
	t.Helper()
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &raw); err != nil || len(raw) != 1 {
		t.Fatalf("not an error object: %s", body)
	}
	e := raw["error"]
	for _, k := range []string{"message", "type", "param", "code"} {
		if _, ok := e[k]; !ok || len(e) != 4 {
			t.Fatalf("error %s: want exactly message, type, param, code", body)
		}
	}
	var out api.V1Error
	_ = json.Unmarshal([]byte(body), &out)
	return out.Error
}

func code(d api.V1ErrorDetail) string {
	if d.Code == nil {
		return ""
	}
	return *d.Code
}

func param(d api.V1ErrorDetail) string {
	if d.Param == nil {
		return ""
	}
	return *d.Param
}

// expectV1 checks status, type and code of an error answer.
func expectV1(t *testing.T, what string, st int, body string, wantSt int, wantType, wantCode string) api.V1ErrorDetail {
	t.Helper()
	if st != wantSt {
		t.Fatalf("%s: %d %s, want %d", what, st, body, wantSt)
	}
	d := v1Err(t, body)
	if d.Type != wantType || code(d) != wantCode || d.Message == "" {
		t.Fatalf("%s: %s, want type %s code %s", what, body, wantType, wantCode)
	}
	return d
}

func TestV1RefusesMissingUnknownAndUncheckableKeys(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		name, auth string
		st         int
		typ, code  string
	}{
		{"no header", "", 401, api.TypeAuthentication, api.CodeInvalidAPIKey},
		{"not bearer", "Basic " + apiKey, 401, api.TypeAuthentication, api.CodeInvalidAPIKey},
		{"empty bearer", "Bearer ", 401, api.TypeAuthentication, api.CodeInvalidAPIKey},
		{"unknown key", "Bearer sk-test-other", 401, api.TypeAuthentication, api.CodeInvalidAPIKey},
		{"the operator token is no API key", "Bearer " + token, 401, api.TypeAuthentication, api.CodeInvalidAPIKey},
		{"key check fails", "Bearer sk-test-down", 503, api.TypeServer, api.CodeKeysUnavailable},
	} {
		st, body := e.v1("GET", "/v1/agents", "", "Authorization", c.auth)
		d := expectV1(t, c.name, st, body, c.st, c.typ, c.code)
		if strings.Contains(body, "sk-test") {
			t.Fatalf("%s: the answer echoes the secret: %s", c.name, body)
		}
		_ = d
	}
}

func TestV1UnknownRoutesAre404(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"/v1", "/v1/", "/v1/nothing", "/v1/responses", "/v1/agents/sessions/s/nothing",
		"/v1/agents/vaults", "/v1/agents/automations", "/v1/agents/automations/a1",
		"/v1/agents/sessions/s-1/subagents", "/v1/agents/sessions/s-1/traces"} {
		st, body := e.v1("GET", p, "")
		expectV1(t, p, st, body, 404, api.TypeInvalidRequest, api.CodeUnknownRoute)
	}
	for _, m := range []string{"POST", "DELETE"} {
		for _, p := range []string{"/v1/agents/vaults", "/v1/agents/automations"} {
			st, body := e.v1(m, p, "{}")
			expectV1(t, m+" "+p, st, body, 404, api.TypeInvalidRequest, api.CodeUnknownRoute)
		}
	}
	st, body := e.v1("DELETE", "/v1/agents/sessions", "")
	expectV1(t, "DELETE sessions", st, body, 404, api.TypeInvalidRequest, api.CodeUnknownRoute)
	// Authentication comes first: an unknown route without a key is 401.
	st, body = e.v1("GET", "/v1/nothing", "", "Authorization", "")
	expectV1(t, "unauthenticated", st, body, 401, api.TypeAuthentication, api.CodeInvalidAPIKey)
}

// A key without a verifier is refused, whatever it is.
func TestV1WithoutKeyVerifierRefusesEveryKey(t *testing.T) {
	e := newEnv(t)
	mux := http.NewServeMux()
	a, err := api.New(e.s, api.Options{OperatorToken: token})
	if err != nil {
		t.Fatal(err)
	}
	a.Register(mux)
	req, _ := http.NewRequest("GET", "/v1/agents", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	expectV1(t, "no verifier", rec.Code, rec.Body.String(), 401, api.TypeAuthentication, api.CodeInvalidAPIKey)
}

func TestStaticKey(t *testing.T) {
	k := api.StaticKey("operator", "s3cret")
	if id, ok, err := k.VerifyKey(context.Background(), "s3cret"); id != "operator" || !ok || err != nil {
		t.Fatalf("right secret: %q %v %v", id, ok, err)
	}
	for _, s := range []string{"", "s3cre", "s3cret ", "S3CRET"} {
		if id, ok, err := k.VerifyKey(context.Background(), s); id != "" || ok || err != nil {
			t.Fatalf("secret %q: %q %v %v", s, id, ok, err)
		}
	}
}

package api_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/internal/openaisdk"
)

// sdkRoutesFile is the route table of the pinned OpenAI SDK's beta Agents
// resources (internal/openaisdk.Routes of the package `make openai-sdk`
// fetches), written by
//
//	go test ./core/api -run TestSDKRouteTableMatchesThePackage -update-sdk-routes
const sdkRoutesFile = "testdata/sdk-routes.json"

var updateSDKRoutes = flag.Bool("update-sdk-routes", false, "rewrite "+sdkRoutesFile+" from the pinned OpenAI SDK package")

func sdkRoutes(t *testing.T) []openaisdk.Route {
	t.Helper()
	b, err := os.ReadFile(sdkRoutesFile)
	if err != nil {
		t.Fatal(err)
	}
	var routes []openaisdk.Route
	if err := json.Unmarshal(b, &routes); err != nil {
		t.Fatalf("%s: %v", sdkRoutesFile, err)
	}
	if len(routes) == 0 {
		t.Fatalf("%s: no route", sdkRoutesFile)
	}
	return routes
}

// The checked-in table is what the pinned package's resource files call,
// byte for byte.
func TestSDKRouteTableMatchesThePackage(t *testing.T) {
	modules := openaisdk.Modules(t)
	routes, err := openaisdk.Routes(filepath.Join(modules, "openai"))
	if err != nil {
		t.Fatal(err)
	}
	want := openaisdk.MarshalRoutes(routes)
	if *updateSDKRoutes {
		if err := os.WriteFile(sdkRoutesFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(sdkRoutesFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from openai@%s's routes; rewrite it with\n"+
			"  go test ./core/api -run TestSDKRouteTableMatchesThePackage -update-sdk-routes\nwant:\n%s", sdkRoutesFile, openaisdk.Version, want)
	}
}

// paramRe matches a path parameter of a route pattern or a table path.
var paramRe = regexp.MustCompile(`\{[^}]*\}`)

// shape is a route with its parameter names dropped: "GET /v1/agents/{}".
func shape(method, path string) string {
	return method + " " + paramRe.ReplaceAllString(path, "{}")
}

// checkOpenAIError fails unless body is {"error":{"message","type","param",
// "code"}} with a non-empty message and type, and param and code present
// (a string or null). It returns the code.
func checkOpenAIError(t *testing.T, what string, header http.Header, body []byte) string {
	t.Helper()
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want application/json: %s", what, ct, body)
	}
	var e struct {
		Error map[string]json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == nil {
		t.Errorf("%s: not an OpenAI error body (%v): %s", what, err, body)
		return ""
	}
	var message, typ, code string
	okString := func(name string, into *string) bool {
		raw, ok := e.Error[name]
		return ok && json.Unmarshal(raw, into) == nil && *into != ""
	}
	nullOrString := func(name string, into *string) bool {
		raw, ok := e.Error[name]
		return ok && (string(raw) == "null" || json.Unmarshal(raw, into) == nil)
	}
	var param string
	if !okString("message", &message) || !okString("type", &typ) || !nullOrString("param", &param) || !nullOrString("code", &code) {
		t.Errorf("%s: error body lacks message, type, param or code: %s", what, body)
	}
	return code
}

// documentedStatuses lists, per route shape, the response statuses the
// OpenAPI document gives the operation.
func documentedStatuses(t *testing.T) map[string][]int {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]int{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for status := range op.Responses {
				n, err := strconv.Atoi(status)
				if err != nil {
					continue
				}
				k := shape(strings.ToUpper(method), path)
				out[k] = append(out[k], n)
			}
		}
	}
	return out
}

// concrete fills a table path's parameters with IDs no resource has.
func concrete(path string) string {
	return paramRe.ReplaceAllStringFunc(path, func(p string) string {
		return strings.Trim(p, "{}") + "_unknown0"
	})
}

// refusal reports whether an answer refuses a route Core does not serve:
// 404 unknown_route, 405 method_not_allowed (the path is served with
// another method) or 501.
func refusal(status int, code string) bool {
	return status == http.StatusNotFound && code == api.CodeUnknownRoute ||
		status == http.StatusMethodNotAllowed && code == api.CodeMethodNotAllowed ||
		status == http.StatusNotImplemented
}

// Every route the pinned SDK calls is either served by Core's router
// (listed by api.Routes and in the OpenAPI document, and answering only
// statuses the document gives it) or refused with an OpenAI-shaped error
// (404 unknown_route, 405 method_not_allowed or 501), never a silent 2xx
// and never another route's answer (a pattern such as /v1/agents/{agent_id}
// catching /v1/agents/sessions). The request is the SDK's own
// form: /v1 under the base URL, a Bearer API key, OpenAI-Beta: agents=v1;
// its IDs name no resource and a POST carries {}. A served POST with
// malformed JSON or a body over the 5 MiB inline limit is refused with a
// documented status. Without the key every route is 401 with an
// OpenAI-shaped error.
func TestSDKRoutesServedOrRefused(t *testing.T) {
	routes := sdkRoutes(t)
	e := newSDKEnv(t)
	served := map[string]bool{}
	for _, r := range api.Routes() {
		served[shape(r.Method, r.Path)] = true
	}
	documented := documentedStatuses(t)
	var gaps []string
	for _, r := range routes {
		path := "/v1" + r.Path
		k := shape(r.Method, path)
		what := r.SDK + " (" + r.Method + " " + path + ")"
		body := ""
		if r.Method == "POST" {
			body = "{}"
		}
		status, header, b := e.sdkDo(r.Method, "/v1"+concrete(r.Path), body, true)
		if status >= 200 && status < 300 {
			var obj struct {
				Object string `json:"object"`
			}
			if !served[k] {
				t.Errorf("%s: not routed, yet %d: %s", what, status, b)
			} else if !r.Stream && (json.Unmarshal(b, &obj) != nil || obj.Object == "") {
				t.Errorf("%s: %d without an OpenAI object: %q", what, status, b)
			}
		} else {
			code := checkOpenAIError(t, what, header, b)
			switch {
			case !served[k] && !refusal(status, code):
				t.Errorf("%s: not routed, answered %d %s (another route's answer?), want 404 %s, 405 %s or 501: %s",
					what, status, code, api.CodeUnknownRoute, api.CodeMethodNotAllowed, b)
			case served[k] && !slices.Contains(documented[k], status):
				t.Errorf("%s: answered %d (%s), the document gives %v: %s", what, status, code, documented[k], b)
			}
		}
		if served[k] && documented[k] == nil {
			t.Errorf("%s: routed but not in the OpenAPI document", what)
		}
		if !served[k] {
			gaps = append(gaps, what)
		}
		if served[k] && r.Method == "POST" {
			// Bad bodies on a served POST: refused as documented, never 2xx.
			for _, bad := range []struct{ name, body string }{
				{"malformed JSON", `{"metadata":`},
				{"a body over the inline limit", `{"metadata":{"k":"` + strings.Repeat("x", api.V1BodyBytesMax) + `"}}`},
			} {
				status, header, b := e.sdkDo(r.Method, "/v1"+concrete(r.Path), bad.body, true)
				code := ""
				if status < 300 {
					t.Errorf("%s with %s: %d: %.200s", what, bad.name, status, b)
				} else {
					code = checkOpenAIError(t, what+" with "+bad.name, header, b)
				}
				if status >= 300 && !slices.Contains(documented[k], status) {
					t.Errorf("%s with %s: answered %d (%s), the document gives %v", what, bad.name, status, code, documented[k])
				}
			}
		}
		status, header, b = e.sdkDo(r.Method, "/v1"+concrete(r.Path), body, false)
		if status != http.StatusUnauthorized {
			t.Errorf("%s without an API key: %d, want 401: %s", what, status, b)
		} else {
			checkOpenAIError(t, what+" without an API key", header, b)
		}
	}
	t.Logf("%d of the SDK's %d routes are served; refused: %d", len(routes)-len(gaps), len(routes), len(gaps))
	for _, g := range gaps {
		t.Logf("refused: %s", g)
	}
}

// sdkDo sends one request the way the SDK does; with key false it
// carries no Authorization header.
func (e *sdkEnv) sdkDo(method, path, body string, key bool) (int, http.Header, []byte) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, e.base+path, rd)
	req.Header.Set("OpenAI-Beta", "agents=v1")
	req.Header.Set("Accept", "application/json")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

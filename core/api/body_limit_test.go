package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
)

// Every route that reads a body answers an oversized one (over the
// largest limit, the Agents API's inline 5 MiB) 413 body_too_large, before
// anything else looks at the request.
func TestOversizedBodyIs413OnEveryRoute(t *testing.T) {
	e := newEnvWith(t, api.Options{OperatorToken: token, Keys: testKeys{}, VaultKey: testVaultKey(t, 5)})
	sid := e.session()
	big := `{"text":"` + strings.Repeat("a", api.V1BodyBytesMax) + `"}`
	n := 0
	for _, r := range api.Routes() {
		if r.Method != "POST" && r.Method != "PUT" {
			continue
		}
		if strings.HasPrefix(r.Path, "/v1/agents/environments/templates") {
			continue // refused whatever the body: Core serves no templates
		}
		n++
		path := r.Path
		for _, name := range []string{"session", "turn", "interaction", "call", "suspend", "agent", "vault", "credential", "environment", "template"} {
			path = strings.ReplaceAll(path, "{"+name+"}", sid)
		}
		auth := "Bearer " + token
		if strings.HasPrefix(path, "/v1/") {
			auth = "Bearer " + apiKey
		}
		status, body, _ := e.do(r.Method, path, big, "Authorization", auth)
		// The operator routes answer {"error": code}, the Agents API
		// {"error": {"code": code}}.
		var eb struct{ Error json.RawMessage }
		_ = json.Unmarshal([]byte(body), &eb)
		var code string
		var nested struct{ Code string }
		if json.Unmarshal(eb.Error, &code) != nil && json.Unmarshal(eb.Error, &nested) == nil {
			code = nested.Code
		}
		if status != 413 || code != api.CodeBodyTooLarge {
			t.Errorf("%s %s: %d %s, want 413 body_too_large", r.Method, r.Path, status, body)
		}
	}
	if n < 10 {
		t.Fatalf("only %d routes with a body", n)
	}
}

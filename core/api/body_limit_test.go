package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
)

// Every route that reads a body answers an oversized one 413
// body_too_large, before anything else looks at the request.
func TestOversizedBodyIs413OnEveryRoute(t *testing.T) {
	e := newEnv(t)
	sid := e.session()
	big := `{"text":"` + strings.Repeat("a", api.WriteBodyBytesMax) + `"}`
	n := 0
	for _, r := range api.Routes() {
		if r.Method != "POST" && r.Method != "PUT" {
			continue
		}
		n++
		path := r.Path
		for _, name := range []string{"session", "turn", "interaction", "call", "suspend"} {
			path = strings.ReplaceAll(path, "{"+name+"}", sid)
		}
		status, body, _ := e.do(r.Method, path, big)
		var eb struct{ Error string }
		_ = json.Unmarshal([]byte(body), &eb)
		if status != 413 || eb.Error != api.CodeBodyTooLarge {
			t.Errorf("%s %s: %d %s, want 413 body_too_large", r.Method, r.Path, status, body)
		}
	}
	if n < 10 {
		t.Fatalf("only %d routes with a body", n)
	}
}

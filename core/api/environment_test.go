package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
)

// A Session with an inline openai_hosted environment freezes its
// definition; the operator's environment view of the Session shows it
// pending before any connection prepared it.
func TestEnvironmentDefinitionOverHTTP(t *testing.T) {
	e := newEnv(t)
	zip := b64("PK-zip-bytes")
	s := e.v1Session(`{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"openai_hosted",` +
		`"files":[{"type":"inline","path":"/workspace/a.txt","data":"` + b64("hello") + `"}],` +
		`"skills":[{"type":"inline","name":"lint","description":"lints","source":{"type":"base64","media_type":"application/zip","data":"` + zip + `"}}],` +
		`"setup_commands":[{"command":"make setup","cwd":"/workspace"}]}}`)
	hello := sha256.Sum256([]byte("hello"))
	if d := e.frozen(s.ID).Definition; d == nil || len(d.Files) != 1 || string(d.Files[0].Content) != "hello" ||
		d.Files[0].SHA256 != hex.EncodeToString(hello[:]) || len(d.Skills) != 1 || len(d.Setup) != 1 || d.Setup[0].Command != "make setup" {
		t.Fatalf("stored definition %+v", d)
	}
	st, body, _ := e.do("GET", "/core/v1/sessions/"+s.ID+"/environment", "")
	if st != 200 {
		t.Fatalf("get: %d %s", st, body)
	}
	var got api.EnvironmentJSON
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.SessionID != s.ID || got.State != "pending" || got.Preparations == nil || len(got.Preparations) != 0 {
		t.Fatalf("environment before any connection: %s", body)
	}
	plain := e.session()
	for _, c := range []struct{ path, code string }{
		{"/core/v1/sessions/" + plain + "/environment", api.CodeNoEnvironmentDefinition},
		{"/core/v1/sessions/s-404/environment", api.CodeUnknownSession},
	} {
		if st, body, _ := e.do("GET", c.path, ""); st != 404 || field(t, body, "error") != c.code {
			t.Errorf("%s: %d %s, want 404 %s", c.path, st, body, c.code)
		}
	}
	if st, body := e.v1("GET", "/core/v1/sessions/"+s.ID+"/environment", ""); st != 401 {
		t.Fatalf("an API key reads the operator view: %d %s", st, body)
	}
}

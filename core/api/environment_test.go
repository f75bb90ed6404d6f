package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/server"
)

const defEnvID = "6f1c2a34-5b6d-4e7f-8a9b-0c1d2e3f4a5b"

func definedBody(definition string) string {
	return `{"agent":{"kind":"contract","model":"m"},"environment":{"type":"self_hosted","id":"` + defEnvID +
		`","definition":` + definition + `}}`
}

func TestEnvironmentDefinitionOverHTTP(t *testing.T) {
	e := newEnv(t)
	st, body, _ := e.do("POST", "/api/v1/sessions", definedBody(
		`{"files":[{"path":"/workspace/a.txt","content_base64":"aGVsbG8="}],`+
			`"skills":[{"name":"lint","description":"lints","content_base64":"emlw"}],`+
			`"setup":[{"command":"make setup","network":"enabled"}]}`))
	if st != 201 {
		t.Fatalf("create: %d %s", st, body)
	}
	sid := field(t, body, "session_id")
	var rec core.SessionRecord
	if err := e.s.Query(context.Background(), func(v server.View) { rec, _ = v.Backend().Session(sid) }); err != nil {
		t.Fatal(err)
	}
	hello := sha256.Sum256([]byte("hello"))
	if d := rec.Agent.Definition; d == nil || len(d.Files) != 1 || string(d.Files[0].Content) != "hello" ||
		d.Files[0].SHA256 != hex.EncodeToString(hello[:]) || len(d.Skills) != 1 || d.Setup[0].Network != "enabled" {
		t.Fatalf("stored definition %+v", rec.Agent.Definition)
	}
	st, body, _ = e.do("GET", "/api/v1/sessions/"+sid+"/environment", "")
	if st != 200 {
		t.Fatalf("get: %d %s", st, body)
	}
	var got api.EnvironmentJSON
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.SessionID != sid || got.State != "pending" || got.Preparations == nil || len(got.Preparations) != 0 {
		t.Fatalf("environment before any connection: %s", body)
	}

	plain := e.session()
	for _, c := range []struct{ path, code string }{
		{"/api/v1/sessions/" + plain + "/environment", api.CodeNoEnvironmentDefinition},
		{"/api/v1/sessions/s-404/environment", api.CodeUnknownSession},
	} {
		if st, body, _ := e.do("GET", c.path, ""); st != 404 || field(t, body, "error") != c.code {
			t.Errorf("%s: %d %s, want 404 %s", c.path, st, body, c.code)
		}
	}
}

func TestEnvironmentDefinitionRefusedOverHTTP(t *testing.T) {
	e := newEnv(t)
	writes := e.writes()
	for _, c := range []struct{ name, body, code string }{
		{"content not base64", definedBody(`{"files":[{"path":"/workspace/a","content_base64":"%%%"}]}`), api.CodeInvalidConfig},
		{"skill content not base64", definedBody(`{"skills":[{"name":"s","description":"d","content_base64":"!"}]}`), api.CodeInvalidConfig},
		{"path outside the workspace", definedBody(`{"files":[{"path":"/etc/x","content_base64":""}]}`), api.CodeInvalidConfig},
		{"empty definition", definedBody(`{}`), api.CodeInvalidConfig},
		{"setup without command", definedBody(`{"setup":[{"cwd":"/workspace"}]}`), api.CodeInvalidConfig},
		{"unknown member", definedBody(`{"archives":[]}`), api.CodeUnknownField},
		{"setup with env", definedBody(`{"setup":[{"command":"x","env":{"A":"1"}}]}`), api.CodeUnknownField},
		{"definition without environment", `{"agent":{"kind":"contract","model":"m"},"environment":{"type":"none","definition":{"setup":[{"command":"x"}]}}}`, api.CodeInvalidConfig},
		{"environment ID not a UUID", `{"agent":{"kind":"contract","model":"m"},"environment":{"type":"self_hosted","id":"env-1","definition":{"setup":[{"command":"x"}]}}}`, api.CodeInvalidConfig},
	} {
		st, body, _ := e.do("POST", "/api/v1/sessions", c.body)
		if st != 400 || field(t, body, "error") != c.code {
			t.Errorf("%s: %d %s, want 400 %s", c.name, st, body, c.code)
		}
	}
	if w := e.writes(); w != writes {
		t.Fatalf("refused sessions wrote %d records", w-writes)
	}
}

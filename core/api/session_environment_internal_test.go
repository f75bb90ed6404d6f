package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
)

// TestSessionEnvironmentBinding: a Session's environment parameter maps
// onto Core's binding: none; self_hosted (recorded, /workspace only);
// openai_hosted inline (its definition); a created Environment by
// environment_id (its binding, definition and vaults).
func TestSessionEnvironmentBinding(t *testing.T) {
	ctx := context.Background()
	res := NewMemoryResources()
	a := &API{res: res, vaults: NewVaults(res, nil)}
	none, err := a.bindEnvironment(ctx, json.RawMessage(`{"type":"none"}`))
	if err != nil || none.Kind != core.EnvNone || none.CoreID != "" || string(none.Answer) != `{"type":"none"}` {
		t.Fatalf("none: %+v %v", none, err)
	}
	self, err := a.bindEnvironment(ctx, json.RawMessage(`{"type":"self_hosted","workspace_directory":"/workspace","capability_directories":null}`))
	if err != nil || self.Kind != core.EnvSelfHosted || len(self.CoreID) != 36 || self.Definition != nil || !strings.HasPrefix(self.PublicID, "env_") {
		t.Fatalf("self_hosted: %+v %v", self, err)
	}
	if _, err := a.getEnvironmentRecord(ctx, self.PublicID); err == nil {
		t.Fatal("binding recorded the environment before its Session exists")
	}
	if err := a.recordBinding(ctx, self); err != nil {
		t.Fatal(err)
	}
	if rec, err := a.getEnvironmentRecord(ctx, self.PublicID); err != nil || rec.CoreID != self.CoreID {
		t.Fatalf("self_hosted record: %+v %v", rec, err)
	}
	if err := a.recordBinding(ctx, none); err != nil || len(snapshotKind(t, res, EnvironmentRecordKind)) != 1 {
		t.Fatalf("recording none: %v", err)
	}
	inline, err := a.bindEnvironment(ctx, json.RawMessage(`{"type":"openai_hosted","setup_commands":[{"command":"true"}]}`))
	if err != nil || inline.Kind != core.EnvOpenAIHosted || inline.Definition == nil || len(inline.Definition.Setup) != 1 ||
		inline.Definition.Setup[0].Command != "true" {
		t.Fatalf("inline openai_hosted: %+v %v", inline, err)
	}
	vid := "vault_1"
	_ = a.vaults.putJSON(ctx, VaultKind, vid, VaultObject{ID: vid, Object: "vault", Metadata: map[string]string{}})
	rec, err := newHostedRecord("environment", hostedParams{Type: "openai_hosted",
		Files: []json.RawMessage{json.RawMessage(`{"type":"inline","path":"/workspace/a","data":"YQ=="}`)}}, []string{vid})
	if err == nil {
		err = a.putEnvironment(ctx, rec)
	}
	if err != nil {
		t.Fatal(err)
	}
	ref, err := a.bindEnvironment(ctx, json.RawMessage(`{"type":"openai_hosted","environment_id":"`+rec.Info.ID+`"}`))
	if err != nil || ref.CoreID != rec.CoreID || ref.Definition == nil || string(ref.Definition.Files[0].Content) != "a" ||
		len(ref.VaultIDs) != 1 || ref.VaultIDs[0] != vid || ref.PublicID != rec.Info.ID {
		t.Fatalf("reference: %+v %v", ref, err)
	}
	answer := ref.Answer
	if !strings.Contains(string(answer), `"type":"openai_hosted"`) || !strings.Contains(string(answer), rec.CoreID) ||
		strings.Contains(string(answer), "YQ==") {
		t.Fatalf("answer %s", answer)
	}
	before := len(snapshotKind(t, res, EnvironmentRecordKind))
	for _, c := range []struct{ name, raw, code, param string }{
		{"missing", ``, CodeInvalidValue, "environment"},
		{"null", `null`, CodeInvalidValue, "environment"},
		{"not an object", `"none"`, CodeBadJSON, "environment"},
		{"unknown type", `{"type":"docker"}`, CodeInvalidValue, "environment.type"},
		{"none with members", `{"type":"none","workspace_directory":"/w"}`, CodeUnknownField, "environment.workspace_directory"},
		{"self_hosted without directory", `{"type":"self_hosted"}`, CodeInvalidValue, "environment.workspace_directory"},
		{"self_hosted elsewhere", `{"type":"self_hosted","workspace_directory":"/srv/app"}`, CodeNotSupported, "environment.workspace_directory"},
		{"self_hosted capabilities", `{"type":"self_hosted","workspace_directory":"/workspace","capability_directories":["/c"]}`, CodeNotSupported, "environment.capability_directories"},
		{"unknown environment", `{"type":"openai_hosted","environment_id":"env_nope"}`, CodeUnknownEnvironment, "environment_id"},
		{"reference with configuration", `{"type":"openai_hosted","environment_id":"` + rec.Info.ID + `","files":[]}`, CodeInvalidValue, "environment"},
		{"reference to a self_hosted one", `{"type":"openai_hosted","environment_id":"` + self.PublicID + `"}`, CodeInvalidValue, "environment.environment_id"},
		{"template", `{"type":"openai_hosted","environment_template_id":"t"}`, CodeNotSupported, "environment.environment_template_id"},
	} {
		_, err := a.bindEnvironment(ctx, json.RawMessage(c.raw))
		var vb *v1Bad
		if !errors.As(err, &vb) || vb.code != c.code || vb.param != c.param {
			t.Errorf("%s: %v, want %s param %s", c.name, err, c.code, c.param)
		}
	}
	if after := len(snapshotKind(t, res, EnvironmentRecordKind)); after != before {
		t.Fatalf("refused parameters recorded %d environments", after-before)
	}
}

func snapshotKind(t *testing.T, res ResourceStore, kind string) []store.Resource {
	t.Helper()
	page, err := res.ListResources(context.Background(), store.ResourceQuery{Kind: kind, Limit: store.ResourceLimitMax})
	if err != nil {
		t.Fatal(err)
	}
	return page.Items
}

// TestLayeredMuxServesOverlappingPatterns: two patterns one ServeMux
// refuses together are both served; the one listed first wins where both
// match; the same pattern twice panics.
func TestLayeredMuxServesOverlappingPatterns(t *testing.T) {
	var l layeredMux
	hit := ""
	l.handle("GET /e/templates/{t}", func(http.ResponseWriter, *http.Request) { hit = "template" })
	l.handle("GET /e/{e}/files", func(http.ResponseWriter, *http.Request) { hit = "files" })
	if len(l.layers) != 2 {
		t.Fatalf("%d layers, want 2", len(l.layers))
	}
	for path, want := range map[string]string{"/e/templates/t1": "template", "/e/env_1/files": "files", "/e/templates/files": "template"} {
		hit = ""
		req := httptest.NewRequest("GET", path, nil)
		m := l.match(req)
		if m == nil {
			t.Fatalf("%s: no match", path)
		}
		m.ServeHTTP(httptest.NewRecorder(), req)
		if hit != want {
			t.Fatalf("%s served by %q, want %q", path, hit, want)
		}
	}
	if l.match(httptest.NewRequest("POST", "/e/env_1/files", nil)) != nil || l.match(httptest.NewRequest("GET", "/x", nil)) != nil {
		t.Fatal("a request no pattern matches was matched")
	}
	// Chained, each request is routed through the layers in order; what
	// none matches reaches the fallback.
	h := l.serveOr(func(http.ResponseWriter, *http.Request) { hit = "fallback" })
	for path, want := range map[string]string{"/e/templates/t1": "template", "/e/env_1/files": "files", "/e/templates/files": "template",
		"/x": "fallback", "/e/env_1": "fallback"} {
		for _, method := range []string{"GET", "POST"} {
			hit = ""
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, path, nil))
			if method == "POST" {
				want = "fallback"
			}
			if hit != want {
				t.Fatalf("%s %s served by %q, want %q", method, path, hit, want)
			}
		}
	}
	var pv string
	var m2 layeredMux
	m2.handle("GET /e/templates/{t}", func(http.ResponseWriter, *http.Request) {})
	m2.handle("GET /e/{e}/files", func(_ http.ResponseWriter, r *http.Request) { pv = r.PathValue("e") })
	m2.serveOr(func(http.ResponseWriter, *http.Request) {}).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/e/env_7/files", nil))
	if pv != "env_7" {
		t.Fatalf("path value in the second layer %q", pv)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a pattern registered twice did not panic")
		}
	}()
	l.handle("GET /e/{e}/files", func(http.ResponseWriter, *http.Request) {})
}

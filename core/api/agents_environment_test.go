package api_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// envRecords is every environment and vault record, to show a refused
// call wrote nothing.
func envRecords(t *testing.T, res api.ResourceStore) string {
	t.Helper()
	return snapshot(t, res, api.EnvironmentRecordKind) + snapshot(t, res, api.VaultKind)
}

func newEnvironmentEnv(t *testing.T) (*env, *api.MemoryResources) {
	res := api.NewMemoryResources()
	return newEnvWith(t, api.Options{OperatorToken: token, Keys: testKeys{}, Resources: res, VaultKey: testVaultKey(t, 5)}), res
}

func TestEnvironmentsCreateRetrieveList(t *testing.T) {
	e, _ := newEnvironmentEnv(t)
	zip := b64("PK-zip-bytes")
	body := `{"environment":{"type":"openai_hosted",
		"files":[{"type":"inline","path":"/workspace/README.md","data":"` + b64("hello") + `"}],
		"skills":[{"type":"inline","name":"lint","description":"Lints.","source":{"type":"base64","media_type":"application/zip","data":"` + zip + `"}}],
		"plugins":[{"type":"inline","name":"fmt","description":"Formats.","source":{"type":"base64","media_type":"application/zip","data":"` + zip + `"}}],
		"setup_commands":[{"command":"make deps","cwd":"/workspace"}],
		"packages":{"npm":[],"python":null},"desktop":{"enabled":false},"capability_directories":[],"env":{}}}`
	st, out := e.v1("POST", "/v1/agents/environments", body)
	if st != 200 {
		t.Fatalf("create: %d %s", st, out)
	}
	var info api.EnvironmentInfo
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.ID, "env_") || info.Object != "agent.environment" || info.Type != "openai_hosted" || info.Status != "ready" ||
		len(info.Files) != 1 || info.Files[0].Path != "/workspace/README.md" || info.Files[0].SizeBytes != 5 ||
		len(info.Skills) != 1 || info.Skills[0].Name != "lint" || len(info.Plugins) != 1 || info.Plugins[0].Description != "Formats." ||
		len(info.XAgentsCore.EnvironmentID) != 36 {
		t.Fatalf("created %s", out)
	}
	if strings.Contains(out, b64("hello")) || strings.Contains(out, zip) || strings.Contains(out, "make deps") {
		t.Fatalf("the answer carries contents or setup commands: %s", out)
	}
	if st, got := e.v1("GET", "/v1/agents/environments/"+info.ID, ""); st != 200 || got != out {
		t.Fatalf("retrieve: %d %s", st, got)
	}
	st, second := e.v1("POST", "/v1/agents/environments", `{"environment":{"type":"openai_hosted"},"vault_ids":[]}`)
	if st != 200 {
		t.Fatalf("bare create: %d %s", st, second)
	}
	sid := field(t, second, "id")
	if strings.Contains(second, info.XAgentsCore.EnvironmentID) {
		t.Fatalf("two environments share a binding: %s", second)
	}
	st, page := e.v1("GET", "/v1/agents/environments?limit=1", "")
	if st != 200 || !strings.Contains(page, sid) || !strings.Contains(page, `"has_more":true`) {
		t.Fatalf("first page (newest first): %d %s", st, page)
	}
	st, page = e.v1("GET", "/v1/agents/environments?limit=1&type=openai_hosted&after="+sid, "")
	if st != 200 || !strings.Contains(page, info.ID) || !strings.Contains(page, `"has_more":false`) {
		t.Fatalf("second page: %d %s", st, page)
	}
}

func TestEnvironmentRefusalsChangeNothing(t *testing.T) {
	e, res := newEnvironmentEnv(t)
	_, out := e.v1("POST", "/v1/agents/environments", `{"environment":{"type":"openai_hosted"}}`)
	envID := field(t, out, "id")
	hosted := func(extra string) string { return `{"environment":{"type":"openai_hosted"` + extra + `}}` }
	zip := `"source":{"type":"base64","media_type":"application/zip","data":"` + b64("z") + `"}`
	before := envRecords(t, res)
	for _, c := range []struct {
		name, method, path, body string
		header                   []string
		st                       int
		code, param              string
	}{
		{"bad JSON", "POST", "/v1/agents/environments", `{"environment":`, nil, 400, api.CodeBadJSON, ""},
		{"unknown member", "POST", "/v1/agents/environments", `{"environment":{"type":"openai_hosted"},"region":"eu"}`, nil, 400, api.CodeUnknownField, "region"},
		{"unknown environment member", "POST", "/v1/agents/environments", hosted(`,"gpu":true`), nil, 400, api.CodeUnknownField, "environment.gpu"},
		{"no environment", "POST", "/v1/agents/environments", `{}`, nil, 400, api.CodeInvalidValue, "environment"},
		{"no type", "POST", "/v1/agents/environments", `{"environment":{}}`, nil, 400, api.CodeInvalidValue, "environment.type"},
		{"unknown type", "POST", "/v1/agents/environments", `{"environment":{"type":"cloud"}}`, nil, 400, api.CodeInvalidValue, "environment.type"},
		{"self_hosted", "POST", "/v1/agents/environments", `{"environment":{"type":"self_hosted","workspace_directory":"/workspace"}}`, nil, 400, api.CodeInvalidValue, "environment.type"},
		{"reference on create", "POST", "/v1/agents/environments", hosted(`,"environment_id":"` + envID + `"`), nil, 400, api.CodeUnknownField, "environment.environment_id"},
		{"template", "POST", "/v1/agents/environments", hosted(`,"environment_template_id":"tmpl_1"`), nil, 400, api.CodeNotSupported, "environment.environment_template_id"},
		{"capability directories", "POST", "/v1/agents/environments", hosted(`,"capability_directories":["/caps"]`), nil, 400, api.CodeNotSupported, "environment.capability_directories"},
		{"env", "POST", "/v1/agents/environments", hosted(`,"env":{"A":"b"}`), nil, 400, api.CodeNotSupported, "environment.env"},
		{"network", "POST", "/v1/agents/environments", hosted(`,"network":{"access":"disabled"}`), nil, 400, api.CodeNotSupported, "environment.network"},
		{"desktop", "POST", "/v1/agents/environments", hosted(`,"desktop":{"enabled":true}`), nil, 400, api.CodeNotSupported, "environment.desktop.enabled"},
		{"packages", "POST", "/v1/agents/environments", hosted(`,"packages":{"python":["numpy"]}`), nil, 400, api.CodeNotSupported, "environment.packages"},
		{"packages member", "POST", "/v1/agents/environments", hosted(`,"packages":{"cargo":["x"]}`), nil, 400, api.CodeUnknownField, "environment.packages.cargo"},
		{"file_id file", "POST", "/v1/agents/environments", hosted(`,"files":[{"type":"file_id","file_id":"file_1","path":"/workspace/a"}]`), nil, 400, api.CodeNotSupported, "environment.files[0].type"},
		{"file bad base64", "POST", "/v1/agents/environments", hosted(`,"files":[{"type":"inline","path":"/workspace/a","data":"***"}]`), nil, 400, api.CodeInvalidValue, "environment.files[0].data"},
		{"file no data", "POST", "/v1/agents/environments", hosted(`,"files":[{"type":"inline","path":"/workspace/a"}]`), nil, 400, api.CodeInvalidValue, "environment.files[0].data"},
		{"file outside the workspace", "POST", "/v1/agents/environments", hosted(`,"files":[{"type":"inline","path":"/etc/passwd","data":""}]`), nil, 400, api.CodeInvalidValue, "environment"},
		{"file unknown member", "POST", "/v1/agents/environments", hosted(`,"files":[{"type":"inline","path":"/workspace/a","data":"","mode":"0600"}]`), nil, 400, api.CodeUnknownField, "environment.files[0].mode"},
		{"skill reference", "POST", "/v1/agents/environments", hosted(`,"skills":[{"type":"skill_reference","skill_id":"sk_1"}]`), nil, 400, api.CodeNotSupported, "environment.skills[0].type"},
		{"plugin wrong media", "POST", "/v1/agents/environments", hosted(`,"plugins":[{"type":"inline","name":"p","description":"d","source":{"type":"base64","media_type":"application/gzip","data":""}}]`), nil, 400, api.CodeInvalidValue, "environment.plugins[0].source"},
		{"plugin no source", "POST", "/v1/agents/environments", hosted(`,"plugins":[{"type":"inline","name":"p","description":"d"}]`), nil, 400, api.CodeInvalidValue, "environment.plugins[0].source"},
		{"skill bad name", "POST", "/v1/agents/environments", hosted(`,"skills":[{"type":"inline","name":"","description":"d",` + zip + `}]`), nil, 400, api.CodeInvalidValue, "environment"},
		{"setup without command", "POST", "/v1/agents/environments", hosted(`,"setup_commands":[{"command":" "}]`), nil, 400, api.CodeInvalidValue, "environment.setup_commands[0].command"},
		{"unknown vault", "POST", "/v1/agents/environments", `{"environment":{"type":"openai_hosted"},"vault_ids":["vault_nope"]}`, nil, 404, api.CodeUnknownVault, "vault_ids"},
		{"too many vaults", "POST", "/v1/agents/environments", `{"environment":{"type":"openai_hosted"},"vault_ids":["1","2","3","4","5","6","7","8","9","10","11"]}`, nil, 400, api.CodeInvalidValue, "vault_ids"},
		{"idempotency key", "POST", "/v1/agents/environments", hosted(``), []string{"Idempotency-Key", "k1"}, 400, api.CodeNotSupported, "Idempotency-Key"},
		{"body too large", "POST", "/v1/agents/environments", hosted(`,"files":[{"type":"inline","path":"/workspace/a","data":"` + strings.Repeat("A", api.V1BodyBytesMax) + `"}]`), nil, 413, api.CodeBodyTooLarge, ""},
		{"unknown environment", "GET", "/v1/agents/environments/env_nope", "", nil, 404, api.CodeUnknownEnvironment, "environment_id"},
		{"list self_hosted", "GET", "/v1/agents/environments?type=self_hosted", "", nil, 400, api.CodeInvalidValue, "type"},
		{"list unknown parameter", "GET", "/v1/agents/environments?status=ready", "", nil, 400, api.CodeInvalidValue, "status"},
		{"list bad cursor", "GET", "/v1/agents/environments?after=env_nope", "", nil, 400, api.CodeBadCursor, "after"},
		{"delete environment", "DELETE", "/v1/agents/environments/" + envID, "", nil, 405, api.CodeMethodNotAllowed, ""},

		{"template create", "POST", "/v1/agents/environments/templates", `{"name":"t"}`, nil, 400, api.CodeNotSupported, ""},
		{"template list", "GET", "/v1/agents/environments/templates", "", nil, 400, api.CodeNotSupported, ""},
		{"template retrieve", "GET", "/v1/agents/environments/templates/tmpl_1", "", nil, 400, api.CodeNotSupported, ""},
		{"template named files", "GET", "/v1/agents/environments/templates/files", "", nil, 400, api.CodeNotSupported, ""},
		{"template update", "POST", "/v1/agents/environments/templates/tmpl_1", `{}`, nil, 400, api.CodeNotSupported, ""},
		{"template delete", "DELETE", "/v1/agents/environments/templates/tmpl_1", "", nil, 400, api.CodeNotSupported, ""},
		{"artifact list", "GET", "/v1/agents/sessions/s-1/artifacts", "", nil, 400, api.CodeNotSupported, ""},
		{"artifact retrieve", "GET", "/v1/agents/sessions/s-1/artifacts/a1", "", nil, 400, api.CodeNotSupported, ""},
		{"artifact delete", "DELETE", "/v1/agents/sessions/s-1/artifacts/a1", "", nil, 400, api.CodeNotSupported, ""},
		{"artifact content", "GET", "/v1/agents/sessions/s-1/artifacts/a1/content", "", nil, 400, api.CodeNotSupported, ""},

		{"file in unknown environment", "POST", "/v1/agents/environments/env_nope/files", `{"type":"inline","path":"/workspace/a","data":""}`, nil, 404, api.CodeUnknownEnvironment, "environment_id"},
		{"file before a Session", "POST", "/v1/agents/environments/" + envID + "/files", `{"type":"inline","path":"/workspace/a","data":"` + b64("x") + `"}`, nil, 409, api.CodeEnvironmentNotConnected, "environment_id"},
		{"list files before a Session", "GET", "/v1/agents/environments/" + envID + "/files", "", nil, 409, api.CodeEnvironmentNotConnected, "environment_id"},
		{"file_id upload", "POST", "/v1/agents/environments/" + envID + "/files", `{"type":"file_id","file_id":"file_1","path":"/workspace/a"}`, nil, 400, api.CodeNotSupported, "type"},
		{"file unknown type", "POST", "/v1/agents/environments/" + envID + "/files", `{"type":"url","path":"/workspace/a"}`, nil, 400, api.CodeInvalidValue, "type"},
		{"file relative path", "POST", "/v1/agents/environments/" + envID + "/files", `{"type":"inline","path":"a.txt","data":""}`, nil, 400, api.CodeInvalidValue, "path"},
		{"file escaping path", "POST", "/v1/agents/environments/" + envID + "/files", `{"type":"inline","path":"/workspace/../etc/x","data":""}`, nil, 400, api.CodeInvalidValue, "path"},
		{"file the root", "POST", "/v1/agents/environments/" + envID + "/files", `{"type":"inline","path":"/workspace","data":""}`, nil, 400, api.CodeInvalidValue, "path"},
		{"file bad base64", "POST", "/v1/agents/environments/" + envID + "/files", `{"type":"inline","path":"/workspace/a","data":"***"}`, nil, 400, api.CodeInvalidValue, "data"},
		{"file unknown member", "POST", "/v1/agents/environments/" + envID + "/files", `{"type":"inline","path":"/workspace/a","data":"","mode":1}`, nil, 400, api.CodeUnknownField, "mode"},
		{"file bad JSON", "POST", "/v1/agents/environments/" + envID + "/files", `[`, nil, 400, api.CodeBadJSON, ""},
		{"file with Idempotency-Key", "POST", "/v1/agents/environments/" + envID + "/files", `{"type":"inline","path":"/workspace/a","data":""}`, []string{"Idempotency-Key", "k"}, 400, api.CodeNotSupported, "Idempotency-Key"},
		{"files bad limit", "GET", "/v1/agents/environments/" + envID + "/files?limit=101", "", nil, 400, api.CodeBadLimit, "limit"},
		{"files bad order", "GET", "/v1/agents/environments/" + envID + "/files?order=size", "", nil, 400, api.CodeInvalidValue, "order"},
		{"files bad page", "GET", "/v1/agents/environments/" + envID + "/files?page=***", "", nil, 400, api.CodeBadCursor, "page"},
		{"files outside", "GET", "/v1/agents/environments/" + envID + "/files?path=/tmp", "", nil, 400, api.CodeInvalidValue, "path"},
		{"files unknown parameter", "GET", "/v1/agents/environments/" + envID + "/files?after=x", "", nil, 400, api.CodeInvalidValue, "after"},
	} {
		req, _ := newV1Request(e, c.method, c.path, c.body)
		for i := 0; i+1 < len(c.header); i += 2 {
			req.Header.Set(c.header[i], c.header[i+1])
		}
		resp, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		resp.Body.Close()
		d := v1Err(t, b.String())
		if resp.StatusCode != c.st || code(d) != c.code || param(d) != c.param || d.Message == "" {
			t.Errorf("%s: %d %s, want %d %s param %q", c.name, resp.StatusCode, b.String(), c.st, c.code, c.param)
		}
	}
	if after := envRecords(t, res); after != before {
		t.Fatalf("refused calls changed the records:\n%s\n%s", before, after)
	}
}

// TestEnvironmentFilesWithoutDevice: with a Session bound to the
// Environment (its x_agents_core.environment_id) and no device, a file
// write and a listing go through the machine and answer 503
// workspace_unavailable (no_device), never a fabricated success.
func TestEnvironmentFilesWithoutDevice(t *testing.T) {
	e, _ := newEnvironmentEnv(t)
	_, out := e.v1("POST", "/v1/agents/environments", `{"environment":{"type":"openai_hosted"}}`)
	var info api.EnvironmentInfo
	_ = json.Unmarshal([]byte(out), &info)
	st, body := e.v1("POST", "/v1/agents/sessions", `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"openai_hosted","environment_id":"`+info.ID+`"}}`)
	if st != 200 {
		t.Fatalf("session: %d %s", st, body)
	}
	st, body = e.v1("POST", "/v1/agents/environments/"+info.ID+"/files", `{"type":"inline","path":"/workspace/a.txt","data":"`+b64("x")+`"}`)
	if d := expectV1(t, "write", st, body, 503, api.TypeServer, api.CodeWorkspaceUnavailable); !strings.Contains(d.Message, "no_device") {
		t.Fatalf("write: %s", body)
	}
	st, body = e.v1("GET", "/v1/agents/environments/"+info.ID+"/files?path=/workspace&order=asc", "")
	expectV1(t, "list", st, body, 503, api.TypeServer, api.CodeWorkspaceUnavailable)
}

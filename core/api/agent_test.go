package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
)

const v1AgentBody = `{"model":"gpt-test","name":"helper","instructions":"be brief","metadata":{"team":"core"},` +
	`"text":{"verbosity":"low"},"tools":[{"type":"function","name":"lookup","description":"find","parameters":{"type":"object"}}],` +
	`"x_agents_core":{"harness":"contract","harness_config":{"sandbox":"none"}}}`

func decodeAgent(t *testing.T, body string) api.AgentObject {
	t.Helper()
	var a api.AgentObject
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("agent %s: %v", body, err)
	}
	return a
}

func TestAgentsCreateRetrieveUpdateDelete(t *testing.T) {
	e := newEnv(t)
	st, body := e.v1("POST", "/v1/agents", v1AgentBody)
	if st != 200 {
		t.Fatalf("create: %d %s", st, body)
	}
	a := decodeAgent(t, body)
	if a.Object != "agent" || !strings.HasPrefix(a.ID, "agent_") || a.Model != "gpt-test" || *a.Name != "helper" ||
		*a.Instructions != "be brief" || a.Metadata["team"] != "core" || a.Text.Verbosity != "low" || a.Text.Format.Type != "text" ||
		len(a.Tools) != 1 || a.Tools[0].Name != "lookup" || *a.Tools[0].Description != "find" || *a.Tools[0].DeferLoading ||
		a.XAgentsCore.Harness != "contract" || string(a.XAgentsCore.HarnessConfig) != `{"sandbox":"none"}` ||
		a.ServiceTier != "auto" || a.CreatedAt == 0 || a.UpdatedAt != a.CreatedAt {
		t.Fatalf("created %s", body)
	}
	for _, m := range []string{`"reasoning":{"effort":null,"summary":null}`, `"multi_agent":{"enabled":false,"max_concurrent_subagents":null}`,
		`"model_provider":null`, `"compaction":{"async":false}`} {
		if !strings.Contains(body, m) {
			t.Fatalf("created agent lacks %s: %s", m, body)
		}
	}
	st, got := e.v1("GET", "/v1/agents/"+a.ID, "")
	if st != 200 || got != body {
		t.Fatalf("retrieve: %d %s\nwant %s", st, got, body)
	}
	// Update: absent members stay, null clears, metadata is replaced.
	st, body = e.v1("POST", "/v1/agents/"+a.ID, `{"name":null,"metadata":{"x":"y"},"x_agents_core":{"harness_config":null}}`)
	u := decodeAgent(t, body)
	if st != 200 || u.Name != nil || *u.Instructions != "be brief" || len(u.Metadata) != 1 || u.Metadata["x"] != "y" ||
		string(u.XAgentsCore.HarnessConfig) != "null" || u.XAgentsCore.Harness != "contract" || len(u.Tools) != 1 || u.CreatedAt != a.CreatedAt {
		t.Fatalf("update: %d %s", st, body)
	}
	st, body = e.v1("DELETE", "/v1/agents/"+a.ID, "")
	if st != 200 || body != `{"id":"`+a.ID+`","object":"agent.deleted","deleted":true}`+"\n" {
		t.Fatalf("delete: %d %s", st, body)
	}
	for _, m := range []string{"GET", "DELETE"} {
		st, body = e.v1(m, "/v1/agents/"+a.ID, "")
		d := expectV1(t, m+" deleted", st, body, 404, api.TypeInvalidRequest, api.CodeUnknownAgent)
		if param(d) != "agent_id" {
			t.Fatalf("param %q", param(d))
		}
	}
	st, body = e.v1("POST", "/v1/agents/"+a.ID, `{"name":"again"}`)
	expectV1(t, "update deleted", st, body, 404, api.TypeInvalidRequest, api.CodeUnknownAgent)
}

func TestAgentsListPagesNewestFirst(t *testing.T) {
	e := newEnv(t)
	var ids []string
	for i := range 5 {
		st, body := e.v1("POST", "/v1/agents", fmt.Sprintf(`{"model":"m%d","x_agents_core":{"harness":"contract"}}`, i))
		if st != 200 {
			t.Fatalf("create: %d %s", st, body)
		}
		ids = append(ids, decodeAgent(t, body).ID)
	}
	type page struct {
		Object  string            `json:"object"`
		Data    []api.AgentObject `json:"data"`
		FirstID *string           `json:"first_id"`
		LastID  *string           `json:"last_id"`
		HasMore bool              `json:"has_more"`
	}
	get := func(q string) page {
		t.Helper()
		st, body := e.v1("GET", "/v1/agents"+q, "")
		var p page
		if st != 200 || json.Unmarshal([]byte(body), &p) != nil || p.Object != "list" {
			t.Fatalf("list %s: %d %s", q, st, body)
		}
		return p
	}
	p := get("?limit=2")
	if len(p.Data) != 2 || p.Data[0].ID != ids[4] || p.Data[1].ID != ids[3] || !p.HasMore || *p.FirstID != ids[4] || *p.LastID != ids[3] {
		t.Fatalf("page 1 %+v", p)
	}
	p = get("?limit=2&after=" + *p.LastID)
	if len(p.Data) != 2 || p.Data[0].ID != ids[2] || p.Data[1].ID != ids[1] || !p.HasMore {
		t.Fatalf("page 2 %+v", p)
	}
	p = get("?limit=2&after=" + *p.LastID)
	if len(p.Data) != 1 || p.Data[0].ID != ids[0] || p.HasMore {
		t.Fatalf("page 3 %+v", p)
	}
	p = get("?order=asc&limit=3")
	if len(p.Data) != 3 || p.Data[0].ID != ids[0] || !p.HasMore {
		t.Fatalf("asc %+v", p)
	}
	p = get("?order=asc&after=" + ids[4])
	if len(p.Data) != 0 || p.HasMore || p.FirstID != nil || p.LastID != nil {
		t.Fatalf("empty page %+v", p)
	}
	for _, c := range []struct{ q, code, param string }{
		{"?limit=0", api.CodeBadLimit, "limit"},
		{"?limit=101", api.CodeBadLimit, "limit"},
		{"?limit=x", api.CodeBadLimit, "limit"},
		{"?order=up", api.CodeInvalidValue, "order"},
		{"?after=agent_nothing", api.CodeBadCursor, "after"},
		{"?after=", api.CodeBadCursor, "after"},
		{"?before=x", api.CodeInvalidValue, "before"},
		{"?limit=1&limit=2", api.CodeInvalidValue, "limit"},
	} {
		st, body := e.v1("GET", "/v1/agents"+c.q, "")
		d := expectV1(t, c.q, st, body, 400, api.TypeInvalidRequest, c.code)
		if param(d) != c.param {
			t.Fatalf("%s: param %q, want %q", c.q, param(d), c.param)
		}
	}
}

// Every refused create or update answers the documented error, names the
// parameter at fault and stores nothing.
func TestAgentsRefuseBadInput(t *testing.T) {
	e := newEnv(t)
	st, body := e.v1("POST", "/v1/agents", `{"model":"m","x_agents_core":{"harness":"contract"}}`)
	if st != 200 {
		t.Fatalf("create: %d %s", st, body)
	}
	id := decodeAgent(t, body).ID
	for _, c := range []struct {
		name, body      string
		st              int
		code, wantParam string
	}{
		{"malformed", `{"model":`, 400, api.CodeBadJSON, ""},
		{"not an object", `[1]`, 400, api.CodeBadJSON, ""},
		{"trailing data", `{"model":"m","x_agents_core":{"harness":"h"}} {}`, 400, api.CodeBadJSON, ""},
		{"unknown member", `{"model":"m","colour":"red","x_agents_core":{"harness":"h"}}`, 400, api.CodeUnknownField, "colour"},
		{"model missing", `{"x_agents_core":{"harness":"h"}}`, 400, api.CodeInvalidValue, "model"},
		{"model wrong type", `{"model":7,"x_agents_core":{"harness":"h"}}`, 400, api.CodeBadJSON, "model"},
		{"harness missing", `{"model":"m"}`, 400, api.CodeInvalidValue, "x_agents_core.harness"},
		{"unknown x_agents_core member", `{"model":"m","x_agents_core":{"harness":"h","gpu":true}}`, 400, api.CodeUnknownField, "x_agents_core.gpu"},
		{"harness_config not an object", `{"model":"m","x_agents_core":{"harness":"h","harness_config":[1]}}`, 400, api.CodeInvalidValue, "x_agents_core.harness_config"},
		{"harness_config too big", `{"model":"m","x_agents_core":{"harness":"h","harness_config":{"k":"` + strings.Repeat("x", api.HarnessConfigBytesMax) + `"}}}`, 400, api.CodeInvalidValue, "x_agents_core.harness_config"},
		{"model_provider without base_url", `{"model":"m","x_agents_core":{"harness":"h","model_provider":{"protocol":"responses"}}}`, 400, api.CodeInvalidValue, "x_agents_core.model_provider"},
		{"model_provider unknown member", `{"model":"m","x_agents_core":{"harness":"h","model_provider":{"protocol":"p","base_url":"u","region":"eu"}}}`, 400, api.CodeUnknownField, "x_agents_core.model_provider.region"},
		{"api_key without a vault", `{"model":"m","x_agents_core":{"harness":"h","model_provider":{"protocol":"p","base_url":"u","api_key":"sk-prov-SECRET"}}}`, 400, api.CodeNotSupported, "x_agents_core.model_provider.api_key"},
		{"metadata too many", `{"model":"m","x_agents_core":{"harness":"h"},"metadata":{` + manyPairs(17) + `}}`, 400, api.CodeInvalidValue, "metadata"},
		{"metadata value not a string", `{"model":"m","x_agents_core":{"harness":"h"},"metadata":{"a":1}}`, 400, api.CodeBadJSON, "metadata"},
		{"reasoning effort", `{"model":"m","x_agents_core":{"harness":"h"},"reasoning":{"effort":"high"}}`, 400, api.CodeNotSupported, "reasoning"},
		{"service tier", `{"model":"m","x_agents_core":{"harness":"h"},"service_tier":"flex"}`, 400, api.CodeNotSupported, "service_tier"},
		{"verbosity", `{"model":"m","x_agents_core":{"harness":"h"},"text":{"verbosity":"loud"}}`, 400, api.CodeInvalidValue, "text.verbosity"},
		{"format", `{"model":"m","x_agents_core":{"harness":"h"},"text":{"format":{"type":"json_schema"}}}`, 400, api.CodeInvalidValue, "text.format"},
		{"web search", `{"model":"m","x_agents_core":{"harness":"h"},"tools":[{"type":"web_search"}]}`, 400, api.CodeNotSupported, "tools[0].type"},
		{"tool type", `{"model":"m","x_agents_core":{"harness":"h"},"tools":[{"type":"teleport"}]}`, 400, api.CodeInvalidValue, "tools[0].type"},
		{"function without name", `{"model":"m","x_agents_core":{"harness":"h"},"tools":[{"type":"function"}]}`, 400, api.CodeInvalidValue, "tools[0].name"},
		{"function parameters", `{"model":"m","x_agents_core":{"harness":"h"},"tools":[{"type":"function","name":"f","parameters":[]}]}`, 400, api.CodeInvalidValue, "tools[0].parameters"},
		{"async function", `{"model":"m","x_agents_core":{"harness":"h"},"tools":[{"type":"function","name":"f","async":true}]}`, 400, api.CodeNotSupported, "tools[0].async"},
		{"function with mcp member", `{"model":"m","x_agents_core":{"harness":"h"},"tools":[{"type":"function","name":"f","server_label":"x"}]}`, 400, api.CodeUnknownField, "tools[0]"},
		{"mcp stdio", `{"model":"m","x_agents_core":{"harness":"h"},"tools":[{"type":"mcp","server_label":"l","transport":{"type":"stdio","server_url":""}}]}`, 400, api.CodeInvalidValue, "tools[0]"},
		{"mcp origin", `{"model":"m","x_agents_core":{"harness":"h"},"tools":[{"type":"mcp","server_label":"l","transport":{"type":"http","server_url":"https://x"},"connection_origin":"moon"}]}`, 400, api.CodeInvalidValue, "tools[0].connection_origin"},
		{"multi_agent without enabled", `{"model":"m","x_agents_core":{"harness":"h"},"multi_agent":{}}`, 400, api.CodeInvalidValue, "multi_agent.enabled"},
		{"compaction async", `{"model":"m","x_agents_core":{"harness":"h"},"compaction":{"async":true}}`, 400, api.CodeNotSupported, "compaction.async"},
	} {
		for _, path := range []string{"/v1/agents", "/v1/agents/" + id} {
			if path != "/v1/agents" && (c.name == "model missing" || c.name == "harness missing") {
				continue // update keeps what is absent
			}
			st, body := e.v1("POST", path, c.body)
			d := expectV1(t, c.name+" "+path, st, body, c.st, api.TypeInvalidRequest, c.code)
			if param(d) != c.wantParam {
				t.Errorf("%s %s: param %q, want %q (%s)", c.name, path, param(d), c.wantParam, body)
			}
			if strings.Contains(body, "SECRET") {
				t.Fatalf("%s: the answer echoes the key: %s", c.name, body)
			}
		}
	}
	st, body = e.v1("GET", "/v1/agents", "")
	if st != 200 || strings.Count(body, `"object":"agent"`) != 1 || !strings.Contains(body, `"model":"m"`) {
		t.Fatalf("refusals changed the stored agents: %s", body)
	}
	st, body = e.v1("POST", "/v1/agents/"+id, `{"x_agents_core":null}`)
	expectV1(t, "clear x_agents_core", st, body, 400, api.TypeInvalidRequest, api.CodeInvalidValue)
}

func manyPairs(n int) string {
	var parts []string
	for i := range n {
		parts = append(parts, fmt.Sprintf(`"k%d":"v"`, i))
	}
	return strings.Join(parts, ",")
}

func TestV1BodyLimitAndMethods(t *testing.T) {
	e := newEnv(t)
	big := `{"model":"m","name":"` + strings.Repeat("x", api.V1BodyBytesMax) + `","x_agents_core":{"harness":"h"}}`
	st, body := e.v1("POST", "/v1/agents", big)
	expectV1(t, "over 5 MiB", st, body, 413, api.TypeInvalidRequest, api.CodeBodyTooLarge)
	// Just under the limit is decoded (and refused for its own reasons only).
	under := `{"model":"m","x_agents_core":{"harness":"h"},"instructions":"` + strings.Repeat("x", api.V1BodyBytesMax-100) + `"}`
	if st, body := e.v1("POST", "/v1/agents", under); st != 200 {
		t.Fatalf("a body under the limit: %d %.200s", st, body)
	}
	for _, c := range []struct{ method, path string }{
		{"PUT", "/v1/agents"}, {"DELETE", "/v1/agents"}, {"PATCH", "/v1/agents/agent_x"}, {"PUT", "/v1/agents/agent_x"},
	} {
		st, body := e.v1(c.method, c.path, "")
		expectV1(t, c.method+" "+c.path, st, body, 405, api.TypeInvalidRequest, api.CodeMethodNotAllowed)
	}
}

// providerKeys is a ProviderKeyStore of the tests: it keeps the secret
// under a reference.
type providerKeys struct{ got map[string]string }

func (p *providerKeys) StoreProviderKey(_ context.Context, agentID, secret string) (string, error) {
	if secret == "sk-prov-FAIL" {
		return "", errors.New("vault sealed")
	}
	ref := "cred_" + agentID
	p.got[ref] = secret
	return ref, nil
}

func TestAgentProviderKeyIsWriteOnly(t *testing.T) {
	e := newEnv(t)
	keys := &providerKeys{got: map[string]string{}}
	a, err := api.New(e.s, api.Options{OperatorToken: token, Keys: testKeys{}, ProviderKeys: keys})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	a.Register(mux)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	e2 := &env{t: t, s: e.s, ts: ts}
	st, body := e2.v1("POST", "/v1/agents", `{"model":"m","x_agents_core":{"harness":"contract","model_provider":`+
		`{"protocol":"responses","base_url":"https://models.example/v1","limits":{"rpm":5},"api_key":"sk-prov-SECRET"}}}`)
	if st != 200 || strings.Contains(body, "SECRET") || strings.Contains(body, "cred_") ||
		!strings.Contains(body, `"model_provider":{"protocol":"responses","base_url":"https://models.example/v1","limits":{"rpm":5},"api_key_configured":true}`) {
		t.Fatalf("create: %d %s", st, body)
	}
	id := decodeAgent(t, body).ID
	if keys.got["cred_"+id] != "sk-prov-SECRET" {
		t.Fatalf("the key was not handed to the store: %v", keys.got)
	}
	for _, path := range []string{"/v1/agents/" + id, "/v1/agents"} {
		if _, body := e2.v1("GET", path, ""); strings.Contains(body, "SECRET") || !strings.Contains(body, `"api_key_configured":true`) {
			t.Fatalf("%s: %s", path, body)
		}
	}
	// Replacing the provider without a key keeps the configured key.
	_, body = e2.v1("POST", "/v1/agents/"+id, `{"x_agents_core":{"model_provider":{"protocol":"responses","base_url":"https://other.example"}}}`)
	if !strings.Contains(body, `"api_key_configured":true`) || !strings.Contains(body, "other.example") {
		t.Fatalf("update without key: %s", body)
	}
	// Clearing the provider forgets the key.
	_, body = e2.v1("POST", "/v1/agents/"+id, `{"x_agents_core":{"model_provider":null}}`)
	if !strings.Contains(body, `"model_provider":null`) {
		t.Fatalf("cleared: %s", body)
	}
	// A store failure is a 500 that names nothing and echoes nothing.
	st, body = e2.v1("POST", "/v1/agents", `{"model":"m","x_agents_core":{"harness":"contract","model_provider":`+
		`{"protocol":"responses","base_url":"u","api_key":"sk-prov-FAIL"}}}`)
	expectV1(t, "vault failure", st, body, 500, api.TypeServer, api.CodeInternal)
	if strings.Contains(body, "FAIL") || strings.Contains(body, "sealed") {
		t.Fatalf("echoed: %s", body)
	}
}

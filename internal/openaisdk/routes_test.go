package openaisdk

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// resourceFile is a resource file in the package's generated form.
const resourceFile = `"use strict";
const path_1 = require("../../../internal/utils/path.js");
class Widgets extends resource_1.APIResource {
    constructor() {
        super(...arguments);
        this.parts = new PartsAPI.Parts(this._client);
    }
    create(body, options) {
        return this._client.post('/agents/widgets', resolveResourceRequestOptions(options, (options) => ({
            body,
        })));
    }
    retrieve(widgetID, options) {
        return this._client.get((0, path_1.path) ` + "`/agents/widgets/${widgetID}`" + `, resolveResourceRequestOptions(options, (options) => ({
        })));
    }
    list(query = {}, options) {
        return this._client.getAPIList('/agents/widgets', (pagination_1.CursorPage), resolveResourceRequestOptions(options, (options) => ({
        })));
    }
    stream(widget_id, query = {}, options) {
        return this._client.get((0, path_1.path) ` + "`/agents/widgets/${widget_id}/events`" + `, resolveResourceRequestOptions(options, (options) => ({
            stream: true,
        })));
    }
    helper(x) {
        return other(x);
    }
}
exports.Widgets = Widgets;
`

func TestFileRoutes(t *testing.T) {
	got, err := fileRoutes("beta.agents.widgets", resourceFile)
	if err != nil {
		t.Fatal(err)
	}
	want := []Route{
		{Method: "POST", Path: "/agents/widgets", SDK: "beta.agents.widgets.create"},
		{Method: "GET", Path: "/agents/widgets/{widget_id}", SDK: "beta.agents.widgets.retrieve"},
		{Method: "GET", Path: "/agents/widgets", SDK: "beta.agents.widgets.list", Page: "CursorPage"},
		{Method: "GET", Path: "/agents/widgets/{widget_id}/events", SDK: "beta.agents.widgets.stream", Stream: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("routes\n%+v\nwant\n%+v", got, want)
	}
	if r, err := fileRoutes("beta.agents", `exports.x = require("./agents.js");`); err != nil || r != nil {
		t.Fatalf("a re-export file: %v %v", r, err)
	}
}

// What the reader does not understand is an error, never a missed route.
func TestFileRoutesRefusesWhatItCannotRead(t *testing.T) {
	for name, src := range map[string]string{
		"computed path": strings.Replace(resourceFile, "this._client.post('/agents/widgets'", "this._client.post(base + '/x'", 1),
		"two calls": strings.Replace(resourceFile, "return other(x);",
			"this._client.get('/a'); return this._client.get('/b');", 1),
		"never closed":     strings.TrimSuffix(strings.Replace(resourceFile, "\n}\n", "\n", 1), "exports.Widgets = Widgets;\n"),
		"no route at all":  "class Empty extends resource_1.APIResource {\n    helper() {\n        return 1;\n    }\n}\n",
		"call outside any": "class Odd extends resource_1.APIResource {\n        this._client.get('/a');\n}\n",
	} {
		if _, err := fileRoutes("beta.agents.widgets", src); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestResourceName(t *testing.T) {
	for rel, want := range map[string]string{
		"beta/agents/agents.js":                   "beta.agents",
		"beta/agents/sessions/sessions.js":        "beta.agents.sessions",
		"beta/agents/sessions/turns/items.js":     "beta.agents.sessions.turns.items",
		"beta/agents/environments/templates.js":   "beta.agents.environments.templates",
		"beta/agents/sessions/subagents/turns.js": "beta.agents.sessions.subagents.turns",
	} {
		if got := resourceName(rel); got != want {
			t.Errorf("resourceName(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"sessionID": "session_id", "session_id": "session_id", "environmentTemplateID": "environment_template_id", "vault_id": "vault_id",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

// Routes walks the tree and sorts; a tree without a route is an error.
func TestRoutesWalksAndSorts(t *testing.T) {
	pkg := t.TempDir()
	dir := filepath.Join(pkg, AgentsDir, "widgets")
	if _, err := Routes(pkg); err == nil {
		t.Fatal("a package without the resources: no error")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "widgets.js"), []byte(resourceFile), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Routes(pkg)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range got {
		lines = append(lines, r.Method+" "+r.Path+" "+r.SDK)
	}
	want := "GET /agents/widgets beta.agents.widgets.list,POST /agents/widgets beta.agents.widgets.create," +
		"GET /agents/widgets/{widget_id} beta.agents.widgets.retrieve,GET /agents/widgets/{widget_id}/events beta.agents.widgets.stream"
	if strings.Join(lines, ",") != want {
		t.Fatalf("routes %q", lines)
	}
	if b := string(MarshalRoutes(got[:1])); b != "[\n  {\"method\":\"GET\",\"path\":\"/agents/widgets\",\"sdk\":\"beta.agents.widgets.list\",\"page\":\"CursorPage\"}\n]\n" {
		t.Fatalf("file form %q", b)
	}
}

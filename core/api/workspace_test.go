package api_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
)

const workspaceSessionBody = `{"agent":{"model":"m","x_agents_core":{"harness":"contract"}},"environment":{"type":"self_hosted","workspace_directory":"/workspace"}}`

// workspaceSession creates a Session bound to a self_hosted environment
// through /v1 and returns its ID.
func (e *env) workspaceSession() string {
	e.t.Helper()
	return e.v1Session(workspaceSessionBody).ID
}

// workspaceEnvironment is the public ID of Session sid's Environment.
func (e *env) workspaceEnvironment(sid string) string {
	e.t.Helper()
	_, body := e.v1("GET", "/v1/agents/sessions/"+sid, "")
	var s struct {
		Environment struct {
			ID string `json:"id"`
		} `json:"environment"`
	}
	if err := json.Unmarshal([]byte(body), &s); err != nil || s.Environment.ID == "" {
		e.t.Fatalf("session %s: %s", sid, body)
	}
	return s.Environment.ID
}

// TestWorkspaceRefusalsOverHTTP: each refusal is a named error before any
// Runtime work; without a device the read is answered unavailable
// (no_device) with no content, through the machine.
func TestWorkspaceRefusalsOverHTTP(t *testing.T) {
	e := newEnv(t)
	none := e.session()
	sid := e.workspaceSession()
	base := "/core/v1/sessions/" + sid + "/workspace/"
	files := "/v1/agents/environments/" + e.workspaceEnvironment(sid) + "/files"
	put := func(body string, header ...string) (int, string) {
		return e.v1("POST", files, body, header...)
	}
	content := base64.StdEncoding.EncodeToString([]byte("hello"))
	cases := []struct {
		name   string
		status int
		code   string
		got    func() (int, string)
	}{
		{"no workspace", 409, "no_workspace", func() (int, string) {
			st, b, _ := e.do("GET", "/core/v1/sessions/"+none+"/workspace/file?path=a", "")
			return st, b
		}},
		{"unknown session", 404, "unknown_session", func() (int, string) {
			st, b, _ := e.do("GET", "/core/v1/sessions/s-99/workspace/directory", "")
			return st, b
		}},
		{"bad max_bytes", 400, "invalid_workspace_request", func() (int, string) {
			st, b, _ := e.do("GET", base+"file?path=a&max_bytes=0", "")
			return st, b
		}},
		{"max_bytes over 1 MiB", 400, "invalid_workspace_request", func() (int, string) {
			st, b, _ := e.do("GET", base+"file?path=a&max_bytes=1048577", "")
			return st, b
		}},
		{"idempotency key", 400, api.CodeNotSupported, func() (int, string) {
			return put(`{"type":"inline","path":"/workspace/x","data":"`+content+`"}`, "Idempotency-Key", "k")
		}},
		{"over 5 MiB", 413, api.CodeBodyTooLarge, func() (int, string) {
			big := base64.StdEncoding.EncodeToString(make([]byte, 5<<20+1))
			return put(`{"type":"inline","path":"/workspace/x","data":"` + big + `"}`)
		}},
	}
	for _, c := range cases {
		st, body := c.got()
		if st != c.status || (field(t, body, "error") != c.code && !strings.Contains(body, `"code":"`+c.code+`"`)) {
			t.Errorf("%s: %d %s, want %d %s", c.name, st, body, c.status, c.code)
		}
	}
	st, body, _ := e.do("GET", base+"file?path=a.txt", "")
	if st != 503 || field(t, body, "outcome") != "unavailable" || field(t, body, "code") != "no_device" ||
		strings.Contains(body, "content_base64") {
		t.Fatalf("read without a device: %d %s", st, body)
	}
	st, body = put(`{"type":"inline","path":"/workspace/x","data":"` + content + `"}`)
	if st != 503 || !strings.Contains(body, api.CodeWorkspaceUnavailable) {
		t.Fatalf("write without a device: %d %s", st, body)
	}
}

// TestWorkspaceExportWithoutDevice: the export answers unavailable
// (no_device) as JSON, never an empty archive.
func TestWorkspaceExportWithoutDevice(t *testing.T) {
	e := newEnv(t)
	sid := e.workspaceSession()
	st, body, h := e.do("GET", "/core/v1/sessions/"+sid+"/workspace/export", "")
	if st != 503 || h.Get("Content-Type") != "application/json" || field(t, body, "code") != "no_device" {
		t.Fatalf("export without a device: %d %s %s", st, h.Get("Content-Type"), body)
	}
}

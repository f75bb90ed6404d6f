package api_test

import (
	"encoding/base64"
	"strings"
	"testing"
)

const workspaceSessionBody = `{"agent":{"kind":"contract","model":"m"},"environment":{"type":"self_hosted","id":"6f1c1e1a-8d1b-4c2a-9f3e-2b7d5a0c4e11"}}`

func (e *env) workspaceSession() string {
	e.t.Helper()
	st, body, _ := e.do("POST", "/api/v1/sessions", workspaceSessionBody)
	if st != 201 {
		e.t.Fatalf("create session: %d %s", st, body)
	}
	return field(e.t, body, "session_id")
}

// TestWorkspaceRefusalsOverHTTP: each refusal is a named error before any
// Runtime work; without a device the read is answered unavailable
// (no_device) with no content, through the machine.
func TestWorkspaceRefusalsOverHTTP(t *testing.T) {
	e := newEnv(t)
	none := e.session()
	sid := e.workspaceSession()
	base := "/api/v1/sessions/" + sid + "/workspace/"
	put := func(body string, header ...string) (int, string) {
		st, b, _ := e.do("PUT", base+"file", body, header...)
		return st, b
	}
	content := base64.StdEncoding.EncodeToString([]byte("hello"))
	cases := []struct {
		name   string
		status int
		code   string
		got    func() (int, string)
	}{
		{"no workspace", 409, "no_workspace", func() (int, string) {
			st, b, _ := e.do("GET", "/api/v1/sessions/"+none+"/workspace/file?path=a", "")
			return st, b
		}},
		{"unknown session", 404, "unknown_session", func() (int, string) {
			st, b, _ := e.do("GET", "/api/v1/sessions/s-99/workspace/directory", "")
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
		{"escaping write", 400, "invalid_workspace_request", func() (int, string) {
			return put(`{"path":"../x","content_base64":"` + content + `"}`)
		}},
		{"bad base64", 400, "invalid_workspace_request", func() (int, string) {
			return put(`{"path":"x","content_base64":"***"}`)
		}},
		{"unknown member", 400, "unknown_field", func() (int, string) {
			return put(`{"path":"x","content_base64":"","mode":"0644"}`)
		}},
		{"idempotency key", 400, "idempotency_unsupported", func() (int, string) {
			return put(`{"path":"x","content_base64":"`+content+`"}`, "Idempotency-Key", "k")
		}},
		{"over 5 MiB", 413, "body_too_large", func() (int, string) {
			big := base64.StdEncoding.EncodeToString(make([]byte, 5<<20+1))
			return put(`{"path":"x","content_base64":"` + big + `"}`)
		}},
	}
	for _, c := range cases {
		st, body := c.got()
		if st != c.status || field(t, body, "error") != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, st, body, c.status, c.code)
		}
	}
	st, body, _ := e.do("GET", base+"file?path=a.txt", "")
	if st != 503 || field(t, body, "outcome") != "unavailable" || field(t, body, "code") != "no_device" ||
		strings.Contains(body, "content_base64") {
		t.Fatalf("read without a device: %d %s", st, body)
	}
	st, body = put(`{"path":"x","content_base64":"` + content + `"}`)
	if st != 503 || field(t, body, "outcome") != "unavailable" {
		t.Fatalf("write without a device: %d %s", st, body)
	}
}

// TestWorkspaceExportWithoutDevice: the export answers unavailable
// (no_device) as JSON, never an empty archive.
func TestWorkspaceExportWithoutDevice(t *testing.T) {
	e := newEnv(t)
	sid := e.workspaceSession()
	st, body, h := e.do("GET", "/api/v1/sessions/"+sid+"/workspace/export", "")
	if st != 503 || h.Get("Content-Type") != "application/json" || field(t, body, "code") != "no_device" {
		t.Fatalf("export without a device: %d %s %s", st, h.Get("Content-Type"), body)
	}
}

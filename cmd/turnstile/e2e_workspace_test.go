package main

import (
	"archive/tar"
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/api"
)

const e2eEnvironment = "6f1c1e1a-8d1b-4c2a-9f3e-2b7d5a0c4e11"

// Workspace operations end to end: a real Core (API, gateway, SQLite) and
// a real daemon whose local workspace owner serves a temp directory. A
// write is installed on disk, read back after the read-only profile's
// confirmed release, listed, and exported as a tar stream.
func TestEndToEndWorkspaceWriteReadListExport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := t.TempDir()
		s := newStack(t, stackOptions{workspaces: base})
		s.waitHeartbeat()
		sid := s.createSession(map[string]any{"agent": map[string]any{"model": "synthetic-1", "x_agents_core": map[string]any{"harness": synthetic.Kind}},
			"environment": map[string]any{"type": "self_hosted", "workspace_directory": "/workspace"}})
		env := s.sessionEnvironment(sid)
		root := filepath.Join(base, env.XAgentsCore.EnvironmentID)
		if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "docs", "a.txt"), []byte("alpha"), 0o644); err != nil {
			t.Fatal(err)
		}
		ws := "/core/v1/sessions/" + sid + "/workspace/"

		var w api.EnvironmentFileJSON
		put := map[string]any{"type": "inline", "path": "/workspace/src/new.txt", "data": base64.StdEncoding.EncodeToString([]byte("fresh"))}
		if code := s.call("POST", "/v1/agents/environments/"+env.ID+"/files", put, &w); code != http.StatusOK || w.SizeBytes != 5 {
			t.Fatalf("write: %d %+v\n%s", code, w, s.logs.String())
		}
		if b, _ := os.ReadFile(filepath.Join(root, "src", "new.txt")); string(b) != "fresh" {
			t.Fatalf("on disk: %q", b)
		}
		var r api.WorkspaceAnswer
		if code := s.call("GET", ws+"file?path=docs/a.txt&max_bytes=3", nil, &r); code != http.StatusOK ||
			r.ContentBase64 == nil || *r.ContentBase64 != base64.StdEncoding.EncodeToString([]byte("alp")) || !r.Truncated {
			t.Fatalf("read: %d %+v", code, r)
		}
		var l api.WorkspaceAnswer
		if code := s.call("GET", ws+"directory", nil, &l); code != http.StatusOK || len(l.Entries) != 2 ||
			l.Entries[0].Name != "docs" || l.Entries[1].Name != "src" {
			t.Fatalf("listing: %d %+v", code, l)
		}
		if code := s.call("GET", ws+"file?path=../"+e2eEnvironment+"/docs/a.txt", nil, nil); code != http.StatusBadRequest {
			t.Fatalf("an escaping read: %d", code)
		}
		names := s.exportNames(ws + "export")
		if names["docs/a.txt"] != "alpha" || names["src/new.txt"] != "fresh" {
			t.Fatalf("archive %v", names)
		}
	})
}

// exportNames fetches an export and returns its regular files' contents.
func (s *stack) exportNames(path string) map[string]string {
	s.t.Helper()
	req, _ := http.NewRequest("GET", e2eCore+path, nil)
	req.Header.Set("Authorization", "Bearer "+e2eToken)
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-tar" {
		s.t.Fatalf("export: %d %s", resp.StatusCode, b)
	}
	out := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			s.t.Fatalf("archive: %v", err)
		}
		body, _ := io.ReadAll(tr)
		if h.Typeflag == tar.TypeReg {
			out[h.Name] = string(body)
		}
	}
}

// sessionEnvironment is the Environment a Session was bound to at its
// creation through /v1.
func (s *stack) sessionEnvironment(sid string) api.EnvironmentInfo {
	s.t.Helper()
	var sess struct {
		Environment struct {
			ID string `json:"id"`
		} `json:"environment"`
	}
	var env api.EnvironmentInfo
	if s.call("GET", "/v1/agents/sessions/"+sid, nil, &sess) != http.StatusOK ||
		s.call("GET", "/v1/agents/environments/"+sess.Environment.ID, nil, &env) != http.StatusOK {
		s.t.Fatalf("session %s: no environment", sid)
	}
	return env
}

// waitHeartbeat waits (in the bubble's time) until Core lists the device
// with its declaration: workspace calls do not queue for a device.
func (s *stack) waitHeartbeat() {
	s.t.Helper()
	for range 100 {
		var out struct {
			Devices []struct {
				Device string `json:"id"`
				Kinds  []any  `json:"kinds"`
			} `json:"devices"`
		}
		if s.call("GET", "/core/v1/devices", nil, &out) == http.StatusOK {
			for _, d := range out.Devices {
				if d.Device == e2eDevice && len(d.Kinds) > 0 {
					return
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("the device's heartbeat never reached Core\n%s", s.logs.String())
}

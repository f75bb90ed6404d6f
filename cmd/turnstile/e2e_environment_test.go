package main

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/core/api"
)

// Environment Files end to end: an Environment created through /v1, a
// Session bound to its x_agents_core.environment_id, and a real daemon
// whose workspace owner serves that environment: a file created through
// /v1/agents/environments/{id}/files is on disk, and the listing pages
// through the directory's regular files in path order.
func TestEndToEndEnvironmentFiles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := t.TempDir()
		s := newStack(t, stackOptions{workspaces: base})
		s.waitHeartbeat()
		var env api.EnvironmentInfo
		if code := s.call("POST", "/v1/agents/environments", map[string]any{"environment": map[string]any{"type": "openai_hosted"}}, &env); code != http.StatusOK {
			t.Fatalf("create environment: %d", code)
		}
		root := filepath.Join(base, env.XAgentsCore.EnvironmentID)
		if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
			t.Fatal(err)
		}
		files := "/v1/agents/environments/" + env.ID + "/files"
		put := map[string]any{"type": "inline", "path": "/workspace/docs/b.txt", "data": base64.StdEncoding.EncodeToString([]byte("bravo"))}
		if code := s.call("POST", files, put, nil); code != http.StatusConflict {
			t.Fatalf("a write before any Session: %d", code)
		}
		s.createSession(map[string]any{"agent": map[string]any{"model": "synthetic-1", "x_agents_core": map[string]any{"harness": synthetic.Kind}},
			"environment": map[string]any{"type": "openai_hosted", "environment_id": env.ID}})
		var f api.EnvironmentFileJSON
		if code := s.call("POST", files, put, &f); code != http.StatusOK || f.Path != "/workspace/docs/b.txt" || f.SizeBytes != 5 ||
			f.EnvironmentID != env.ID || f.Object != "agent.environment.file" {
			t.Fatalf("write: %d %+v\n%s", code, f, s.logs.String())
		}
		if b, _ := os.ReadFile(filepath.Join(root, "docs", "b.txt")); string(b) != "bravo" {
			t.Fatalf("on disk: %q", b)
		}
		put["path"], put["data"] = "/workspace/docs/a.txt", base64.StdEncoding.EncodeToString([]byte("al"))
		if code := s.call("POST", files, put, nil); code != http.StatusOK {
			t.Fatalf("second write: %d", code)
		}
		if err := os.Mkdir(filepath.Join(root, "docs", "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		type page struct {
			Data    []api.EnvironmentFileJSON `json:"data"`
			HasMore bool                      `json:"has_more"`
			Next    *string                   `json:"next"`
		}
		var p1, p2 page
		if code := s.call("GET", files+"?path=/workspace/docs&order=asc&limit=1", nil, &p1); code != http.StatusOK ||
			len(p1.Data) != 1 || p1.Data[0].Path != "/workspace/docs/a.txt" || p1.Data[0].SizeBytes != 2 || !p1.HasMore || p1.Next == nil {
			t.Fatalf("first page: %d %+v", code, p1)
		}
		if code := s.call("GET", files+"?path=/workspace/docs&order=asc&limit=1&page="+*p1.Next, nil, &p2); code != http.StatusOK ||
			len(p2.Data) != 1 || p2.Data[0].Path != "/workspace/docs/b.txt" || p2.HasMore || p2.Next != nil {
			t.Fatalf("second page: %d %+v", code, p2)
		}
		if code := s.call("GET", files+"?path=/workspace/nowhere", nil, nil); code != http.StatusNotFound {
			t.Fatalf("a missing directory: %d", code)
		}
	})
}

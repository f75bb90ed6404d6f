package controlled

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestDoRefusals: every step that cannot apply is a named error.
func TestDoRefusals(t *testing.T) {
	c := New()
	for _, tc := range []struct {
		cmd  scenarios.ControlCommand
		want string
	}{
		{scenarios.ControlCommand{Action: "emit", Type: "done", Payload: json.RawMessage(`{"content":""}`)}, "harness emit: no live native Turn"},
		{scenarios.ControlCommand{Action: "settle"}, "settle: no live native Turn"},
		{scenarios.ControlCommand{Action: "release"}, "harness release: no native call is hanging"},
		{scenarios.ControlCommand{Action: "apply"}, "harness apply: no written input is held"},
		{scenarios.ControlCommand{Action: "owned"}, `harness: unknown action "owned"`},
		{scenarios.ControlCommand{Action: "explode"}, `harness: unknown action "explode"`},
	} {
		if err := c.Do(tc.cmd); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.cmd.Action, err, tc.want)
		}
	}
}

// TestServeAnswersEachCommand: Serve applies the channel's commands and
// answers each with its seq; owned is the host's to answer.
func TestServeAnswersEachCommand(t *testing.T) {
	replies := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close(websocket.StatusNormalClosure, "done")
		for _, cmd := range []string{`{"seq":1,"action":"hang-setup"}`, `{"seq":2,"action":"release"}`, `{"seq":3,"action":"owned"}`, `not json`} {
			ws.Write(r.Context(), websocket.MessageText, []byte(cmd))
			_, b, err := ws.Read(r.Context())
			if err != nil {
				return
			}
			replies <- string(b)
		}
	}))
	defer srv.Close()
	owned := func(context.Context) (map[string]int, error) { return map[string]int{"executors": 2}, nil }
	if err := New().Serve(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), owned); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"seq":1}`, `{"seq":2,"error":"harness release: no native call is hanging"}`, `{"seq":3,"owned":{"executors":2}}`,
		`{"seq":0,"error":"control command is not JSON: invalid character`}
	for _, w := range want {
		if got := <-replies; !strings.HasPrefix(got, w) {
			t.Errorf("reply %s, want %s", got, w)
		}
	}
}

// TestHarnessFile: a file step writes its content under the bound
// Environment's directory; without a binding, outside the workspace or
// with content that is not a JSON string it is refused, named so.
func TestHarnessFile(t *testing.T) {
	step := func(env, path, content string) scenarios.ControlCommand {
		return scenarios.HarnessCommand(scenarios.Step{Kind: scenarios.KindHarness, Action: "file",
			Args: map[string]string{"environment": env, "path": path}, Input: content})
	}
	c := New()
	if err := c.Do(step("env", "a.txt", "x")); err == nil || !strings.Contains(err.Error(), "binds no workspace directory") {
		t.Fatalf("unbound: %v", err)
	}
	base := t.TempDir()
	c.SetWorkspaces(base)
	if err := c.Do(step("env", "notes/b.txt", "hello")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(base, "env", "notes", "b.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("file %q %v", b, err)
	}
	for _, bad := range []struct{ env, path, want string }{
		{"env", "../escape.txt", "not inside the workspace"},
		{"env", "/etc/x", "not inside the workspace"},
		{"../up", "a.txt", `environment "../up"`},
	} {
		if err := c.Do(step(bad.env, bad.path, "x")); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Fatalf("%s %s: %v, want %q", bad.env, bad.path, err, bad.want)
		}
	}
	cmd := step("env", "a.txt", "x")
	cmd.Payload = []byte(`{}`)
	if err := c.Do(cmd); err == nil || !strings.Contains(err.Error(), "not a JSON string") {
		t.Fatalf("payload: %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "escape.txt")); err == nil {
		t.Fatal("a refused file was written")
	}
}

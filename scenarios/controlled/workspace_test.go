package controlled

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/scenarios"
)

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

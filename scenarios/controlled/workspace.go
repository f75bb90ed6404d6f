package controlled

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/scenarios"
)

// SetWorkspaces names the directory under which each Environment's
// workspace lies (Base/<environment>, as localworkspace.Binding binds
// it): harness file steps write there.
func (c *Controlled) SetWorkspaces(base string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.workspaces = base
}

// Preparations serves every kind's read-only preparation profile with
// the local workspace owner.
func (c *Controlled) Preparations(string) (agent.PreparationFactory, bool, bool) {
	return localworkspace.Preparations{}, true, true
}

// putFile writes a harness file step's content into its Environment's
// workspace, making the directories it needs.
func (c *Controlled) putFile(cmd scenarios.ControlCommand) error {
	c.mu.Lock()
	base := c.workspaces
	c.mu.Unlock()
	var content string
	if err := json.Unmarshal(cmd.Payload, &content); err != nil {
		return fmt.Errorf("harness file: the content is not a JSON string: %v", err)
	}
	if base == "" {
		return fmt.Errorf("harness file: the Runtime binds no workspace directory")
	}
	root, err := localworkspace.Binding{Base: base}.Root(cmd.Args["environment"])
	if err != nil {
		return fmt.Errorf("harness file: environment %q: %v", cmd.Args["environment"], err)
	}
	p := filepath.Clean(cmd.Args["path"])
	if !filepath.IsLocal(p) {
		return fmt.Errorf("harness file: path %q is not inside the workspace", cmd.Args["path"])
	}
	p = filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("harness file: %v", err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return fmt.Errorf("harness file: %v", err)
	}
	return settle(root, p)
}

// settle gives the file and the directories above it, up to the root,
// the mode and time every runner's workspace shows (an export archives
// them): 0644 files, 0755 directories, scenarios.Epoch.
func settle(root, p string) error {
	mode := os.FileMode(0o644)
	for ; p != root; p, mode = filepath.Dir(p), 0o755 {
		if err := os.Chmod(p, mode); err != nil {
			return fmt.Errorf("harness file: %v", err)
		}
		if err := os.Chtimes(p, scenarios.Epoch, scenarios.Epoch); err != nil {
			return fmt.Errorf("harness file: %v", err)
		}
	}
	return nil
}

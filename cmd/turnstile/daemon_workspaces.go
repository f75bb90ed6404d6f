package main

import (
	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/daemon/runner"
)

// withWorkspaces binds the daemon's Environments to the directories under
// dir (one per Environment ID): executable preparations run their
// Harness there and the machine serves writes; an empty dir binds none
// (preparations of a local Environment and workspace operations then
// fail as unbound, and writes are write_unsupported).
func withWorkspaces(cfg runner.Config, dir string) runner.Config {
	if dir == "" {
		return cfg
	}
	cfg.Workspaces = localworkspace.Binding{Base: dir}
	cfg.Machine.Workspace.Writes = true
	return cfg
}

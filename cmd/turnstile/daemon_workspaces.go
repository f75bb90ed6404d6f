package main

import (
	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/daemon/runner"
)

// daemonWorkspaces binds Environments to the directories under dir, or
// none when dir is empty.
func daemonWorkspaces(dir string) runner.Workspaces {
	if dir == "" {
		return nil
	}
	return localworkspace.Binding{Base: dir}
}

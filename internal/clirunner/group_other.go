//go:build !unix && !windows

package clirunner

import (
	"os"
	"os/exec"
)

// No group supervision here: StartContext refuses before starting anything.
const groupSupported = false

type group struct{}

func prepareGroup(*exec.Cmd) {}

func joinGroup(*os.Process) (group, error) { return group{}, ErrUnsupportedPlatform }

func (group) terminate() {}
func (group) kill()      {}
func (group) release()   {}
func (group) live() bool { return false }

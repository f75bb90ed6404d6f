//go:build !unix

package runner

import "os/exec"

// Without a process group (or a Job object, not implemented here) the
// daemon cannot own a process's descendants: it refuses to start one.
func ownGroup(*exec.Cmd) error { return ErrProcessOwnership }

func signalGroup(int, bool) {}

func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		return -1
	}
	return cmd.ProcessState.ExitCode()
}

//go:build unix

package runner

import (
	"errors"
	"os/exec"
	"syscall"
)

func ownGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return nil
}

// signalGroup sends TERM (or KILL) to the whole process group.
func signalGroup(pgid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-pgid, sig) // ESRCH: the group is already gone
}

func exitCode(cmd *exec.Cmd, err error) int {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return -1
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		return cmd.ProcessState.ExitCode()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	default:
		return ws.ExitStatus()
	}
}

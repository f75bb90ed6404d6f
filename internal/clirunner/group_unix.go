//go:build unix

package clirunner

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

const groupSupported = true

// group is the child's own Unix process group; its ID is the child's PID.
type group struct{ pgid int }

func prepareGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func joinGroup(p *os.Process) (group, error) { return group{pgid: p.Pid}, nil }

func (g group) terminate() { _ = syscall.Kill(-g.pgid, syscall.SIGTERM) }

func (g group) kill() { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }

func (g group) release() {}

// live reports whether a member of the group is still running. On Linux
// it reads /proc, so that a KILLed member counts as gone once it is a
// zombie (a reparented zombie may never be collected); elsewhere it asks
// kill(2).
func (g group) live() bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return !errors.Is(syscall.Kill(-g.pgid, 0), syscall.ESRCH)
	}
	want := strconv.Itoa(g.pgid)
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		// After "(comm)": state ppid pgrp ...
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[2] == want && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

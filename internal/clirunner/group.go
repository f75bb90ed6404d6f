package clirunner

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// groupLive reports whether a member of process group pgid is still
// running. On Linux it reads /proc, so that a KILLed member counts as gone
// once it is a zombie (a reparented zombie may never be collected);
// elsewhere it asks kill(2).
func groupLive(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
	}
	want := strconv.Itoa(pgid)
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

// awaitGroup waits until no member of the group is running or the deadline.
func (p *Process) awaitGroup(deadline time.Time) {
	for groupLive(p.pgid) && time.Now().Before(deadline) {
		t := time.NewTimer(min(groupPoll, time.Until(deadline)))
		<-t.C
	}
}

//go:build windows

package clirunner

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

const groupSupported = true

// group is a Job object holding the child (and every process it starts
// after joining), with kill-on-close so that nothing outlives the handle.
// The child also leads a new console process group, the target of the
// CTRL_BREAK that stands for TERM. A process the child starts before it
// is assigned to the job (a window of one system call after start) is not
// supervised.
type group struct{ s *jobState }

type jobState struct {
	mu   sync.Mutex
	job  windows.Handle
	open bool // false once released
	pid  uint32
}

// accounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type accounting struct {
	TotalUserTime, TotalKernelTime                     int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses                uint32
	ActiveProcesses, TotalTerminatedProcesses          uint32
}

func prepareGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

func joinGroup(p *os.Process) (group, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return group{}, fmt.Errorf("job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return group{}, fmt.Errorf("job object limits: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return group{}, fmt.Errorf("open child: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		_ = windows.CloseHandle(job)
		return group{}, fmt.Errorf("assign child to job: %w", err)
	}
	return group{&jobState{job: job, open: true, pid: uint32(p.Pid)}}, nil
}

func (g group) terminate() { _ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, g.s.pid) }

func (g group) kill() {
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	if g.s.open {
		_ = windows.TerminateJobObject(g.s.job, 1)
	}
}

// release closes the job handle; kill-on-close ends any member left.
func (g group) release() {
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	if g.s.open {
		_ = windows.CloseHandle(g.s.job)
		g.s.open = false
	}
}

func (g group) live() bool {
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	if !g.s.open {
		return false
	}
	var a accounting
	err := windows.QueryInformationJobObject(g.s.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&a)), uint32(unsafe.Sizeof(a)), nil)
	return err == nil && a.ActiveProcesses > 0
}

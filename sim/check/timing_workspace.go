package check

import "time"

// Core's workspace waits (wire reference §3.9–§3.11, seed 工作区操作): a
// read is bounded by 17 s, a write by 195 s and an export by 180 s, each
// from the instant Core admitted the call.
const (
	TimerWorkspaceRead   = "workspace_read_wait"
	TimerWorkspaceWrite  = "workspace_write_wait"
	TimerWorkspaceExport = "workspace_export_wait"
)

// Their check names.
const (
	CheckTimingWorkspaceRead   = "timing_" + TimerWorkspaceRead
	CheckTimingWorkspaceWrite  = "timing_" + TimerWorkspaceWrite
	CheckTimingWorkspaceExport = "timing_" + TimerWorkspaceExport
)

// The workspace wait oracles (rules timing_workspace_read_wait,
// timing_workspace_write_wait and timing_workspace_export_wait, Rules),
// from the instants Core received each workspace call and gave its answer
// (its own outputs, as the world taps them at Core's clock, like frames).
// A call Core crashed under died with it.

// wsCallCode is Core's code of an operation its wait ended.
const wsCallCode = "timeout"

type wsCallWait struct {
	call     string
	timer    string
	at       int64
	deadline int64
	answered bool
	excused  bool
}

type wsWaitState struct {
	byCall map[string]*wsCallWait
}

// CoreWorkspaceCall records Core receiving workspace call call at at,
// bounded by timer (one of the three above).
func (l *Ledger) CoreWorkspaceCall(at int64, call, timer string) {
	l.advance(at)
	s := &l.wsWait
	if s.byCall == nil {
		s.byCall = map[string]*wsCallWait{}
	}
	w := &wsCallWait{call: call, timer: timer, at: at, deadline: at + l.timer(coreNode, timer)}
	s.byCall[call] = w
	l.arm(w.deadline, func() {
		if !w.answered && !w.excused {
			w.excused = true // reported once; a later answer adds nothing
			l.violate(w.deadline, "timing_"+timer, "workspace call %s received at %s has no answer at %s, the end of Core's %s wait",
				call, vtime(w.at), vtime(w.deadline), time.Duration(w.deadline-w.at))
		}
	})
}

// CoreWorkspaceAnswered records Core answering workspace call call at at
// with code ("" when it completed or was refused).
func (l *Ledger) CoreWorkspaceAnswered(at int64, call, code string) {
	l.advance(at)
	w := l.wsWait.byCall[call]
	if w == nil || w.answered || w.excused {
		return
	}
	w.answered = true
	delete(l.wsWait.byCall, call)
	wait := time.Duration(w.deadline - w.at)
	switch {
	case code == wsCallCode && at == w.deadline:
		l.decide(w.timer)
	case code == wsCallCode:
		l.violate(at, "timing_"+w.timer, "workspace call %s timed out at %s, %s after Core received it: its wait is %s",
			call, vtime(at), time.Duration(at-w.at), wait)
	case at > w.deadline:
		l.violate(at, "timing_"+w.timer, "workspace call %s answered %s at %s, %s after Core received it, beyond its %s wait",
			call, code, vtime(at), time.Duration(at-w.at), wait)
	}
}

// wsWaitsCoreDown excuses the calls Core had not answered when it
// crashed.
func (l *Ledger) wsWaitsCoreDown() {
	for _, w := range l.wsWait.byCall { //tidy:sorted marking each the same way in any order
		w.excused = true
	}
	l.wsWait.byCall = nil
}

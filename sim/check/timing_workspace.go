package check

// Checks: timing_workspace_read_wait, timing_workspace_write_wait and
// timing_workspace_export_wait (rules.go), from the instants Core received
// each workspace call and gave its answer (its own outputs, tapped at
// Core's clock like frames). A call Core crashed under died with it (its
// window is excused).

// CoreWorkspaceCall records Core receiving workspace call call at at,
// bounded by timer (TimerWorkspaceRead, TimerWorkspaceWrite or
// TimerWorkspaceExport).
func (l *Ledger) CoreWorkspaceCall(at int64, call, timer string) {
	l.advance(at)
	w := &timerWindow{}
	made(&l.timing.calls)[call] = w
	l.startWindow(w, CoreNode, timer, 0, at, l.timer(CoreNode, timer), func() {
		l.expire(w, "workspace call %s received at %s has no answer at %s, the end of Core's %s wait",
			call, vtime(w.from), vtime(w.deadline), w.length())
	})
}

// CoreWorkspaceAnswered records Core answering workspace call call at at
// with code ("" when it completed or was refused; "timeout" when its wait
// ended).
func (l *Ledger) CoreWorkspaceAnswered(at int64, call, code string) {
	l.advance(at)
	w := l.timing.calls[call]
	if w == nil || !w.live() {
		return
	}
	w.settled = true
	switch {
	case code == "timeout" && at == w.deadline:
		l.decide(w.timer)
	case code == "timeout":
		l.report(w, at, "workspace call %s timed out at %s, %s after Core received it: its wait is %s",
			call, vtime(at), w.elapsed(at), w.length())
	case w.overdue(at):
		l.report(w, at, "workspace call %s answered %s at %s, %s after Core received it, beyond its %s wait",
			call, code, vtime(at), w.elapsed(at), w.length())
	}
}

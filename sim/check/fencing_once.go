package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: fencing_one_suspension (rules.go), from the wire. The
// suspend_id fences one persisted attempt (wire reference §1.1).
//
// Probe conditions of the fencing probes (hostile_answers.go reads them):
// CondFenced judges an answer only while the wire shows the Target fenced
// (an accepted quiesce it sent, no accepted resume since, its process
// alive); CondResumeRepeat only while the Target's last fencing answer
// was the accepted resume that lifted its fence, for the probe's
// suspension.

func (l *Ledger) judgeOneSuspension(ev WireEvent, m fenceMsg) {
	s := &l.fencing
	if !m.quiesce || s.open[m.suspend] {
		return // a repeat of an open suspension's quiesce
	}
	for _, id := range sortedKeys(s.open) {
		if env := s.envOf[id]; id != m.suspend && env == m.env {
			l.violate(ev.At, "fencing_one_suspension", "Core quiesces Environment %s as suspension %s on %s while suspension %s of it is unresolved",
				m.env, m.suspend, connKey(ev.Conn), id)
			return
		}
	}
}

// SuspensionConflictRefused records Core refusing an operator's quiesce
// of an Environment that has an unresolved suspension.
func (l *Ledger) SuspensionConflictRefused() { l.reach(MarkSecondSuspensionRefused) }

// fencedNow reports whether the wire shows device fenced.
func (l *Ledger) fencedNow(device string) bool {
	_, ok := l.fencing.fenced[device]
	return ok
}

// resumeRepeatAnswer: an accepted resume when device's fence was last
// lifted by suspend's accepted resume (a repeat after a lost reply is
// accepted again), else not judged.
func (l *Ledger) resumeRepeatAnswer(p *HostileProbe) []string {
	if l.fencing.lifted[p.Target] == p.Suspend && p.Suspend != "" && !l.fencedNow(p.Target) {
		return p.Want
	}
	return nil
}

// fencingAnswer renders a fencing reply as a probe answer.
func fencingAnswer(kind string, accepted bool, code string) string {
	if accepted {
		return kind + "/accepted"
	}
	return kind + "/refused/" + code
}

// transferAnswer renders a runtime_prepare_result as a probe answer.
func transferAnswer(r wire.RuntimePrepareResult) string {
	return "xfer/" + r.Outcome + "/" + r.ErrorCode
}

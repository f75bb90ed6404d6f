package check

import "github.com/turnstile-sim/turnstile/wire"

// answerOf renders the frame as a probe answer, or "" when it is no
// answer to a control operation or input.
func answerOf(f wire.Frame) string {
	switch p := f.Payload.(type) {
	case wire.PreparationStatus:
		if p.State == wire.StateRejected {
			return "rejected/" + p.ErrorCode
		}
		return p.State
	case wire.PromptSteerAck:
		if p.ErrorCode != "" {
			return "ack/" + p.ErrorCode
		}
		return "ack/ok"
	case wire.InteractionDecisionAck:
		if p.ErrorCode != "" {
			return "ack/" + p.ErrorCode
		}
		return "ack/applied"
	case wire.WorkspaceWriteResult:
		return "write/" + p.Outcome + "/" + p.ErrorCode
	}
	return ""
}

// endedAnswer is the answer of a CondEnded probe (a release of its own
// admission) whose admission already ended, or nil while it may be live:
// expired once the daemon sent expired, else failed once it sent failed
// before this answer. A terminal admission only republishes its status
// (wire reference §3.3: "Terminal: started, released, expired, failed").
func (l *Ledger) endedAnswer(p *HostileProbe) []string {
	switch k := connIDKey(p.Conn, p.ReplyID); {
	case l.hostile.expired[k]:
		return []string{wire.StateExpired}
	case l.hostile.failed[k]:
		return []string{wire.StateFailed}
	}
	return nil
}

// noteFailed records a failed status after the answers of its event are
// judged: a release answered with a fresh failed is not a republish.
func (l *Ledger) noteFailed(ev WireEvent) {
	if p, ok := ev.Frame.Payload.(wire.PreparationStatus); ok && p.State == wire.StateFailed && p.Handle != "" {
		l.hostile.failed[connIDKey(ev.Conn, ev.Frame.ID)] = true
	}
}

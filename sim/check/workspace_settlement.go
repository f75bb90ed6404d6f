package check

// CheckWriteSettlement is rule workspace_write_settlement (rules.go), from
// the wire and the API's answers. Unavailable is no answer for a commit
// that left: it claims nothing was installed.
const CheckWriteSettlement = "workspace_write_settlement"

// MarkWriteBlockedAfterUnknown: a write of a Session was refused while an
// earlier write Core answered unknown was unsettled.
const MarkWriteBlockedAfterUnknown Mark = "workspace_write_blocked_after_unknown"

// wsUnknownWrite is a write Core answered unknown.
type wsUnknownWrite struct {
	mutation string
	answered int64
}

// settledBy reports whether Core received the mutation's exact receipt
// by at, and which.
func (l *Ledger) settledBy(mutation string, at int64) (string, bool) {
	m := l.ws.commits[mutation]
	if m == nil || !m.settled || m.settledAt > at {
		return "", false
	}
	return m.receipt, true
}

func (l *Ledger) judgeWriteSettlement(op WorkspaceWriteOp) {
	what := "write of " + op.Path + " in session " + op.Session
	if m := l.ws.commits[op.Mutation]; op.Mutation != "" && m != nil {
		receipt, settled := l.settledBy(op.Mutation, op.Return)
		committed := m.commit && m.commitAt <= op.Return
		switch {
		case (op.Outcome == "completed" || op.Outcome == "rejected") && receipt != op.Outcome:
			l.violate(op.Return, CheckWriteSettlement, "%s answered %s (mutation %s) without a %s receipt reaching Core",
				what, op.Outcome, op.Mutation, op.Outcome)
		case committed && !settled && op.Outcome != "unknown":
			l.violate(op.Return, CheckWriteSettlement, "%s answered %s (mutation %s): its commit left at %s and no exact "+
				"receipt reached Core, so it may be installed", what, op.Outcome, op.Mutation, vtime(m.commitAt))
		}
	}
	l.judgePendingRefusal(op, what)
	for _, u := range l.ws.unknownBySess[op.Session] {
		if u.answered >= op.Call || u.mutation == op.Mutation {
			continue
		}
		if _, settled := l.settledBy(u.mutation, op.Return); settled {
			continue
		}
		switch op.Outcome {
		case "refused":
			l.reach(MarkWriteBlockedAfterUnknown)
		case "lost":
		default:
			l.violate(op.Return, CheckWriteSettlement, "%s called at %s answered %s (mutation %s), though write %s of its "+
				"Session answered unknown at %s is unsettled", what, vtime(op.Call), op.Outcome, op.Mutation, u.mutation, vtime(u.answered))
		}
	}
	if op.Outcome == "unknown" && op.Mutation != "" {
		made(&l.ws.unknownBySess)[op.Session] = append(l.ws.unknownBySess[op.Session], wsUnknownWrite{op.Mutation, op.Return})
	}
	if op.Outcome == "lost" || op.Outcome == "unknown" && op.Mutation == "" {
		made(&l.ws.lostSess)[op.Session] = true
	}
}

// judgePendingRefusal: only an unsettled earlier write keeps a Session's
// mutation owner. A write refused as pending while no other write of its
// Session was unanswered, none was lost, and every write of it Core
// answered unknown had its exact receipt reach Core before the call
// (settled, also after the wait ended) is a violation.
func (l *Ledger) judgePendingRefusal(op WorkspaceWriteOp, what string) {
	if op.Outcome != "refused" || op.Code != WriteRefusedPending || op.Overlapping || l.ws.lostSess[op.Session] {
		return
	}
	var settled []string
	for _, u := range l.ws.unknownBySess[op.Session] {
		if _, ok := l.settledBy(u.mutation, op.Call); !ok {
			return
		}
		settled = append(settled, u.mutation)
	}
	if len(settled) > 0 {
		l.violate(op.Return, CheckWriteSettlement, "%s called at %s was refused as pending, though the exact receipts of its Session's "+
			"unknown writes %v reached Core before the call", what, vtime(op.Call), settled)
	}
}

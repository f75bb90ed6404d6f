package check

// Checks of interaction_truth.go and interaction_wire.go (rules.go).
const (
	CheckDecisionAppliedTwice   = "decision_applied_twice"
	CheckDecisionMisrouted      = "decision_misrouted"
	CheckAppliedWithoutNative   = "applied_without_native"
	CheckDoneBeforeDecision     = "done_before_decision"
	CheckInteractionAfterDone   = "interaction_after_done"
	CheckResolvedWithoutReceipt = "resolved_without_receipt"
)

// Interaction marks.
const (
	// Core sent a decision again after its previous attempt got no receipt in time
	MarkDecisionRepeatedAfterUnknown Mark = "decision_repeated_after_unknown"
	// a daemon forwarded permission_cancel while a decision for that
	// request, delivered to it, was unanswered
	MarkDecisionRacedPermissionCancel Mark = "decision_raced_permission_cancel"
	// a function result reached a daemon after a prompt_cancel of its run
	MarkFunctionResultAfterCancel Mark = "function_result_after_cancel"
)

// ixTruth is what the Harness did with one interaction.
type ixTruth struct {
	run     string
	applied []int64 // every native apply, in order
}

type ixCall struct {
	key      string
	answered bool
}

type interactionState struct {
	truth map[string]*ixTruth  // key → native facts
	calls map[string][]*ixCall // run → native decision calls

	coreApplied map[string]bool            // delivery IDs Core received applied=true for
	unanswered  map[string]map[string]bool // conn/interaction → deliveries at the daemon without an ack
	coreStatus  map[string]string          // turn/interaction → last status Core recorded
	attempts    []*ixAttempt               // decisions Core sent, in order
	byDelivery  map[string]*ixAttempt      // delivery ID of a decision Core sent → its latest attempt
	reached     map[string]bool            // delivery IDs of decisions that reached a daemon, forged ones too
}

// isDecision reports whether delivery is a decision or function result
// Core sent (not a cancel).
func (s *interactionState) isDecision(delivery string) bool {
	return s.byDelivery[delivery] != nil || s.reached[delivery]
}

// InteractionAsked records the Harness emitting an interaction for run
// (key: the interaction ID, or "<run>/<call ID>" for a function call).
func (l *Ledger) InteractionAsked(at int64, device, run, kind, key string) {
	keepFirst(made(&l.ix.truth), key, &ixTruth{run: run})
}

// DecisionCalled records a native decision call for key reaching the Turn
// of run on device; misrouted when another Turn emitted key.
func (l *Ledger) DecisionCalled(at int64, device, run, key string, misrouted bool) {
	if tr := l.ix.truth[key]; misrouted || tr != nil && tr.run != run {
		l.violate(at, CheckDecisionMisrouted, "decision for %s reached run %s on %s, which did not ask it", key, run, device)
	}
	made(&l.ix.calls)[run] = append(l.ix.calls[run], &ixCall{key: key})
	l.dxNativeCalled(at, device, key) // decision_answers.go
}

// DecisionAnswered records the native call for key returning.
func (l *Ledger) DecisionAnswered(at int64, device, run, key string, applied bool) {
	for _, c := range l.ix.calls[run] {
		if c.key == key && !c.answered {
			c.answered = true
			break
		}
	}
	l.dxNativeAnswered(device, key, applied) // decision_answers.go
	l.bindRecheck(at, device, run)
	if !applied {
		return
	}
	keepFirst(made(&l.ix.truth), key, &ixTruth{run: run})
	tr := l.ix.truth[key]
	tr.applied = append(tr.applied, at)
	if len(tr.applied) > 1 {
		l.violate(at, CheckDecisionAppliedTwice, "decision for %s of run %s applied natively %d times on %s", key, run, len(tr.applied), device)
	}
}

// CoreInteraction records Core writing an interaction of turn with its
// status and latest delivery ID.
func (l *Ledger) CoreInteraction(at int64, turn, id, status, delivery string) {
	k := turn + "/" + id
	prev := l.ix.coreStatus[k]
	made(&l.ix.coreStatus)[k] = status
	l.dxCoreStatus(at, turn, id, prev, status, delivery) // decision_answers.go
	l.decisionAckRecorded(at, turn, status, delivery)    // timing_decision_ack.go
	if status == "applied" && prev != "applied" && !l.ix.coreApplied[delivery] {
		l.violate(at, CheckResolvedWithoutReceipt, "Core recorded interaction %s of turn %s applied without an applied receipt for delivery %q", id, turn, delivery)
	}
	if status == "delivering" && prev == "unknown" {
		l.reach(MarkDecisionRepeatedAfterUnknown)
	}
}

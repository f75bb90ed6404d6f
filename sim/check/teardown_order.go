package check

import (
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: done_before_receipt, published_before_settlement (rules.go).
const (
	CheckDoneBeforeReceipt      = "done_before_receipt"
	CheckPublishedBeforeSettled = "published_before_settlement"
)

type teardownState struct {
	unanswered map[string][]string // conn\x00run → inputs a daemon received and has not answered, in arrival order
	retired    map[string]string   // run → the executor its settlement retired (device\x00executor)
}

// ExecutorRetired records the Harness answering the settlement of run's
// Turn with Reusable=false: executor may only be closed from now on.
func (l *Ledger) ExecutorRetired(at int64, device, run, executor string) {
	made(&l.teardown.retired)[run] = pairKey(device, executor)
	if e := l.harness.executors[pairKey(device, executor)]; e != nil {
		e.retired = true
	}
	l.executorRetired(device, executor)
}

func (l *Ledger) observeTeardown(ev WireEvent) {
	if !ev.HasFrame() {
		if ev.Kind == WireClosed && ev.From == ev.To && ev.To != CoreNode {
			deleteUnder(l.teardown.unanswered, connKey(ev.Conn)+"\x00") // nothing more is sent on it
		}
		return
	}
	conn := connKey(ev.Conn)
	k := pairKey(conn, ev.Frame.ID)
	ins := l.teardown.unanswered[k]
	switch p := ev.Frame.Payload.(type) {
	case wire.PromptSteer:
		if ev.Kind == WireDelivered && ev.To != CoreNode && p.InputID != "" {
			made(&l.teardown.unanswered)[k] = append(ins, p.InputID)
		}
	case wire.PromptSteerAck:
		if i := slices.Index(ins, p.InputID); i >= 0 && ev.Kind == WireSent && ev.From != CoreNode {
			l.teardown.unanswered[k] = append(ins[:i:i], ins[i+1:]...)
		}
	case wire.Done:
		if ev.Kind == WireSent && ev.From != CoreNode {
			if len(ins) > 0 {
				l.violate(ev.At, CheckDoneBeforeReceipt, "%s sent done for run %s on conn %s before any receipt for input %s it received",
					ev.From, ev.Frame.ID, conn, ins[0])
				delete(l.teardown.unanswered, k)
			}
			l.checkAfterSettlement(ev.At, ev.From, ev.Frame.ID, "done")
		}
	case wire.InteractionDecisionAck:
		if ev.Kind == WireSent && ev.From != CoreNode && p.Applied && !l.ix.isDecision(p.DeliveryID) {
			l.checkAfterSettlement(ev.At, ev.From, ev.Frame.ID, "an applied cancel receipt")
		}
	}
}

func (l *Ledger) checkAfterSettlement(at int64, device, run, what string) {
	t, k := l.harness.turns[run], l.teardown.retired[run]
	switch e := l.harness.executors[k]; {
	case t == nil: // no native Turn: fabricated_terminal judges it
	case t.settled == "":
		l.violate(at, CheckPublishedBeforeSettled, "%s sent %s for run %s before the Harness settled its native turn",
			device, what, run)
	case k != "" && e != nil && !e.closed:
		l.violate(at, CheckPublishedBeforeSettled, "%s sent %s for run %s before the Harness confirmed the close of executor %s its settlement retired",
			device, what, run, k[len(device)+1:])
	}
}

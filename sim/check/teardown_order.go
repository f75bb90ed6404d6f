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

func (t *teardownState) init() {
	t.unanswered, t.retired = map[string][]string{}, map[string]string{}
}

// ExecutorRetired records the Harness answering the settlement of run's
// Turn with Reusable=false: executor may only be closed from now on.
func (l *Ledger) ExecutorRetired(at int64, device, run, executor string) {
	l.teardown.retired[run] = pairKey(device, executor)
	if e := l.harness.executors[pairKey(device, executor)]; e != nil {
		e.retired = true
	}
	l.evictionRetired(device, executor)
}

func (l *Ledger) observeTeardown(ev WireEvent) {
	if !ev.HasFrame() {
		if ev.Kind == WireClosed && ev.From == ev.To && ev.To != CoreNode {
			deleteUnder(l.teardown.unanswered, connKey(ev.Conn)+"\x00") // nothing more is sent on it
		}
		return
	}
	conn := connKey(ev.Conn)
	switch p := ev.Frame.Payload.(type) {
	case wire.PromptSteer:
		if ev.Kind == WireDelivered && ev.To != CoreNode && p.InputID != "" {
			k := pairKey(conn, ev.Frame.ID)
			l.teardown.unanswered[k] = append(l.teardown.unanswered[k], p.InputID)
		}
	case wire.PromptSteerAck:
		if ev.Kind == WireSent && ev.From != CoreNode {
			l.answered(pairKey(conn, ev.Frame.ID), p.InputID)
		}
	case wire.Done:
		if ev.Kind == WireSent && ev.From != CoreNode {
			l.checkDoneAfterReceipts(ev.At, ev.From, conn, ev.Frame.ID)
			l.checkAfterSettlement(ev.At, ev.From, ev.Frame.ID, "done")
		}
	case wire.InteractionDecisionAck:
		if ev.Kind == WireSent && ev.From != CoreNode && p.Applied && !l.ix.isDecision(p.DeliveryID) {
			l.checkAfterSettlement(ev.At, ev.From, ev.Frame.ID, "an applied cancel receipt")
		}
	}
}

func (l *Ledger) answered(k, input string) {
	ins := l.teardown.unanswered[k]
	if i := slices.Index(ins, input); i >= 0 {
		ins = append(ins[:i:i], ins[i+1:]...)
	}
	if len(ins) == 0 {
		delete(l.teardown.unanswered, k)
		return
	}
	l.teardown.unanswered[k] = ins
}

func (l *Ledger) checkDoneAfterReceipts(at int64, device, conn, run string) {
	k := pairKey(conn, run)
	if ins := l.teardown.unanswered[k]; len(ins) > 0 {
		l.violate(at, CheckDoneBeforeReceipt, "%s sent done for run %s on conn %s before any receipt for input %s it received",
			device, run, conn, ins[0])
		delete(l.teardown.unanswered, k)
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

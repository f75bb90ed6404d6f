package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckRestartOutcome is rule restart_outcome (Rules). A cancel is pending
// at the crash when a prompt_cancel of the Run left Core (lost too: Core
// records the attempt before it sends) and no deciding receipt for the
// latest attempt reached Core (applied, or refused with anything but
// not_ready). Read from the wire, never from Core's cancel state.
const CheckRestartOutcome = "restart_outcome"

// MarkCoreRestartCancelPending: Core crashed while a cancel of a Turn it
// had not finished awaited its receipt.
const MarkCoreRestartCancelPending Mark = "core_restart_cancel_pending"

// restartCodes are the codes a Turn may fail with at Core's restart.
var restartCodes = codeSet("cancel_unconfirmed delivery_unknown event_stream_incomplete")

// restartCancel is what the wire showed of the cancels of one Run.
type restartCancel struct {
	delivery string // the latest attempt Core sent
	answered bool   // that attempt was refused not_ready (a later receipt for it is a duplicate)
	decided  bool   // a deciding receipt for an attempt reached Core
	finished bool   // Core finished the Run's turn
}

type restartState struct {
	cancels map[string]*restartCancel // by Run ID
	// pending is nil unless Core crashed and has not finished restarting:
	// then the Runs whose cancel awaited its receipt at the crash.
	pending map[string]bool
}

// observeRestartWire reads what Core sent, lost frames too, and what
// reached Core, forged frames too (Core cannot tell them apart).
func (l *Ledger) observeRestartWire(ev WireEvent) {
	if !ev.HasFrame() || ev.From == RogueNode || ev.To == RogueNode {
		return
	}
	switch p := ev.Frame.Payload.(type) {
	case wire.PromptCancel:
		if (ev.Kind == WireSent || ev.Kind == WireLost) && ev.From == CoreNode && !ev.Forged {
			c := entry(made(&l.restart.cancels), ev.Frame.ID)
			if c.delivery != p.DeliveryID { // a frame lost in flight is reported after its send
				c.delivery, c.answered = p.DeliveryID, false
			}
		}
	case wire.InteractionDecisionAck:
		c := l.restart.cancels[ev.Frame.ID]
		switch {
		case ev.Kind != WireDelivered || ev.To != CoreNode || c == nil || c.decided || c.answered || p.DeliveryID != c.delivery:
		case !p.Applied && p.ErrorCode == wire.CancelNotReady:
			c.answered = true
		default:
			c.decided = true
		}
	}
}

// restartCoreCrashed notes the cancels pending when Core crashed (the
// first notice of a crash counts; its restart repeats it).
func (l *Ledger) restartCoreCrashed() {
	s := &l.restart
	if s.pending != nil {
		return
	}
	s.pending = map[string]bool{}
	for _, run := range sortedKeys(s.cancels) {
		if c := s.cancels[run]; !c.decided && !c.finished {
			s.pending[run] = true
		}
	}
	if len(s.pending) > 0 {
		l.reach(MarkCoreRestartCancelPending)
	}
}

func (l *Ledger) restartCoreUp() { l.restart.pending = nil }

// restartTurnFinished judges a Turn Core finished while restarting.
func (l *Ledger) restartTurnFinished(at int64, turn, run, state, code string) {
	s := &l.restart
	if c := s.cancels[run]; c != nil {
		c.finished = true
	}
	if s.pending == nil {
		return
	}
	pending := run != "" && s.pending[run]
	switch {
	case state != TurnFailed || !restartCodes[code]:
		l.violate(at, CheckRestartOutcome, "Core's restart finished turn %s (run %s) %s %q, want failed with one of cancel_unconfirmed, delivery_unknown, event_stream_incomplete",
			turn, run, state, code)
	case pending && code != codeCancelUnconfirmed:
		l.violate(at, CheckRestartOutcome, "Core's restart finished turn %s %q, want %s: the cancel of run %s was sent and not confirmed when Core crashed",
			turn, code, codeCancelUnconfirmed, run)
	case !pending && code == codeCancelUnconfirmed:
		l.violate(at, CheckRestartOutcome, "Core's restart finished turn %s %s, but no cancel of run %q awaited its receipt when Core crashed",
			turn, code, run)
	}
}

package check

import "github.com/turnstile-sim/turnstile/wire"

// CheckUsageLatest is rule usage_not_latest (Rules), judged from the
// frames that reached Core (forged copies too: Core acts on them; a
// rogue's done closes the stream on its own connection only) and Core's
// store once the instant the Turn ended is over (the store records the
// end and the usage in one write).
const CheckUsageLatest = "usage_not_latest"

type usageState struct {
	received map[string]UsageSnapshot // run: the latest snapshot that reached Core
	closed   map[string]bool          // conn\x00run: a done reached Core on conn
	done     map[string]UsageSnapshot // run: the usage of the done that reached Core
	stored   map[string]UsageSnapshot // run: the latest snapshot Core stored
	ended    map[string]bool          // run: its Turn ended
}

func (l *Ledger) observeUsage(ev WireEvent) {
	if ev.Kind != WireDelivered || ev.To != CoreNode || !ev.HasFrame() || l.usage.ended[ev.Frame.ID] {
		return
	}
	var u *wire.Usage
	run := ev.Frame.ID
	switch p := ev.Frame.Payload.(type) {
	case wire.UsageUpdate:
		if !l.usage.closed[connFrameKey(ev.Conn, run)] {
			u = &p.Usage
		}
	case wire.Done:
		made(&l.usage.closed)[connFrameKey(ev.Conn, run)] = true
		u = p.Usage
		if u != nil {
			made(&l.usage.done)[run] = UsageFromWire(u)
		}
	case wire.InteractionDecisionAck:
		if p.Applied && p.Outcome != nil {
			u = p.Outcome.Usage
			if d, ok := l.usage.done[run]; ok && u != nil && UsageFromWire(u) != d {
				l.reach(MarkCancelOutcomeUsageNewer)
			}
		}
	}
	if u != nil {
		made(&l.usage.received)[run] = UsageFromWire(u)
	}
}

// usageTurnEnded judges run's usage once the instant its Turn ended is
// over.
func (l *Ledger) usageTurnEnded(at int64, run, code string) {
	if run == "" || l.usage.ended[run] {
		return
	}
	made(&l.usage.ended)[run] = true
	if code == codeEventPersistenceFailed {
		return
	}
	l.arm(at, func() {
		last, ok := l.usage.received[run]
		if !ok {
			return
		}
		if got, stored := l.usage.stored[run]; !stored || got != last {
			kept := "none"
			if stored {
				kept = got.String()
			}
			l.violate(at, CheckUsageLatest, "the Turn of run %s ended with usage %s, but the latest snapshot Core received for it is %s",
				run, kept, last)
		}
	})
}

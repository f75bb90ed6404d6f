package check

// CheckRunEventLimit is rule run_event_limit (Rules), judged from Core's
// durable store against the limit the world configured (CoreEventLimit).
const CheckRunEventLimit = "run_event_limit"

const codeEventPersistenceFailed = "event_persistence_failed"

type runEventState struct {
	limit  int            // 0: not configured, not judged
	counts map[string]int // turn → run events persisted
}

// CoreEventLimit records the run events per Turn the world configured
// Core with.
func (l *Ledger) CoreEventLimit(n int) { l.runEvents.limit = n }

// RunEventPersisted records Core appending one run event of turn to its
// store.
func (l *Ledger) RunEventPersisted(at int64, turn string) {
	s := &l.runEvents
	made(&s.counts)[turn]++
	if n := s.counts[turn]; s.limit > 0 && n > s.limit {
		l.violate(at, CheckRunEventLimit, "Core persisted run event %d of turn %s, above its limit of %d per Turn", n, turn, s.limit)
	}
}

// runEventsFinished judges a Turn Core finished durably.
func (l *Ledger) runEventsFinished(at int64, turn, code string) {
	s := &l.runEvents
	if code != codeEventPersistenceFailed || s.limit == 0 {
		return
	}
	l.reach(MarkRunEventLimit)
	if n := s.counts[turn]; n != s.limit {
		l.violate(at, CheckRunEventLimit, "Core failed turn %s with %s after %d run events, not at its limit of %d",
			turn, code, n, s.limit)
	}
}

package check

// CheckRunEventLimit is rule run_event_limit (Rules), judged from Core's
// durable store (every event appended, every terminal record), never from
// Core's view; the limit is the world's own number (CoreEventLimit).
const CheckRunEventLimit = "run_event_limit"

// codeEventPersistenceFailed is Core's error code of a Turn that reached
// its run-event limit.
const codeEventPersistenceFailed = "event_persistence_failed"

type runEventState struct {
	limit  int            // 0: not configured, not judged
	counts map[string]int // turn → run events persisted
}

func (s *runEventState) init() { s.counts = map[string]int{} }

// CoreEventLimit records the run events per Turn the world configured
// Core with.
func (l *Ledger) CoreEventLimit(n int) { l.runEvents.limit = n }

// RunEventPersisted records Core appending one run event of turn to its
// store.
func (l *Ledger) RunEventPersisted(at int64, turn string) {
	s := &l.runEvents
	s.counts[turn]++
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

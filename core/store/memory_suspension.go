package store

import "github.com/turnstile-sim/turnstile/core"

var _ core.SuspensionStore = (*Memory)(nil)

// PutSuspension inserts or replaces a suspension record.
func (s *Memory) PutSuspension(r core.SuspensionRecord) {
	s.writes++
	if s.suspensions.byID == nil {
		s.suspensions = newTable(func(r core.SuspensionRecord) (string, uint64) { return r.ID, r.Seq })
	}
	s.suspensions.put(r)
}

// Suspensions lists the suspension records in Seq order.
func (s *Memory) Suspensions() []core.SuspensionRecord { return s.suspensions.list() }

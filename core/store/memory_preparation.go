package store

import (
	"slices"

	"github.com/turnstile-sim/turnstile/core"
)

var _ core.PreparationStore = (*Memory)(nil)

// PutEnvironmentPreparation inserts or replaces a preparation record.
func (s *Memory) PutEnvironmentPreparation(r core.EnvironmentPreparationRecord) {
	s.writes++
	if s.preparations.byID == nil {
		s.preparations = newTable(func(r core.EnvironmentPreparationRecord) (string, uint64) { return r.ID, r.Seq })
	}
	r.Steps = slices.Clone(r.Steps)
	s.preparations.put(r)
}

// EnvironmentPreparations lists the preparation records in Seq order.
func (s *Memory) EnvironmentPreparations() []core.EnvironmentPreparationRecord {
	out := s.preparations.list()
	for i := range out {
		out[i].Steps = slices.Clone(out[i].Steps)
	}
	return out
}

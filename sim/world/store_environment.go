package world

import (
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim/check"
)

var _ core.PreparationStore = (*observedStore)(nil)

// PutEnvironmentPreparation stores the record and reports each step Core
// newly recorded unknown (the transfer exchange oracle's Core facts).
func (s *observedStore) PutEnvironmentPreparation(r core.EnvironmentPreparationRecord) {
	if z := s.fence; z != nil {
		z.record("preparation "+r.ID, func(d *observedStore) { d.PutEnvironmentPreparation(r) })
		s.Memory.PutEnvironmentPreparation(r)
		return
	}
	s.durable("preparation", r.ID)
	var old []core.PreparationStepRecord
	for _, p := range s.Memory.EnvironmentPreparations() {
		if p.ID == r.ID {
			old = p.Steps
		}
	}
	s.Memory.PutEnvironmentPreparation(r)
	at := s.u.lt(s.u.w.Now())
	facts := make([]check.PrepStepFact, len(r.Steps))
	for i, st := range r.Steps {
		facts[i] = check.PrepStepFact{State: string(st.State), Transfer: st.Transfer, Code: st.ErrorCode, Exit: st.ExitCode}
	}
	s.u.led.PreparationRecorded(at, r.ID, string(r.State), facts)
	for i, st := range r.Steps {
		was := i < len(old) && old[i].State == core.PreparationUnknown
		if st.State == core.PreparationUnknown && st.Transfer != "" && !was {
			s.u.led.PreparationStepUnknown(at, st.Transfer)
			s.u.count("PreparationStepUnknown")
			s.u.lateTransferResult(st.Transfer)
		}
	}
}

// PutSuspension stores the record and reports a suspension Core newly
// recorded unknown (the suspension reply oracle's Core facts).
func (s *observedStore) PutSuspension(r core.SuspensionRecord) {
	if z := s.fence; z != nil {
		z.record("suspension "+r.ID, func(d *observedStore) { d.PutSuspension(r) })
		s.Memory.PutSuspension(r)
		return
	}
	s.durable("suspension", r.ID)
	var old core.SuspensionState
	for _, p := range s.Memory.Suspensions() {
		if p.ID == r.ID {
			old = p.State
		}
	}
	s.Memory.PutSuspension(r)
	unknown := r.State == core.SuspensionQuiesceUnknown || r.State == core.SuspensionResumeUnknown
	if unknown && r.State != old {
		s.u.led.SuspensionUnknown(s.u.lt(s.u.w.Now()), r.ID)
		s.u.count("SuspensionUnknown")
	}
}

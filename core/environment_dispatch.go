package core

import (
	"errors"
	"fmt"
	"slices"
)

// ErrNoEnvironmentDefinition: the Session was created without an
// Environment definition, so no preparation state exists for it.
var ErrNoEnvironmentDefinition = errors.New("core: the session has no environment definition")

// environmentReady is the gate before a Turn of s is prepared on c: the
// Session's Environment definition must have completed on c. It starts
// the connection's preparation when none ran there yet (and no other
// transfer holds the connection), and fails t with the step's code when
// the preparation there ended otherwise. ready: prepare t now; failed: t
// was finished.
func (m *Machine) environmentReady(s *session, t *turn, c *conn) (ready, failed bool) {
	def := s.rec.Agent.Definition
	if def == nil {
		return true, false
	}
	ps := m.prepState()
	id := ps.bySession[c.id][s.rec.ID]
	if id == "" {
		if m.transferBusy(c) {
			return false, false
		}
		rec := &EnvironmentPreparationRecord{Device: c.device, EnvironmentID: s.rec.Agent.EnvironmentID,
			SessionID: sessionUUID(s.rec.Seq), Session: s.rec.ID}
		steps := def.Steps()
		recs, err := checkSteps(rec.EnvironmentID, rec.SessionID, steps)
		assert.That(err == nil, "session %s: a validated environment definition fails: %v", s.rec.ID, err)
		rec.Steps = recs
		if ps.bySession[c.id] == nil {
			ps.bySession[c.id] = map[string]string{}
		}
		m.startEnvPrep(c, rec, steps)
		ps.bySession[c.id][s.rec.ID] = rec.ID
		return false, false
	}
	rec := ps.recs[id]
	switch rec.State {
	case PreparationCompleted:
		return true, false
	case PreparationRunning:
		return false, false
	}
	code, detail := preparationFailure(rec)
	m.finish(t, TurnFailed, code, detail)
	return false, true
}

// preparationFailure names the step that ended a preparation.
func preparationFailure(rec *EnvironmentPreparationRecord) (code, detail string) {
	i := slices.IndexFunc(rec.Steps, func(s PreparationStepRecord) bool { return s.State != PreparationCompleted })
	assert.That(i >= 0, "preparation %s ended %s with every step completed", rec.ID, rec.State)
	st := rec.Steps[i]
	detail = fmt.Sprintf("environment preparation %s: step %d (%s %s) %s", rec.ID, i+1, st.Action, st.Name, st.State)
	if st.State == PreparationFailed && st.ExitCode != 0 {
		detail += fmt.Sprintf(" with exit code %d", st.ExitCode)
	}
	return st.ErrorCode, detail
}

// ReadEnvironment reads the preparations of a Session's Environment
// definition, one per connection that ran it, in start order. Result:
// Preparations (empty when no connection prepared it yet).
type ReadEnvironment struct {
	Call    CallID
	Session string
}

func (ReadEnvironment) isEvent() {}

func (e ReadEnvironment) Describe() string {
	return fmt.Sprintf("api read-environment call=%s session=%s", e.Call, e.Session)
}

func (m *Machine) onReadEnvironment(e ReadEnvironment) {
	s := m.sessions[e.Session]
	if s == nil {
		m.result(APIResult{Call: e.Call, Err: ErrUnknownSession})
		return
	}
	if s.rec.Agent.Definition == nil {
		m.result(APIResult{Call: e.Call, Err: ErrNoEnvironmentDefinition})
		return
	}
	ps := m.prepState()
	out := []EnvironmentPreparationRecord{}
	for _, r := range ps.recs {
		if r.Session == e.Session {
			cp := *r
			cp.Steps = slices.Clone(r.Steps)
			out = append(out, cp)
		}
	}
	slices.SortFunc(out, func(a, b EnvironmentPreparationRecord) int { return compareSeq(a.Seq, b.Seq) })
	m.result(APIResult{Call: e.Call, Value: Preparations(out)})
}

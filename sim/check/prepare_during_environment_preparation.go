package check

import (
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// Check: prepare_during_environment_preparation (rules.go), from the
// frames reaching a daemon (Core's and forged ones alike) and its
// answers. A runtime preparation of an Environment is in progress at a
// daemon from the ready it sent for the transfer's begin until the
// terminal result it sent for it (completed, rejected, failed, unknown)
// or the connection ended; an execution_prepare bound to that
// Environment reaching the daemon on that connection meanwhile is
// refused resource_unavailable (wire-reference §3.3), read-only profiles
// included — or with a code the daemon gives before it looks at the
// Environment (the configuration or the declaration) — never granted.
const CheckPrepareDuringEnvPrep = "prepare_during_environment_preparation"

// MarkPrepareRefusedDuringEnvPrep: the rule demanded a refusal and saw it.
const MarkPrepareRefusedDuringEnvPrep Mark = "prepare_refused_during_environment_preparation"

type envPrepState struct {
	begins map[string]string // conn\x00transfer → its begin's Environment, until answered
	busy   map[string]string // conn\x00transfer → conn\x00its Environment, from ready to the terminal result
	judged map[string]string // conn\x00request → the Environment being prepared at its arrival
}

// envPrepReceived notes a transfer begin reaching a daemon.
func (l *Ledger) envPrepReceived(conn, id string, p wire.RuntimePrepare) {
	if id == "" || p.Step != wire.StepBegin || p.Validate() != nil {
		return
	}
	s := &l.wsRuntime.envPrep
	if _, busy := s.busy[pairKey(conn, id)]; !busy {
		made(&s.begins)[pairKey(conn, id)] = p.EnvironmentID
	}
}

// envPrepResultSent follows a daemon's transfer results.
func (l *Ledger) envPrepResultSent(conn, k string, p wire.RuntimePrepareResult) {
	s := &l.wsRuntime.envPrep
	env, begun := s.begins[k]
	delete(s.begins, k)
	switch {
	case p.Outcome == wire.OutcomeReady && begun:
		made(&s.busy)[k] = pairKey(conn, env)
	case p.Outcome == wire.OutcomeReady, p.Outcome == wire.OutcomeReceived:
	default:
		delete(s.busy, k)
	}
}

// prepareDuringEnvPrep notes a prepare bound to env that reached its
// daemon on conn while a runtime preparation of env was in progress there.
func (l *Ledger) prepareDuringEnvPrep(conn, request, env string) {
	s := &l.wsRuntime.envPrep
	if env == "" {
		return
	}
	if countIf(s.busy, func(v string) bool { return v == pairKey(conn, env) }) > 0 {
		made(&s.judged)[pairKey(conn, request)] = env
	}
}

// judgeEnvPrepExclusion holds the first answer to such a prepare.
func (l *Ledger) judgeEnvPrepExclusion(ev WireEvent, k string, p wire.PreparationStatus) {
	s := &l.wsRuntime.envPrep
	env, ok := s.judged[k]
	if !ok {
		return
	}
	delete(s.judged, k)
	switch {
	case p.State == wire.StateRejected && p.ErrorCode == wire.PrepResourceUnavailable:
		l.reach(MarkPrepareRefusedDuringEnvPrep)
	case p.State == wire.StateRejected && slices.Contains(prepareValidationCodes, p.ErrorCode):
	default:
		l.violate(ev.At, CheckPrepareDuringEnvPrep, "%s answered prepare %s bound to Environment %s %s %s while a runtime preparation of it was in progress, want rejected %s",
			ev.From, ev.Frame.ID, env, p.State, p.ErrorCode, wire.PrepResourceUnavailable)
	}
}

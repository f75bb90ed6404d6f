package check

import (
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

// Check: prepare_during_environment_preparation (rules.go), from the
// frames reaching a daemon (Core's and forged ones alike) and its
// answers. A runtime preparation is in progress from the ready the daemon
// sent for the transfer's begin until the terminal result it sent for it
// or the connection ended.
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

// judgePrepareExcluded holds the first answer to a prepare bound to env
// that reached its daemon while during was in progress (a write or export
// of env: workspace_write_exclusion; a runtime preparation of it): refused
// resource_unavailable, or with a code the daemon gives before it looks
// at the Environment (the configuration or the declaration), never
// granted.
func (l *Ledger) judgePrepareExcluded(ev WireEvent, p wire.PreparationStatus, env, check string, refused Mark, during string) {
	switch {
	case p.State == wire.StateRejected && p.ErrorCode == wire.PrepResourceUnavailable:
		l.reach(refused)
	case p.State == wire.StateRejected && slices.Contains(prepareValidationCodes, p.ErrorCode):
	default:
		l.violate(ev.At, check, "%s answered prepare %s bound to Environment %s %s %s while %s was in progress, want rejected %s",
			ev.From, ev.Frame.ID, env, p.State, p.ErrorCode, during, wire.PrepResourceUnavailable)
	}
}

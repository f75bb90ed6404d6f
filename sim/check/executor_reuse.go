package check

import (
	"encoding/json"

	"github.com/turnstile-sim/turnstile/wire"
)

// CheckExecutorReuse is rule executor_reuse (rules.go), from the executor
// index (executor_index.go): the first prepare of a request delivered to
// the device (honest or forged, the daemon acts on both), the status
// naming an executor, and each Run's done, whose metadata names the
// executor's native session.
const CheckExecutorReuse = "executor_reuse"

// reuseConfig is c with its history fields cleared, as canonical JSON.
func reuseConfig(c wire.ExecutionConfiguration) string {
	c.AgentSessionID, c.RequireExistingNativeSession = "", false
	b, err := json.Marshal(c)
	if err != nil {
		panic("check: executor configuration does not marshal: " + err.Error())
	}
	return string(b)
}

// judgeReuse judges the first status of a request naming executor x, p
// being the request's prepare; a status that creates x sets what a reuse
// is compared with.
func (l *Ledger) judgeReuse(ev WireEvent, st wire.PreparationStatus, x *executor, p wire.ExecutionPrepare) {
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	if l.execs.judged[k] {
		return
	}
	made(&l.execs.judged)[k] = true
	c, r := p.Configuration, &x.reuse
	if !st.Reused {
		if r.set {
			// executor IDs are never reused within a daemon process
			l.violate(ev.At, CheckExecutorReuse, "%s answered prepare %s with executor %s, which an earlier prepare created, but reused=false",
				ev.From, ev.Frame.ID, st.ExecutorID)
			return
		}
		// a prepare requiring existing history without naming it may be
		// prepared to resume the identity the daemon kept for the Session
		// from an executor retired with its connection: unknown until a
		// done names it
		known := !(c.RequireExistingNativeSession && c.AgentSessionID == "")
		if !known {
			l.reach(MarkHistoryRecoveredOnNewExecutor)
		}
		*r = reuseFacts{set: true, session: p.SessionID, config: reuseConfig(c), native: c.AgentSessionID, known: known}
		return
	}
	if st.State != wire.StateReady || st.Revision != 1 {
		l.violate(ev.At, CheckExecutorReuse, "%s answered prepare %s by reusing executor %s with %s at revision %d; a reuse does no native work and answers ready at revision 1",
			ev.From, ev.Frame.ID, st.ExecutorID, st.State, st.Revision)
	}
	switch {
	case !r.set: // created before this ledger knew the device (or unseen): nothing to compare
	case r.session != p.SessionID:
		l.violate(ev.At, CheckExecutorReuse, "%s reused executor %s of Session %s for a prepare of Session %s (%s)",
			ev.From, st.ExecutorID, r.session, p.SessionID, ev.Frame.ID)
	case r.config != reuseConfig(c):
		l.violate(ev.At, CheckExecutorReuse, "%s reused executor %s for prepare %s whose configuration differs from the one it was prepared with (documented: configuration_conflict)",
			ev.From, st.ExecutorID, ev.Frame.ID)
	case !r.known:
	case c.AgentSessionID != "" && r.native != c.AgentSessionID:
		l.violate(ev.At, CheckExecutorReuse, "%s reused executor %s holding native session %q for prepare %s naming %q",
			ev.From, st.ExecutorID, r.native, ev.Frame.ID, c.AgentSessionID)
	case c.RequireExistingNativeSession && c.AgentSessionID == "" && r.native == "":
		l.violate(ev.At, CheckExecutorReuse, "%s reused executor %s holding no native session for prepare %s requiring existing history (documented: history_unavailable)",
			ev.From, st.ExecutorID, ev.Frame.ID)
	}
}

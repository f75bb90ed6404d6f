package check

import (
	"encoding/json"

	"github.com/turnstile-sim/turnstile/wire"
)

// CheckExecutorReuse is rule executor_reuse (rules.go), from the wire: the
// first prepare of a request delivered to the device (the connection
// index's: honest or forged, the daemon acts on both), the status naming
// an executor, and each Run's done, whose metadata names the executor's
// native session. A daemon crash forgets its executors (the restarted
// daemon numbers them afresh).
const CheckExecutorReuse = "executor_reuse"

type reuseExec struct {
	session string
	config  string // the creating prepare's configuration, history fields cleared
	native  string // the native session it holds ("" none)
	known   bool   // native is known: a Run started on a new root leaves it unknown until a done names it
	run     string // the Run last started on it
	by      string // the request that created it (conn\x00request)
}

type reuseState struct {
	execs  map[string]map[string]*reuseExec // device → executor
	judged map[string]bool                  // conn\x00request: first status judged
}

// reuseConfig is c with its history fields cleared, as canonical JSON.
func reuseConfig(c wire.ExecutionConfiguration) string {
	c.AgentSessionID, c.RequireExistingNativeSession = "", false
	b, err := json.Marshal(c)
	if err != nil {
		panic("check: executor configuration does not marshal: " + err.Error())
	}
	return string(b)
}

// observeReuse follows what an honest daemon sent (a rogue daemon has no
// Harness behind it).
func (l *Ledger) observeReuse(ev WireEvent) {
	if ev.Kind != WireSent || ev.From == CoreNode || !ev.HasFrame() {
		return
	}
	switch p := ev.Frame.Payload.(type) {
	case wire.PreparationStatus:
		l.reuseStatus(ev, p)
	case wire.Done:
		native := ""
		if p.Metadata != nil {
			native = p.Metadata.AgentSessionID
		}
		l.reuseRunEnded(ev.From, ev.Frame.ID, native)
	case wire.RunError:
		l.reuseRunEnded(ev.From, ev.Frame.ID, "")
	}
}

// reuseRunEnded: run ended on device; a done naming a native session
// tells the executor's identity.
func (l *Ledger) reuseRunEnded(device, run, native string) {
	for _, x := range l.reuse.execs[device] { //tidy:sorted updates only
		if x.run == run {
			x.run = ""
			if native != "" {
				x.native, x.known = native, true
			}
		}
	}
}

func (l *Ledger) reuseStatus(ev WireEvent, st wire.PreparationStatus) {
	s := &l.reuse
	if st.ExecutorID == "" {
		return
	}
	x := s.execs[ev.From][st.ExecutorID]
	if st.State == wire.StateStarting || st.State == wire.StateStarted {
		if x != nil {
			x.run = st.RunID
			if x.native == "" {
				x.known = false // a new root may start: only its done can name it
			}
		}
		return
	}
	k := connFrameKey(ev.Conn, ev.Frame.ID)
	p, ok := l.conn(ev.Conn).prepared[ev.Frame.ID]
	if !ok || s.judged[k] {
		return
	}
	made(&s.judged)[k] = true
	c := p.Configuration
	if !st.Reused {
		if x != nil && x.by != k {
			// executor IDs are never reused within a daemon process
			l.violate(ev.At, CheckExecutorReuse, "%s answered prepare %s with executor %s, which an earlier prepare created, but reused=false",
				ev.From, ev.Frame.ID, st.ExecutorID)
			return
		}
		inner(made(&s.execs), ev.From)[st.ExecutorID] = &reuseExec{session: p.SessionID, config: reuseConfig(c), native: c.AgentSessionID, known: true, by: k}
		return
	}
	if st.State != wire.StateReady || st.Revision != 1 {
		l.violate(ev.At, CheckExecutorReuse, "%s answered prepare %s by reusing executor %s with %s at revision %d; a reuse does no native work and answers ready at revision 1",
			ev.From, ev.Frame.ID, st.ExecutorID, st.State, st.Revision)
	}
	if x == nil {
		return // created before this ledger knew the device (or unseen): nothing to compare
	}
	switch {
	case x.session != p.SessionID:
		l.violate(ev.At, CheckExecutorReuse, "%s reused executor %s of Session %s for a prepare of Session %s (%s)",
			ev.From, st.ExecutorID, x.session, p.SessionID, ev.Frame.ID)
	case x.config != reuseConfig(c):
		l.violate(ev.At, CheckExecutorReuse, "%s reused executor %s for prepare %s whose configuration differs from the one it was prepared with (documented: configuration_conflict)",
			ev.From, st.ExecutorID, ev.Frame.ID)
	case !x.known:
	case c.AgentSessionID != "" && x.native != c.AgentSessionID:
		l.violate(ev.At, CheckExecutorReuse, "%s reused executor %s holding native session %q for prepare %s naming %q",
			ev.From, st.ExecutorID, x.native, ev.Frame.ID, c.AgentSessionID)
	case c.RequireExistingNativeSession && c.AgentSessionID == "" && x.native == "":
		l.violate(ev.At, CheckExecutorReuse, "%s reused executor %s holding no native session for prepare %s requiring existing history (documented: history_unavailable)",
			ev.From, st.ExecutorID, ev.Frame.ID)
	}
}

// reuseNodeDown: the daemon crashed with its Harness and executors.
func (l *Ledger) reuseNodeDown(device string) { delete(l.reuse.execs, device) }

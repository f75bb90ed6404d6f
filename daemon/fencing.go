package daemon

import "github.com/turnstile-sim/turnstile/wire"

// Suspension fencing (wire-reference §3.12). Core quiesces the Runtime of
// an Environment before the Sandbox Provider suspends it, and resumes it
// afterwards. Each attempt carries a suspend_id that fences it: only the
// suspension that quiesced the Runtime can resume it.
//
//   - environment_quiesce is answered environment_quiesced on the same
//     Envelope ID, both IDs echoed. It is accepted when nothing is active
//     (no unsettled preparation, execution or transfer); the Runtime then
//     refuses new work (execution_prepare, runtime_prepare and a
//     workspace_write begin answer resource_unavailable) and closes its
//     connection after the reply.
//     Repeating the accepted quiesce (its reply may have been lost) is
//     accepted again; another suspend_id while quiesced, or a quiesce
//     while work is active, is refused resource_busy.
//   - environment_resume is answered environment_resumed. The quiescing
//     suspension's resume is accepted and lifts the fence; any other is
//     refused not_suspended, except that a resume with rollback on a
//     Runtime that is not quiesced is an accepted no-op (the quiesce was
//     uncertain and the source kept running), and repeating the last
//     accepted resume is accepted without effect.
//
// accepted:true never carries a code. A request without both IDs cannot be
// answered validly and is dropped without effect. The fence belongs to the
// Runtime process, not to a connection: it survives reconnects.

// Fencing refusal codes (the documents name these two; the set is not
// confirmed closed).
const (
	CodeResourceBusy = "resource_busy"
	CodeNotSuspended = "not_suspended"
)

// fence is the Runtime's suspension state.
type fence struct {
	quiesced bool
	env      string
	suspend  string
	// resumed is the last suspension this Runtime resumed: repeating its
	// resume (the reply may have been lost) is accepted without effect.
	resumedEnv, resumed string
}

// quiesced reports whether new work is refused by a suspension.
func (m *Machine) quiesced() bool { return m.fence.quiesced }

// busyForQuiesce reports whether any work would be cut by a suspension.
func (m *Machine) busyForQuiesce() bool {
	if m.activeCount() > 0 || m.transferActive() {
		return true
	}
	for _, a := range m.conn.order {
		if !a.terminal() {
			return true
		}
	}
	return false
}

func (m *Machine) onQuiesce(id string, q wire.EnvironmentQuiesce) {
	if id == "" || q.Validate() != nil {
		return
	}
	reply := wire.EnvironmentQuiesced{EnvironmentID: q.EnvironmentID, SuspendID: q.SuspendID}
	f := &m.fence
	switch {
	case f.quiesced && f.env == q.EnvironmentID && f.suspend == q.SuspendID:
		reply.Accepted = true
	case f.quiesced, m.busyForQuiesce():
		reply.ErrorCode = CodeResourceBusy
	default:
		*f = fence{quiesced: true, env: q.EnvironmentID, suspend: q.SuspendID}
		reply.Accepted = true
	}
	gen := m.conn.gen
	m.send(gen, wire.Frame{ID: id, Payload: reply}, m.cfg.Limits.ReceiptSendBudget)
	if reply.Accepted {
		m.emit(CloseConn{Conn: gen, Reason: "quiesced"})
	}
}

func (m *Machine) onResume(id string, r wire.EnvironmentResume) {
	if id == "" || r.Validate() != nil {
		return
	}
	reply := wire.EnvironmentResumed{EnvironmentID: r.EnvironmentID, SuspendID: r.SuspendID}
	f := &m.fence
	switch {
	case f.quiesced && f.env == r.EnvironmentID && f.suspend == r.SuspendID:
		*f = fence{resumedEnv: r.EnvironmentID, resumed: r.SuspendID}
		reply.Accepted = true
	case !f.quiesced && f.resumedEnv == r.EnvironmentID && f.resumed == r.SuspendID:
		reply.Accepted = true // a repeated resume: the fence is already lifted
	case !f.quiesced && r.Rollback:
		reply.Accepted = true // no-op: the uncertain quiesce never fenced this Runtime
	default:
		reply.ErrorCode = CodeNotSuspended
	}
	m.send(m.conn.gen, wire.Frame{ID: id, Payload: reply}, m.cfg.Limits.ReceiptSendBudget)
}

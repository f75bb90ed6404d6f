package core

import "github.com/turnstile-sim/turnstile/wire"

// Settling an unknown write. A write answered unknown because Core's
// 195 s wait ended after its commit left is not settled: its mutation
// stays reserved (durably) and blocks the Session's later writes. The
// only exact settlement is the Runtime's own receipt for that mutation ID
// (seed: 精确的 commit 或拒绝回执释放 mutation owner), so while the
// connection the commit left on stays open Core keeps listening for it: a
// late completed or rejected receipt that passes the receipt validator
// settles the mutation durably, and later writes are admitted again. A
// late unknown or malformed receipt, a lost connection or a restart ends
// the listening; the mutation then stays unsettled (no request is ever
// replayed, and nothing else proves what the installer did).

// wsLate is an unknown write whose receipt may still arrive.
type wsLate struct {
	sess *session
	conn *conn
	mut  MutationRecord
}

// awaitLateReceipt keeps listening for w's receipt after Core answered it
// unknown at its wait.
func (m *Machine) awaitLateReceipt(w *wsWrite) {
	if !w.mut.CommitSent {
		return
	}
	m.ws.late[w.mut.ID] = &wsLate{sess: w.sess, conn: w.conn, mut: w.mut}
}

// onLateReceipt settles an unknown write by its exact receipt. Any other
// answer (unknown, or one that fails the validator) proves nothing either
// way and keeps the uncertainty: Core goes on listening for the exact one
// until the connection ends.
func (m *Machine) onLateReceipt(l *wsLate, r wire.WorkspaceWriteResult) {
	exact := (r.Outcome == wire.OutcomeRejected && r.Validate() == nil) ||
		(r.Outcome == wire.OutcomeCompleted && r.ValidateAgainst(wire.OutcomeCompleted, 0, l.mut.SizeBytes) == nil)
	if !exact {
		return
	}
	delete(m.ws.late, l.mut.ID)
	if mu := l.sess.rec.Mutation; mu != nil && mu.ID == l.mut.ID {
		m.settleMutation(l.sess)
	}
}

// lateReceiptsConnLost stops listening on a lost connection: no receipt
// can arrive on it any more.
func (m *Machine) lateReceiptsConnLost(c *conn) {
	for id, l := range m.ws.late { //tidy:sorted deleting in any order gives the same map
		if l.conn == c {
			delete(m.ws.late, id)
		}
	}
}

package daemon

// Preparation held behind an installation (准备与执行顺序: every
// connection initialises its Environment through runtime_prepare before
// execution, and native factories receive capabilities only once the
// installed snapshot is loaded). While an InstallTransfer call is
// outstanding — on the connection's transfer or on one a lost connection
// orphaned — a new executor's native Prepare of another Environment (or
// of none: a prepare bound to the Environment being prepared is refused
// resource_unavailable, admission.go) is not issued: the admission
// answers preparing (the Runtime owns the preparation) and its Prepare
// waits, in arrival order, until no installation runs; it then carries
// the snapshot as the installations left it. Reusing a parked executor
// needs no factory and is not held.

// heldPrepare is a native Prepare waiting for installations to end.
type heldPrepare struct {
	executor string
	op       Prepare
}

// installing reports whether an installation is outstanding.
func (m *Machine) installing() bool {
	if t := m.conn.transfer; t != nil && t.installing {
		return true
	}
	for _, t := range m.xfer.orphans { //tidy:sorted any-match only
		if t.installing {
			return true
		}
	}
	return false
}

// issuePrepare issues ex's native Prepare now, or holds it while an
// installation runs.
func (m *Machine) issuePrepare(ex *executor, op Prepare) {
	if m.installing() {
		m.xfer.held = append(m.xfer.held, heldPrepare{executor: ex.id, op: op})
		return
	}
	op.Installed = m.installedSnapshot()
	m.nativeCall(&call{kind: callPrepare, executor: ex.id}, op)
}

// releaseHeld issues the held Prepares once no installation runs, each
// with the snapshot as it now stands.
func (m *Machine) releaseHeld() {
	if m.installing() || len(m.xfer.held) == 0 {
		return
	}
	held := m.xfer.held
	m.xfer.held = nil
	for _, h := range held {
		ex := m.executors[h.executor]
		assert.That(ex != nil && ex.phase == phasePreparing, "held prepare of executor %s not preparing", h.executor)
		h.op.Installed = m.installedSnapshot()
		m.nativeCall(&call{kind: callPrepare, executor: ex.id}, h.op)
	}
}

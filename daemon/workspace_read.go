package daemon

import "github.com/turnstile-sim/turnstile/wire"

// workspace_read (wire-reference §3.9): a byte read or a directory
// listing against an existing handle or the Run it was transferred to,
// with the exact frozen Environment identity. The answer is sent once the
// owner finished the access and closed what it opened; an interrupted or
// ambiguous read is answered unknown and stops later reads of that owner.
// A second request with the ID of a pending read starts nothing (the
// pending read answers that ID).

// pendingRead is a dispatched read of the current connection.
type pendingRead struct {
	gen    ConnID
	req    wire.WorkspaceRead
	reader string // reader target, if any
	owner  readOwner
}

// readOwner identifies whose later reads an ambiguous read stops: a
// reader or an executor (Turn reads belong to their executor).
type readOwner struct {
	reader   string
	executor string
}

func (m *Machine) readRejected(id, code string) {
	m.send(m.conn.gen, wire.Frame{ID: id, Payload: wire.WorkspaceReadResult{Outcome: wire.OutcomeRejected, ErrorCode: code}},
		m.cfg.Limits.ReceiptSendBudget)
}

// onWorkspaceRead handles workspace_read.
func (m *Machine) onWorkspaceRead(id string, p wire.WorkspaceRead) {
	switch {
	case id == "":
		return // nothing to correlate an answer with
	case m.ws.reads[id] != nil:
		return // duplicate of a pending read: it starts nothing
	case p.Validate() != nil:
		m.readRejected(id, wire.ReadInvalidRequest)
		return
	case m.shutdown:
		m.readRejected(id, wire.ReadResourceUnavail)
		return
	case len(m.ws.reads) >= m.cfg.Workspace.ReadsInFlightMax:
		m.readRejected(id, wire.ReadCapacity)
		return
	}
	target, owner, env, caps, code := m.readTarget(p)
	switch {
	case code != "":
	case !caps.WorkspaceReadPreparation.IsSupported():
		code = wire.ReadUnsupported // the owner's kind serves no workspace
	case env != p.EnvironmentID:
		code = wire.ReadInvalidRequest // not the frozen Environment identity
	case m.ownerBlocked(owner):
		code = wire.ReadResourceUnavail
	}
	if code != "" {
		m.readRejected(id, code)
		return
	}
	pr := &pendingRead{gen: m.conn.gen, req: p, reader: target.Reader, owner: owner}
	m.ws.reads[id] = pr
	if r := m.ws.readers[target.Reader]; r != nil {
		r.ops++
	}
	m.nativeCall(&call{kind: callReadWorkspace, op: id, reader: target.Reader, read: pr},
		ReadWorkspace{Target: target, Environment: env, Request: p})
}

// readTarget resolves the owner of a read: a ready read-only profile, a
// ready executable preparation's executor, or the Turn of a started
// handle or of a Run of this connection.
func (m *Machine) readTarget(p wire.WorkspaceRead) (ReadTarget, readOwner, string, wire.AgentKindCapabilities, string) {
	var none wire.AgentKindCapabilities
	if p.RunID != "" {
		t := m.conn.runs[p.RunID]
		if t == nil {
			return ReadTarget{}, readOwner{}, "", none, wire.ReadResourceUnavail
		}
		return m.turnTarget(t)
	}
	a := m.conn.byHandle[p.Handle]
	if a == nil {
		return ReadTarget{}, readOwner{}, "", none, wire.ReadResourceUnavail
	}
	m.expireIfDue(a)
	switch {
	case a.reader != "":
		r := m.ws.readers[a.reader]
		if a.state != wire.StateReady || r == nil || r.releasing || r.handle != a.handle {
			return ReadTarget{}, readOwner{}, "", none, wire.ReadResourceUnavail
		}
		return ReadTarget{Reader: r.id}, readOwner{reader: r.id}, r.env, r.caps, ""
	case a.state == wire.StateReady:
		ex := m.executors[a.executor]
		return ReadTarget{Executor: ex.id}, readOwner{executor: ex.id}, ex.env, ex.caps, ""
	case a.turn != "":
		if t := m.turns[a.turn]; t != nil && t.routed {
			return m.turnTarget(t)
		}
	}
	return ReadTarget{}, readOwner{}, "", none, wire.ReadResourceUnavail
}

func (m *Machine) turnTarget(t *turn) (ReadTarget, readOwner, string, wire.AgentKindCapabilities, string) {
	ex := m.executors[t.executor]
	if ex == nil || t.settled || !t.native {
		return ReadTarget{}, readOwner{}, "", wire.AgentKindCapabilities{}, wire.ReadResourceUnavail
	}
	return ReadTarget{Turn: t.id}, readOwner{executor: ex.id}, ex.env, ex.caps, ""
}

func (m *Machine) ownerBlocked(o readOwner) bool {
	if r := m.ws.readers[o.reader]; r != nil {
		return r.blocked
	}
	if ex := m.executors[o.executor]; ex != nil {
		return ex.readBlocked
	}
	return false
}

func (m *Machine) blockOwner(o readOwner) {
	if r := m.ws.readers[o.reader]; r != nil {
		r.blocked = true
	}
	if ex := m.executors[o.executor]; ex != nil {
		ex.readBlocked = true
	}
}

// readDone answers a read: a result the request does not allow is
// ambiguous, answered unknown, and, like any unknown read, stops later
// reads of the owner.
func (m *Machine) readDone(c *call, res ReadWorkspaceResult) {
	pr := c.read
	if r := m.ws.readers[c.reader]; r != nil {
		m.readerOpDone(r)
	}
	out := res.Result
	if out.ValidateAgainst(pr.req) != nil {
		out = wire.WorkspaceReadResult{Outcome: wire.OutcomeUnknown, ErrorCode: wire.ReadUnconfirmed}
	}
	if out.Outcome == wire.OutcomeUnknown {
		m.blockOwner(pr.owner)
	}
	if m.ws.reads[c.op] != pr {
		return // its connection is gone: the answer is never sent elsewhere
	}
	delete(m.ws.reads, c.op)
	m.send(pr.gen, wire.Frame{ID: c.op, Payload: out}, m.cfg.Limits.ReceiptSendBudget)
}

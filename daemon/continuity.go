package daemon

import "github.com/turnstile-sim/turnstile/wire"

// keptSession is a Session's native identity, committed by a settled
// Turn on an executor that retired with its lost connection.
type keptSession struct {
	native string
	seq    uint64 // order kept: the oldest is forgotten first
}

// keepContinuity keeps session's native identity when the executor
// holding it retires with its connection (runtime-harness-protocol:
// Runtime 会在发布 Done 前提交原生连续性状态). A Turn whose done was lost
// with the connection leaves Core without the identity; the next
// connection's prepare requiring existing history resumes it on a new
// executor. At most ExecutorsMax identities are kept, the oldest
// forgotten first (a prepare of its Session then answers
// history_unavailable, as after a daemon restart).
func (m *Machine) keepContinuity(session, native string) {
	if native == "" {
		return
	}
	m.seqKept++
	m.continuity[session] = keptSession{native: native, seq: m.seqKept}
	for len(m.continuity) > m.cfg.Limits.ExecutorsMax {
		oldest := ""
		for s, k := range m.continuity { //tidy:sorted the minimum of unique sequence numbers
			if oldest == "" || k.seq < m.continuity[oldest].seq {
				oldest = s
			}
		}
		delete(m.continuity, oldest)
	}
}

// sessionNative is the native identity a prepare of session finds: its
// executor's, or with none the one kept from a retired executor.
func (m *Machine) sessionNative(session string, ex *executor) string {
	if ex != nil {
		return ex.nativeSession
	}
	return m.continuity[session].native
}

// resumeKept is the configuration a new executor of session is prepared
// with: a prepare requiring existing history without naming it resumes
// the identity kept for the Session. The kept identity moves to the new
// executor, which keeps it again if it too retires with its connection.
func (m *Machine) resumeKept(session string, c wire.ExecutionConfiguration) wire.ExecutionConfiguration {
	k, ok := m.continuity[session]
	if !ok {
		return c
	}
	delete(m.continuity, session)
	if c.AgentSessionID == "" && c.RequireExistingNativeSession {
		c.AgentSessionID = k.native
	}
	return c
}

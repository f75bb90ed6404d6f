package daemon

import (
	"errors"

	"github.com/turnstile-sim/turnstile/wire"
)

// The read-only preparation profile (execution_prepare with
// workspace_read_only): only the bound Environment and the resource
// identity; no execution options, credentials, native continuation or
// model input. It opens a local reader on the bound directory, never a
// Harness process, refuses execution_start, and publishes `released` only
// after the local close is confirmed. A failed close keeps the reader
// owned (and its active slot), answers `failed cleanup_unconfirmed`, and
// is retried serially; the retry's confirmed close publishes `released`.

// validateReadOnly applies the profile's rules after the common ones
// (session, state key, strict resume) and the kind's availability: the
// wire validator of the profile, and the kind's declaration.
func (m *Machine) validateReadOnly(p wire.ExecutionPrepare, caps wire.AgentKindCapabilities) string {
	if err := p.Validate(); err != nil {
		var ce *wire.CodeError
		if errors.As(err, &ce) && ce.Code == wire.PrepInvalidConfiguration {
			return CodeInvalidConfiguration
		}
		return CodeUnsupportedReadPreparation
	}
	if !caps.WorkspaceReadPreparation.IsSupported() {
		return CodeUnsupportedReadPreparation
	}
	return ""
}

// admitReadOnly: a profile holds an active slot until its close is
// confirmed, so the active limit applies; no executor is involved.
func (m *Machine) admitReadOnly() string {
	if m.activeCount() >= m.cfg.Limits.ActiveMax {
		return CodePreparationCapacity
	}
	m.makeRecordRoom()
	return ""
}

// readerCount counts readers not yet closed: each is an active
// preparation (uncertain cleanups included).
func (m *Machine) readerCount() int { return len(m.ws.readers) }

// grantReadOnly creates the profile's admission and opens its reader.
func (m *Machine) grantReadOnly(requestID, fp string, p wire.ExecutionPrepare) {
	c := p.Configuration
	r := m.mintReader()
	k := m.cfg.kind(c.AgentKind)
	r.gen, r.session, r.env, r.caps, r.opening = m.conn.gen, p.SessionID, c.LocalEnvironment.ID, k.Capabilities, true
	a := &admission{
		gen:       m.conn.gen,
		requestID: requestID,
		handle:    m.mintHandle(),
		fp:        fp,
		session:   p.SessionID,
		reader:    r.id,
		env:       r.env,
		expiresAt: m.now.Add(m.cfg.Limits.AdmissionExpiry),
	}
	r.handle = a.handle
	m.conn.byRequest[requestID] = a
	m.conn.byHandle[a.handle] = a
	m.conn.order = append(m.conn.order, a)
	m.setTimer(expiryTimer(a.handle), &timer{kind: timerExpiry, at: a.expiresAt, handle: a.handle})
	m.advance(a, wire.StatePreparing, "")
	m.nativeCall(&call{kind: callOpenWorkspace, reader: r.id}, OpenWorkspace{
		Reader: r.id, Kind: k.Kind, Session: p.SessionID, Environment: r.env,
		Directory: c.LocalEnvironment.WorkspaceDirectory,
	})
}

// openDone: an open reader makes its admission ready, unless a release
// came while it was opening, when it is closed and the release answered;
// a failed open fails it (preparation_failed, or cleanup_unconfirmed when
// the failure left a resource, which stays owned and is closed).
func (m *Machine) openDone(c *call, res OpenWorkspaceResult) {
	r := m.ws.readers[c.reader]
	assert.That(r != nil && r.opening, "open result for reader %s not opening", c.reader)
	a := m.admissionOf(r.handle)
	if a != nil && m.expireIfDue(a) {
		a = nil // expired: the close it asked for waits for this outcome
	}
	r.opening = false
	switch {
	case res.Err == "":
		r.open = true
		if a != nil && a.state == wire.StatePreparing && !r.releasing {
			m.advance(a, wire.StateReady, "")
			return
		}
		// A release that came while the reader was opening (its expiry
		// is cancelled) is answered by this close: released once it is
		// confirmed, never ready.
		m.closeReader(r)
	case res.Retained:
		r.open = true
		r.closeFailed = true
		if a != nil && a.state == wire.StatePreparing {
			m.cancelTimer(expiryTimer(a.handle))
			r.handle = ""
			m.advance(a, wire.StateFailed, CodeCleanupUnconfirmed)
		}
		m.closeReader(r)
	default:
		delete(m.ws.readers, r.id) // nothing was left behind
		if a != nil && a.state == wire.StatePreparing {
			m.cancelTimer(expiryTimer(a.handle))
			m.advance(a, wire.StateFailed, CodePreparationFailed)
		}
	}
}

// detachReader ends the reader's reservation by an ended admission
// (expired, retired with its connection, or shut down): the reader is
// closed; nothing about the close is published.
func (m *Machine) detachReader(a *admission) {
	r := m.ws.readers[a.reader]
	if r == nil || r.handle != a.handle {
		return
	}
	r.handle = ""
	r.releasing = false
	m.closeReader(r)
}

// releaseReadOnly handles execution_release of a live profile: the
// admission stays as it is until the close has an outcome.
func (m *Machine) releaseReadOnly(a *admission) {
	r := m.ws.readers[a.reader]
	assert.That(r != nil && r.handle == a.handle, "live read-only admission %s without its reader", a.handle)
	if r.releasing {
		m.sendStatus(a) // the close is outstanding: never claims released early
		return
	}
	m.cancelTimer(expiryTimer(a.handle))
	r.releasing = true
	m.closeReader(r)
}

// closeReader closes r once its operations drained (closes are serial).
func (m *Machine) closeReader(r *reader) {
	if r.opening || r.ops > 0 {
		r.closeWanted = true
		return
	}
	r.closeWanted = false
	if r.closeCall != "" {
		return
	}
	if _, waiting := m.timers[readerCloseRetryTimer(r.id)]; waiting {
		return
	}
	m.issueReaderClose(r)
}

func (m *Machine) issueReaderClose(r *reader) {
	c := &call{kind: callCloseWorkspace, reader: r.id}
	m.nativeCall(c, CloseWorkspace{Reader: r.id})
	r.closeCall = c.id
}

// readerOpDone accounts for a finished read or export and issues a
// close that was waiting for it.
func (m *Machine) readerOpDone(r *reader) {
	r.ops--
	if r.closeWanted && r.ops == 0 {
		m.closeReader(r)
	}
}

// readerCloseDone: a confirmed close frees the reader and publishes the
// release it answers; a failed one fails a pending release with
// cleanup_unconfirmed and retries with backoff, keeping the reader.
func (m *Machine) readerCloseDone(c *call, res CloseResult) {
	r := m.ws.readers[c.reader]
	assert.That(r != nil && r.closeCall == c.id, "close result for unknown reader %s", c.reader)
	r.closeCall = ""
	a := m.admissionOf(r.handle)
	if a == nil && r.releasing {
		a = m.releasedRecord(r)
	}
	if res.Err != "" {
		r.closeFailed = true
		r.closeAttempts++
		m.setTimer(readerCloseRetryTimer(r.id), &timer{kind: timerReaderCloseRetry,
			at: m.now.Add(m.backoff(r.closeAttempts)), handle: r.id})
		if a != nil && a.live() {
			r.handle = ""
			m.advance(a, wire.StateFailed, CodeCleanupUnconfirmed)
		}
		return
	}
	delete(m.ws.readers, r.id)
	m.cancelTimer(readerCloseRetryTimer(r.id))
	switch {
	case a == nil:
	case a.live():
		m.advance(a, wire.StateReleased, "")
	case a.state == wire.StateFailed && a.code == CodeCleanupUnconfirmed:
		// The retry confirmed the close the release asked for: the
		// release is published now, at the next revision.
		a.revision++
		a.state, a.code = wire.StateReleased, ""
		m.sendStatus(a)
	}
}

// releasedRecord finds the record of a release whose close failed
// earlier, while it is still kept on the connection r opened on.
func (m *Machine) releasedRecord(r *reader) *admission {
	if !m.conn.up || m.conn.gen != r.gen {
		return nil
	}
	for _, a := range m.conn.order {
		if a.reader == r.id && a.state == wire.StateFailed && a.code == CodeCleanupUnconfirmed {
			return a
		}
	}
	return nil
}

package core

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// device is a Runtime device: at most one current connection.
type device struct {
	id     string
	conn   ConnID // 0: none
	newest ConnID // highest connection ID ever opened for the device
	// lost is when its last connection closed; zero for an enrolled
	// device not connected since the machine started (see reconnecting).
	lost time.Time
	// enrolled: in Config.Devices; declared: a connection of it sent a
	// valid heartbeat since the machine started. Either makes it a
	// device of the pool whose absence is a reconnection.
	enrolled, declared bool
	// served holds the kinds a connection of the device declared
	// available since the machine started (looked up, never ranged).
	served map[string]bool
}

// reconnecting reports whether d may still serve a Turn of kind without a
// declaration Core may judge now, within ReconnectWindow of losing its
// last connection (or of the machine's first step, for an enrolled device
// not connected since): a device of the pool with no connection, with a
// connection before its first heartbeat, or with a new connection whose
// declaration lacks a kind the device declared available before (a
// restarted Runtime still discovering its Harnesses). A device never
// declared nor enrolled (a first connection) is not part of the pool yet.
// Each window's end is a timer (timerReconnect), so the verdict changes
// on the machine's own step, never on a peer's frame.
func (m *Machine) reconnecting(d *device, kind string) bool {
	if !d.enrolled && !d.declared {
		return false
	}
	if c := m.conns[d.conn]; c != nil && c.known {
		if k, ok := c.kinds[kind]; (ok && k.Available) || !d.served[kind] {
			return false
		}
	}
	return m.now.Before(m.reconnectEnd(d))
}

// reconnectEnd is when d's reconnect window ends.
func (m *Machine) reconnectEnd(d *device) time.Time {
	since := d.lost
	if since.IsZero() {
		since = m.started
	}
	return since.Add(m.cfg.ReconnectWindow)
}

// conn is a live, current connection. Replaced or closed connections are
// removed at once (quarantine): nothing routes to them any more.
type conn struct {
	id          ConnID
	device      string
	known       bool // a valid heartbeat arrived
	kinds       map[string]declaredKind
	lastInbound time.Time // instant of the last inbound frame
	preps       int       // open preparation streams
	runs        int       // Run routes
	// Capacity gate (capacityRefused): capWindow > 0 bounds the open
	// preparations on the connection after a preparation_capacity
	// refusal, none before capWait; capFails counts the consecutive
	// refusals that set the wait.
	capWindow int
	capFails  int
	capWait   time.Time
}

// addDevice enters d in m.devices under its ID and in m.deviceList at
// its place in ID order. Devices are never removed.
func (m *Machine) addDevice(d *device) {
	m.devices[d.id] = d
	i, _ := slices.BinarySearchFunc(m.deviceList, d.id, func(e *device, id string) int { return strings.Compare(e.id, id) })
	m.deviceList = slices.Insert(m.deviceList, i, d)
}

func (m *Machine) onConnOpened(e ConnOpened) {
	if e.Conn == 0 || e.Device == "" || m.conns[e.Conn] != nil {
		return
	}
	d := m.devices[e.Device]
	if d == nil {
		if len(m.devices) >= m.cfg.DevicesMax {
			m.emit(CloseConn{Conn: e.Conn, Reason: "device limit reached"})
			return
		}
		d = &device{id: e.Device}
		m.addDevice(d)
	}
	if e.Conn <= d.newest {
		// Connection IDs increase per device (the shell mints them in
		// accept order): an older generation arriving late is stale and
		// must not displace the current connection.
		m.emit(CloseConn{Conn: e.Conn, Reason: "stale connection"})
		return
	}
	d.newest = e.Conn
	if old := m.conns[d.conn]; old != nil {
		m.dropConn(old, "replaced by a newer connection", true)
	}
	c := &conn{id: e.Conn, device: e.Device, lastInbound: m.now}
	m.conns[e.Conn] = c
	d.conn = e.Conn
	m.setTimer(timerID(timerIdle, strconv.FormatUint(uint64(e.Conn), 10)), m.now.Add(m.cfg.ConnIdleTimeout))
}

func (m *Machine) onConnClosed(e ConnClosed) {
	if c := m.conns[e.Conn]; c != nil {
		m.dropConn(c, e.Reason, false)
	}
}

// dropConn quarantines a connection: its capability snapshot, preparation
// streams and Run routes are removed and nothing is inherited by a later
// connection. Claimed Turns lose observation; unclaimed ones stay queued.
func (m *Machine) dropConn(c *conn, reason string, closeIt bool) {
	delete(m.conns, c.id)
	if d := m.devices[c.device]; d != nil && d.conn == c.id {
		d.conn = 0
		d.lost = m.now
		m.setTimer(timerID(timerReconnect, d.id), m.reconnectEnd(d))
	}
	if closeIt {
		m.emit(CloseConn{Conn: c.id, Reason: reason})
	}
	m.cancelTimer(timerID(timerIdle, strconv.FormatUint(uint64(c.id), 10)))
	m.cancelTimer(timerID(timerConnCapacity, strconv.FormatUint(uint64(c.id), 10)))
	m.fenceConnLost(c)
	m.preparationConnLost(c)
	var preps []*preparation
	for _, p := range m.preps {
		if p.conn == c {
			preps = append(preps, p)
		}
	}
	slices.SortFunc(preps, func(a, b *preparation) int { return compareSeq(a.seq, b.seq) })
	for _, p := range preps {
		m.removePrep(p)
	}
	var lost []*turn
	for _, t := range m.runs {
		if t.conn == c {
			lost = append(lost, t)
		}
	}
	slices.SortFunc(lost, func(a, b *turn) int { return compareSeq(a.rec.Seq, b.rec.Seq) })
	for _, t := range lost {
		m.observationLost(t)
	}
	m.workspaceConnLost(c)
	assert.That(c.preps == 0 && c.runs == 0, "%s dropped with %d preparations and %d runs left", c.id, c.preps, c.runs)
}

func compareSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (m *Machine) onIdleTimer(subject string) {
	n, err := strconv.ParseUint(subject, 10, 64)
	assert.That(err == nil, "idle timer subject %q", subject)
	c := m.conns[ConnID(n)]
	if c == nil {
		return
	}
	deadline := c.lastInbound.Add(m.cfg.ConnIdleTimeout)
	if !m.now.Before(deadline) {
		m.dropConn(c, "no inbound frame within the idle timeout", true)
		return
	}
	m.setTimer(timerID(timerIdle, subject), deadline)
}

func (m *Machine) onFrameRejected(e FrameRejected) {
	c := m.conns[e.Conn]
	if c == nil {
		return
	}
	c.lastInbound = m.now
	if e.Type == wire.TypeHeartbeat {
		m.invalidHeartbeat(c)
	}
}

// invalidHeartbeat clears the snapshot and closes the transport. It proves
// no native completion or cancellation.
func (m *Machine) invalidHeartbeat(c *conn) {
	c.known = false
	c.kinds = nil
	m.dropConn(c, "invalid heartbeat", true)
}

func (m *Machine) onFrame(e FrameReceived) {
	c := m.conns[e.Conn]
	if c == nil || e.Frame.Payload == nil {
		return
	}
	c.lastInbound = m.now
	if m.onWorkspaceFrame(c, e.Frame) {
		return
	}
	switch p := e.Frame.Payload.(type) {
	case wire.Heartbeat:
		m.onHeartbeat(c, p)
	case wire.PreparationStatus:
		m.onPreparationStatus(c, e.Frame.ID, p)
	case wire.EnvironmentQuiesced, wire.EnvironmentResumed:
		m.onFenceReply(c, e.Frame.ID, p)
	case wire.RuntimePrepareResult:
		m.onTransferResult(c, e.Frame.ID, p)
	case wire.PermissionCancel, wire.InteractionDecisionAck:
		if !m.onInteractionFrame(c, e.Frame) {
			m.onRunFrame(c, e.Frame)
		}
	default:
		m.onRunFrame(c, e.Frame)
	}
}

// onHeartbeat replaces the connection's snapshot with exactly the kinds
// declared. A kind missing from the heartbeat is undeclared; nothing is
// inferred. An incomplete or duplicated declaration invalidates the whole
// heartbeat.
func (m *Machine) onHeartbeat(c *conn, hb wire.Heartbeat) {
	kinds := make(map[string]declaredKind, len(hb.SupportedAgentKinds))
	for _, k := range hb.SupportedAgentKinds {
		if _, dup := kinds[k.Kind]; k.Kind == "" || dup || k.Capabilities.Validate() != nil {
			m.invalidHeartbeat(c)
			return
		}
		kinds[k.Kind] = declaredKind{SupportedAgentKind: k, supported: k.Capabilities.SupportedSet()}
	}
	c.known = true
	c.kinds = kinds
	m.capacityMayHaveFreed(c) // a heartbeat may follow released capacity
	if d := m.devices[c.device]; d != nil {
		d.declared = true
		for _, k := range hb.SupportedAgentKinds { // declaration order
			if k.Available {
				if d.served == nil {
					d.served = map[string]bool{}
				}
				d.served[k.Kind] = true
			}
		}
	}
}

// capacityRefused: c refused a preparation with preparation_capacity. No
// preparation goes to it before capWait (PrepareRetryDelay, doubling with
// every consecutive refusal up to PrepareRetryMax), then one at a time;
// each preparation the Runtime takes doubles how many may be open at once
// until PreparationsPerConnMax lifts the gate. A full Runtime gets a probe
// per wait, not a preparation per queued Turn per retry (the Turns stay
// unclaimed, the seed's "保持未领取，供 Worker 重试"). A refusal during a
// wait (of a preparation sent before it began) counts no further.
func (m *Machine) capacityRefused(c *conn) {
	if c.capWindow > 0 && m.now.Before(c.capWait) {
		return
	}
	c.capFails++
	c.capWindow = 1
	wait := m.cfg.PrepareRetryDelay
	for i := 1; i < c.capFails && wait < m.cfg.PrepareRetryMax; i++ {
		wait *= 2
	}
	c.capWait = m.now.Add(min(wait, m.cfg.PrepareRetryMax))
	m.setTimer(timerID(timerConnCapacity, strconv.FormatUint(uint64(c.id), 10)), c.capWait)
}

// capacityAccepted: c took a preparation (its stream's first status): the
// window doubles, and at PreparationsPerConnMax the gate is lifted.
func (m *Machine) capacityAccepted(c *conn) {
	if c.capWindow == 0 {
		return
	}
	c.capFails, c.capWait = 0, time.Time{}
	m.cancelTimer(timerID(timerConnCapacity, strconv.FormatUint(uint64(c.id), 10)))
	if c.capWindow *= 2; c.capWindow >= m.cfg.PreparationsPerConnMax {
		c.capWindow = 0
	}
}

// capacityMayHaveFreed: a heartbeat of c arrived; the Runtime's capacity
// may have been released since the refusal (its active_requests tell
// Core nothing exact), so the wait ends now.
func (m *Machine) capacityMayHaveFreed(c *conn) {
	if c.capWindow == 0 || !m.now.Before(c.capWait) {
		return
	}
	c.capWait = m.now
	m.cancelTimer(timerID(timerConnCapacity, strconv.FormatUint(uint64(c.id), 10)))
}

// capacityGated reports whether c takes no new preparation now.
func (m *Machine) capacityGated(c *conn) bool {
	return c.capWindow > 0 && (m.now.Before(c.capWait) || c.preps >= c.capWindow)
}

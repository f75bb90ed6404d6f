package daemon

import (
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// beginShutdown stops admitting work, releases unstarted admissions,
// cancels every Turn and closes active and idle executors. Failed closes
// keep their targets and are retried serially; Report says what is still
// owned.
func (m *Machine) beginShutdown() {
	if m.shutdown {
		return
	}
	m.shutdown = true
	for _, a := range m.conn.order {
		if !a.live() {
			continue
		}
		if a.reader != "" {
			m.releaseReadOnly(a) // released once the close is confirmed
			continue
		}
		m.cancelTimer(expiryTimer(a.handle))
		m.advance(a, wire.StateReleased, "")
		m.detach(a)
	}
	for _, id := range sortedTurnIDs(m.turns) {
		t := m.turns[id]
		if t.native && !t.settled {
			m.interrupt(t)
		}
	}
	for _, ex := range m.executorsIn(phaseIdle) {
		m.startClose(ex)
	}
}

// Owned lists everything the machine still owns, sorted: executors in
// any state, Turns not yet finished and native calls outstanding.
func (m *Machine) Owned() []Resource {
	var out []Resource
	for _, id := range m.sortedExecutorIDs() {
		ex := m.executors[id]
		state := ex.phase.String()
		if ex.closeFailed {
			state += ",close-failed"
		}
		out = append(out, Resource{Kind: "executor", ID: id, State: state})
	}
	for _, id := range sortedTurnIDs(m.turns) {
		out = append(out, Resource{Kind: "turn", ID: string(id), State: m.turns[id].stateName()})
	}
	out = append(out, m.ownedReaders()...)
	for _, id := range m.sortedCallIDs() {
		out = append(out, Resource{Kind: "call", ID: string(id), State: callKindNames[m.calls[id].kind]})
	}
	return out
}

func (m *Machine) sortedCallIDs() []CallID {
	ids := make([]CallID, 0, len(m.calls))
	for id := range m.calls {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b CallID) int { return compareIDs(string(a), string(b)) })
	return ids
}

// maybeReport emits a Report after a shutdown request whenever the owned
// set changed.
func (m *Machine) maybeReport() {
	if !m.shutdown {
		return
	}
	owned := m.Owned()
	parts := make([]string, len(owned))
	for i, r := range owned {
		parts[i] = r.String()
	}
	key := strings.Join(parts, " ")
	if m.reported && key == m.lastReport {
		return
	}
	m.reported = true
	m.lastReport = key
	m.emit(Report{Owned: owned, Complete: len(owned) == 0})
}

// InterruptedError is the text of the `error` frame the daemon publishes
// ahead of `done` for a Turn it cancelled itself while shutting down.
const InterruptedError = "runtime shutting down: the turn was cancelled before it finished"

// interrupt cancels a Turn the daemon gives up on by itself (a shutdown),
// not at Core's request. A stop signal proves no completion, and done
// after a cancel never means success (core-runtime-protocol: "进程退出、stop
// signal 或本地 context 取消不证明取消完成。done frame 也可能关闭已结算的取消流；
// 它不覆盖取消回执，也不意味着成功"): unless the Harness had already
// published its terminal result, done is preceded by an error frame, so
// the stream reads as failed, never as completed.
func (m *Machine) interrupt(t *turn) {
	if t.native && !t.settled && t.nativeDone == nil {
		t.interrupted = true
	}
	m.requestCancel(t)
	m.requestSettlement(t)
}

package core

import (
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Views of the machine's state that only tests read.

// Snapshot returns the capability declaration of kind on conn's current
// snapshot, and whether it is declared.
func (m *Machine) Snapshot(c ConnID, kind string) (wire.SupportedAgentKind, bool) {
	cn := m.conns[c]
	if cn == nil || !cn.known {
		return wire.SupportedAgentKind{}, false
	}
	k, ok := cn.kinds[kind]
	return k.SupportedAgentKind, ok
}

// TimerView is one armed timer.
type TimerView struct {
	Timer TimerID
	At    time.Time
}

// Timers lists armed timers sorted by ID.
func (m *Machine) Timers() []TimerView {
	out := make([]TimerView, 0, len(m.timers))
	for id, at := range m.timers {
		out = append(out, TimerView{Timer: id, At: at})
	}
	slices.SortFunc(out, func(a, b TimerView) int { return compareString(string(a.Timer), string(b.Timer)) })
	return out
}

// Subscribers lists open subscriptions (subscriber, turn) sorted by ID.
func (m *Machine) Subscribers() [][2]string {
	out := make([][2]string, 0, len(m.subs))
	for id, s := range m.subs {
		out = append(out, [2]string{string(id), s.turn})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return compareString(a[0], b[0]) })
	return out
}

// Helpers of the package that tests call by their exported names.
var (
	Missing                = missingCapability
	InReservedWorkspaceDir = inReservedWorkspaceDir
)

// SubagentRecordOf is subagentRecord: the record of a subagent
// observation of run given a Turn's earlier records, or why it is refused.
func SubagentRecordOf(recs []SubagentRecord, run string, p wire.Payload) (SubagentRecord, error) {
	return subagentRecord(recs, run, p)
}

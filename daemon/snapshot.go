package daemon

import (
	"slices"
	"time"
)

// Snapshot is a read-only, deterministic view of the machine for
// checkers and tests. Every list is sorted.
type Snapshot struct {
	Now          time.Time
	Conn         ConnID
	Connected    bool
	ShuttingDown bool
	Admissions   []AdmissionView // current connection's records, by creation
	Executors    []ExecutorView
	Turns        []TurnView
	Capacity     Capacity
	Owned        []Resource
}

// AdmissionView is one admission record.
type AdmissionView struct {
	RequestID string
	Handle    string
	Executor  string
	Revision  uint64
	State     string
	Code      string
	Reused    bool
	ExpiresAt time.Time
	RunID     string
}

// ExecutorView is one executor.
type ExecutorView struct {
	ID            string
	Session       string
	Phase         string
	Handle        string
	Turn          TurnID
	NativeSession string
	CloseFailed   bool
	CloseAttempts int
}

// TurnView is one tracked Turn.
type TurnView struct {
	ID              TurnID
	RunID           string
	Conn            ConnID
	Routed          bool
	Executor        string
	State           string
	CancelRequested bool
	Overflow        int // native events dropped beyond the output bound before started
	Waiters         []string
	Inputs          []InputView
}

// InputView is the receipt state of one durable input.
type InputView struct {
	InputID string
	State   string
}

// Capacity counts what the limits are checked against.
type Capacity struct {
	Active    int // preparations and executions, closing/uncertain included
	Executors int // every executor not confirmed closed
	Idle      int
	Closing   int
	Records   int // admission records of the current connection
}

// Snapshot returns the current view.
func (m *Machine) Snapshot() Snapshot {
	s := Snapshot{Now: m.now, Conn: m.conn.gen, Connected: m.conn.up, ShuttingDown: m.shutdown, Owned: m.Owned()}
	for _, a := range m.conn.order {
		s.Admissions = append(s.Admissions, AdmissionView{
			RequestID: a.requestID, Handle: a.handle, Executor: a.executor, Revision: a.revision,
			State: a.state, Code: a.code, Reused: a.reused, ExpiresAt: a.expiresAt, RunID: a.runID,
		})
	}
	for _, id := range m.sortedExecutorIDs() {
		ex := m.executors[id]
		s.Executors = append(s.Executors, ExecutorView{
			ID: id, Session: ex.session, Phase: ex.phase.String(), Handle: ex.handle, Turn: ex.turn,
			NativeSession: ex.nativeSession, CloseFailed: ex.closeFailed, CloseAttempts: ex.closeAttempts,
		})
	}
	for _, id := range sortedTurnIDs(m.turns) {
		t := m.turns[id]
		v := TurnView{ID: id, RunID: t.runID, Conn: t.gen, Routed: t.routed, Executor: t.executor,
			State: t.stateName(), CancelRequested: t.cancelRequested, Overflow: t.overflow, Waiters: slices.Clone(t.waiters)}
		for _, in := range t.sortedInputs() {
			v.Inputs = append(v.Inputs, InputView{InputID: in.id, State: in.state.String()})
		}
		s.Turns = append(s.Turns, v)
	}
	s.Capacity = m.capacity()
	return s
}

// capacity returns the counts the limits are checked against (cheaper
// than a full Snapshot).
func (m *Machine) capacity() Capacity {
	return Capacity{
		Active:    m.activeCount(),
		Executors: len(m.executors),
		Idle:      m.count(phaseIdle),
		Closing:   m.count(phaseClosing),
		Records:   len(m.conn.order),
	}
}

func (t *turn) sortedInputs() []*steerInput {
	out := make([]*steerInput, 0, len(t.inputs))
	for _, in := range t.inputs {
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b *steerInput) int { return compareIDs(a.id, b.id) })
	return out
}

func (t *turn) stateName() string {
	switch {
	case !t.startResolved:
		return "starting"
	case t.settled && t.closeRequired:
		return "closing"
	case t.settled:
		return "receipts"
	case t.cancelRequested:
		return "cancelling"
	case t.outputClosed:
		return "settling"
	}
	return "running"
}

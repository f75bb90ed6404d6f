package check

import (
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Check: executor_capacity (rules.go), from the daemon's answers to
// execution_prepare, the Harness's ground truth of the executors it holds
// (created, being created, closes called and confirmed, readers open,
// native turns unsettled), the executor index's idle states and the
// device's configured limits:
//
//   - executor_capacity is wrong when the Harness holds fewer than
//     ExecutorsMax executors (none being prepared elsewhere: no admission
//     live, no installation unanswered), or while a close of one of them
//     is called and not confirmed, or one of them is bound to a lost
//     connection (its close is due once its Turn settles);
//   - preparation_capacity is wrong when the executor limit alone
//     refuses: the Harness holds ExecutorsMax executors, every one idle
//     in the executor index and none of the prepare's Session, no close
//     outstanding, no executor being created, no reader open, no native
//     turn unsettled, no admission live and no installation unanswered on
//     the device (so neither the active limit nor cleanup can be why).
const CheckExecutorCapacity = "executor_capacity"

// MarkExecutorCapacityRefused: executor_capacity answered and judged.
const MarkExecutorCapacityRefused Mark = "executor_capacity_refused"

// executorCapacityState keeps the prepares reaching daemons, forged ones
// too (the daemon admits them by the same rules).
type executorCapacityState struct {
	sessions map[string]string // conn\x00request → its Session
	// closes called in the instant of the device's last judged refusal,
	// as seen then: a refusal's eviction is recorded before its answer,
	// so a close of this instant not seen at an earlier refusal of it is
	// the eviction that follows this one
	seenAt      map[string]int64
	seenClosing map[string]bool // device\x00executor
}

func (l *Ledger) observeExecutorCapacity(ev WireEvent) {
	if !ev.HasFrame() || ev.From == RogueNode || ev.To == RogueNode {
		return
	}
	switch p := ev.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		if ev.Kind == WireDelivered && ev.To != CoreNode && ev.Frame.ID != "" {
			made(&l.execCapacity.sessions)[pairKey(connKey(ev.Conn), ev.Frame.ID)] = p.SessionID
		}
	case wire.PreparationStatus:
		if ev.Kind != WireSent || ev.From == CoreNode || ev.Forged || p.State != wire.StateRejected ||
			(p.Operation != "" && p.Operation != wire.TypeExecutionPrepare) {
			return
		}
		k := pairKey(connKey(ev.Conn), ev.Frame.ID)
		session, ok := l.execCapacity.sessions[k]
		delete(l.execCapacity.sessions, k)
		if ok {
			l.judgeCapacityCode(ev, session, p.ErrorCode)
		}
	}
}

// judgeCapacityCode holds a capacity refusal to the limit that refused.
func (l *Ledger) judgeCapacityCode(ev WireEvent, session, code string) {
	device := ev.From
	lim, ok := l.limits[device]
	if !ok || lim.ExecutorsMax == 0 || (code != wire.PrepExecutorCapacity && code != wire.PrepPreparationCapacity) {
		return
	}
	t := l.executorTable(ev.At, device, session)
	switch {
	case code == wire.PrepExecutorCapacity && len(t.closingIDs) > 0:
		l.violate(ev.At, CheckExecutorCapacity, "%s refused prepare %s executor_capacity while %d of its executors are being closed (%s): cleanup occupies the table, want %s",
			device, ev.Frame.ID, len(t.closingIDs), strings.Join(t.closingIDs, " "), wire.PrepPreparationCapacity)
	case code == wire.PrepExecutorCapacity && t.quiet && t.live+t.creating < lim.ExecutorsMax:
		l.violate(ev.At, CheckExecutorCapacity, "%s refused prepare %s executor_capacity while its Harness holds %d executors (%d being created) < executors_max %d",
			device, ev.Frame.ID, t.live+t.creating, t.creating, lim.ExecutorsMax)
	case code == wire.PrepExecutorCapacity:
		l.reach(MarkExecutorCapacityRefused)
	case t.quiet && t.allIdle && len(t.closingIDs) == 0 && t.evicted <= 1 && t.creating == 0 && t.live >= lim.ExecutorsMax && !t.sessionHeld:
		l.violate(ev.At, CheckExecutorCapacity, "%s refused prepare %s preparation_capacity while its Harness holds %d idle executors (executors_max %d), none being closed and nothing active: the executor limit refuses, want %s",
			device, ev.Frame.ID, t.live, lim.ExecutorsMax, wire.PrepExecutorCapacity)
	}
}

// closeSeen reports whether executor key k's close of this instant was
// seen at an earlier refusal on device in the same instant, and notes it
// seen.
func (l *Ledger) closeSeen(at int64, device, k string) bool {
	s := &l.execCapacity
	if s.seenAt[device] != at {
		made(&s.seenAt)[device] = at
		deleteUnder(s.seenClosing, device+"\x00")
	}
	seen := s.seenClosing[k]
	made(&s.seenClosing)[k] = true
	return seen
}

// executorTable is what the Harness and the executor index say of a
// device's executors at one instant.
type executorTable struct {
	live, creating int
	evicted        int      // idle executors whose close was called in this instant
	closingIDs     []string // being closed or bound to a lost connection
	allIdle        bool     // every live executor idle in the index, none unknown
	sessionHeld    bool     // one of them belongs to the prepare's Session
	quiet          bool     // no admission live, no reader open, no native turn unsettled, no installation unanswered
}

func (l *Ledger) executorTable(at int64, device, session string) executorTable {
	t := executorTable{allIdle: true}
	d := l.execs.devices[device]
	prefix := device + "\x00"
	for _, k := range sortedKeys(l.harness.executors) {
		e := l.harness.executors[k]
		if e.device != device || e.closed {
			continue
		}
		t.live++
		var x *executor
		if d != nil {
			x = d.execs[strings.TrimPrefix(k, prefix)]
		}
		switch {
		case x == nil:
			t.allIdle = false
		case x.idle.closing && x.idle.closingAt == at && !l.closeSeen(at, device, k):
			// closed in this instant and not seen at an earlier refusal
			// of it: the eviction that follows this full table's refusal
			// (it was idle when the refusal was decided)
			t.evicted++
		case x.idle.closing || x.bind.lost:
			// being closed, or bound to a lost connection: closed once
			// its Turn settles or its preparation ends (executor_connection.go)
			t.closingIDs = append(t.closingIDs, strings.TrimPrefix(k, prefix))
			t.allIdle = false
		case x.evict.phase != evictIdle:
			t.allIdle = false
		}
		if x != nil && x.evict.session == session {
			t.sessionHeld = true
		}
	}
	t.creating = countIf(l.harness.creating, func(dev string) bool { return dev == device })
	admissions := countIf(l.frames.admissions, func(a *admissionRec) bool { return a.device == device && l.active(a) })
	turns := countIf(l.harness.turns, func(n *nativeTurn) bool { return n.device == device && n.settled == "" })
	readerOpen := slices.ContainsFunc(sortedKeys(l.ws.opened), func(k string) bool {
		_, closed := l.ws.closed[k]
		return strings.HasPrefix(k, prefix) && !closed
	})
	t.quiet = admissions == 0 && turns == 0 && !readerOpen && len(l.transfers.installing[device]) == 0
	return t
}

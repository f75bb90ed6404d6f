package harness

import (
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/sim"
)

// budgetPrefix starts the shell's send-budget timers.
const budgetPrefix = "budget/"

// ReasonSendBudget is the close reason of a connection whose write could
// not complete within its budget.
const ReasonSendBudget = "send over budget"

// budgetWatch is one budgeted write that could not complete at once: the
// connection was stalled (held) or slower than the budget.
type budgetWatch struct {
	conn  sim.ConnID
	frame []byte // the bytes handed to Send: the kernel knows the frame by them
}

// watchBudget honours Send.Budget as a shell with a blocking socket write
// and a deadline would: a write that leaves at once, or within the budget,
// completes; one still held by a stall when the budget runs out, or still
// behind a slow link or the frames queued ahead of it (a stall that ended
// in time can release it into such a queue), fails then, and the failure
// closes the transport (reported to the machine as Disconnected).
func (n *Daemon) watchBudget(now time.Time, conn sim.ConnID, frame []byte, budget time.Duration) {
	if budget <= 0 {
		return // the transport's own limit
	}
	b := n.d.w.Backlog(n.d.ID, conn)
	deadline := now.Add(budget)
	if !b.Held && b.Delay <= budget {
		return
	}
	// A held write is watched even when its stall is due to end in time:
	// another stall may extend it. The deadline decides.
	if n.budgets == nil {
		n.budgets = map[sim.TimerID]budgetWatch{}
	}
	n.budgetSeq++
	id := sim.TimerID(budgetPrefix + strconv.FormatUint(n.budgetSeq, 10))
	n.budgets[id] = budgetWatch{conn: conn, frame: frame}
	n.out = append(n.out, sim.SetTimer{Timer: id, At: deadline})
}

// budgetDue fails a write whose budget ran out: still held by a stall, or
// not yet off a link slower than its budget. The connection is closed (if it is
// still the current one) and the machine told it is gone.
func (n *Daemon) budgetDue(now time.Time, id sim.TimerID) {
	wt, ok := n.budgets[id]
	if !ok {
		return
	}
	delete(n.budgets, id)
	if wt.conn != n.cur {
		return // already gone or replaced
	}
	if b := n.d.w.FrameBacklog(n.d.ID, wt.conn, wt.frame); !b.Held && b.Delay == 0 {
		return // the frame left within the budget: the write completed
	}
	n.out = append(n.out, sim.Close{Conn: wt.conn, Reason: ReasonSendBudget})
	n.cur = 0
	n.redial(now, false)
	n.Feed(now, daemon.ConnClosed{Conn: daemon.ConnID(wt.conn)})
}

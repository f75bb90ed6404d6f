package check

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_prepare_retry, timing_steer_retry, timing_cancel_retry
// (rules.go), from the wire alone; a retry is owed from when the refusal
// reached Core. A transfer open at a prepare's due instant, begun before
// the refusal or not, excuses it: a Session whose Environment is not yet
// prepared on the connection Core picks needs a transfer there first, one
// at a time per connection (wire-reference §3.2), and the wire does not
// say which connection Core picks. The first steering refusal of a wait
// decides its retry; later ones do not move it.

// codePreparationStartFailed is Core's code of a Turn whose preparation
// was refused for good.
const codePreparationStartFailed = "preparation_start_failed"

type steerRetryRec struct {
	input     string
	conn      uint64
	ended     bool  // a written or accepted receipt, a prompt_cancel or the Turn's end: no retry any more
	unknownAt int64 // the input's written window ends: unknown from then
	code      string
	retryOwed
}

type cancelRetryRec struct {
	conn     uint64
	deadline int64
	delivery string
	answered bool
	finished bool // Core finished the Turn: a refusal arriving later owes nothing
	retryOwed
}

type prepRequest struct {
	session   string
	conn      uint64
	sentAt    int64
	started   bool
	abandoned bool // a Turn of the Session finished while it was out
}

type retryState struct {
	steers      map[string]*steerRetryRec  // run
	cancels     map[string]*cancelRetryRec // run
	preps       map[string]*retryOwed      // session
	requests    map[string]*prepRequest    // request ID of Core's execution_prepare
	cancelCalls map[string]int64           // turn → last cancel call reaching Core
	kinds       map[uint64]string          // conn → the agent kinds its last heartbeat declared
	gates       map[uint64]*capGate        // conn → its capacity gate (capacity_gate.go)
}

// CancelCalled records a cancel call of turn reaching Core: while a
// not_ready refusal waits for its retry, Core sends the fresh attempt at
// once.
func (l *Ledger) CancelCalled(at int64, turn string) {
	l.advance(at)
	l.timing.retry.cancelCalls[turn] = at
}

// retryCoreSent follows what Core sent, frames it sent on a connection
// that had already broken included (lost at once, still sent when due).
func (l *Ledger) retryCoreSent(ev WireEvent) {
	s := &l.timing.retry
	run := ev.Frame.ID
	switch p := ev.Frame.Payload.(type) {
	case wire.PromptSteer:
		r := s.steers[run]
		if r == nil || r.input != p.InputID {
			r = &steerRetryRec{input: p.InputID, unknownAt: ev.At + l.timer(CoreNode, TimerWritten),
				retryOwed: retryOwed{timer: TimerSteerRetry, what: "input " + p.InputID + " of run " + run, due: -1}}
			s.steers[run] = r
		} else {
			l.retried(ev.At, &r.retryOwed)
		}
		r.conn = ev.Conn
	case wire.PromptCancel:
		if r := s.steers[run]; r != nil {
			r.ended = true
			r.excuse("a prompt_cancel was sent")
		}
		r := s.cancels[run]
		switch {
		case r == nil:
			r = &cancelRetryRec{deadline: ev.At + l.timer(CoreNode, TimerCancelConfirm),
				retryOwed: retryOwed{timer: TimerCancelRetry, what: "prompt_cancel of run " + run, due: -1}}
			s.cancels[run] = r
		case r.due >= 0 && ev.At < r.due && l.cancelCalledAt(run, ev.At):
			r.due = -1 // a cancel call sent the fresh attempt at once
		default:
			l.retried(ev.At, &r.retryOwed)
		}
		r.conn, r.delivery, r.answered = ev.Conn, p.DeliveryID, false
	case wire.ExecutionPrepare:
		if p.Configuration.WorkspaceReadOnly {
			if r := s.preps[p.SessionID]; r != nil {
				r.excuse("a workspace operation of the session")
			}
			return
		}
		s.requests[ev.Frame.ID] = &prepRequest{session: p.SessionID, conn: ev.Conn, sentAt: ev.At}
		l.capGateSent(ev.Conn, ev.At, ev.Frame.ID, p.SessionID)
		if r := s.preps[p.SessionID]; r != nil {
			l.retried(ev.At, r)
		}
	case wire.ExecutionStart:
		if q := s.requests[ev.Frame.ID]; q != nil {
			q.started = true
		}
	case wire.WorkspaceWrite, wire.RuntimePrepare, wire.EnvironmentQuiesce:
		// They reserve a Session, come before its execution_prepare or
		// fence a device: the wire does not say which Session waits on them.
		excuseEach(s.preps, "Core sent "+ev.Frame.Type(), nil)
	}
}

// lostOnSend is the reason the network gives for a frame sent on a
// connection that already broke: it is lost at once, and was still sent.
const lostOnSend = "broken"

func (l *Ledger) cancelCalledAt(run string, at int64) bool {
	if rr := l.core.runs[run]; rr != nil {
		t, ok := l.timing.retry.cancelCalls[rr.turn]
		return ok && t == at
	}
	return false
}

// retryCoreReceived reads a refusal reaching Core: a retryable one owes a
// retry.
func (l *Ledger) retryCoreReceived(ev WireEvent) {
	s := &l.timing.retry
	switch p := ev.Frame.Payload.(type) {
	case wire.PromptSteerAck:
		r := s.steers[ev.Frame.ID]
		if r == nil || r.input != p.InputID || r.conn != ev.Conn || r.ended {
			return
		}
		switch {
		case p.Accepted || p.ErrorCode == "" && p.Written:
			r.ended = true
			r.excuse("the input was written")
		case (p.ErrorCode == wire.SteerNotReady || p.ErrorCode == wire.SteerBusy) && r.due < 0 &&
			ev.At+l.timer(CoreNode, TimerSteerRetry) < r.unknownAt:
			r.owe(ev.At, l.timer(CoreNode, TimerSteerRetry))
			r.code = p.ErrorCode
			l.armRetry(&r.retryOwed, nil)
		}
	case wire.InteractionDecisionAck:
		r := s.cancels[ev.Frame.ID]
		if r == nil || r.answered || r.finished || p.DeliveryID != r.delivery || r.conn != ev.Conn {
			return
		}
		r.answered = true
		if !p.Applied && p.ErrorCode == wire.CancelNotReady && ev.At+l.timer(CoreNode, TimerCancelRetry) < r.deadline {
			r.owe(ev.At, l.timer(CoreNode, TimerCancelRetry))
			l.armRetry(&r.retryOwed, nil)
			l.reach(MarkCancelNotReadyRetried)
		}
	case wire.PreparationStatus:
		l.capGateStatus(ev.Conn, ev.Frame.ID, p, s.requests[ev.Frame.ID])
		l.prepRefusalReceived(ev, p)
	case wire.Heartbeat:
		l.capGateHeartbeat(ev.Conn, ev.At)
		// A kind whose availability or capabilities changed may leave a
		// Session without an admissible device at its retry.
		k := fmt.Sprint(p.SupportedAgentKinds)
		if prev, ok := s.kinds[ev.Conn]; ok && prev != k {
			excuseEach(s.preps, "a device's agent kinds changed", nil)
		}
		s.kinds[ev.Conn] = k
	}
}

func (l *Ledger) prepRefusalReceived(ev WireEvent, st wire.PreparationStatus) {
	s := &l.timing.retry
	q := s.requests[ev.Frame.ID]
	if q == nil || q.started || q.conn != ev.Conn || st.State != wire.StateRejected ||
		st.ErrorCode != wire.PrepPreparationCapacity || (st.Operation != "" && st.Operation != wire.TypeExecutionPrepare) {
		return
	}
	delete(s.requests, ev.Frame.ID)
	if q.abandoned {
		// Its Turn may have finished: Core may or may not count the
		// refusal towards the connection's capacity wait.
		l.capGateMaybeRefused(ev.Conn, ev.At)
		return
	}
	l.capGateRefused(ev.Conn, ev.At)
	r := s.preps[q.session]
	if r == nil {
		r = &retryOwed{timer: TimerPrepareRetry, what: "execution_prepare of session " + q.session}
		s.preps[q.session] = r
	}
	r.owe(ev.At, l.timer(CoreNode, TimerPrepareRetry))
	if why := l.fencingOpenReason(); why != "" {
		r.excuse(why) // Core dispatches nothing to a fenced device
	}
	due := r.due
	l.armRetry(r, func() bool {
		// the retry waits for a free preparation stream, a connection's
		// capacity gate (capacity_gate.go), or the transfer of the
		// connection the Session's Environment preparation may need
		return l.prepStreamsFullSince(r.refused) || l.capGated(due) || l.transferOpenAt(due) != ""
	})
}

// retryConnEnded: Core learned that conn closed; what it owed there is
// gone, and a Session refused anywhere may find no device at its retry.
func (l *Ledger) retryConnEnded(conn uint64) {
	s := &l.timing.retry
	excuseEach(s.steers, "connection closed", func(r *steerRetryRec) bool { return r.conn == conn })
	excuseEach(s.cancels, "connection closed", func(r *cancelRetryRec) bool { return r.conn == conn })
	excuseEach(s.preps, "a connection closed", nil)
	delete(s.gates, conn)
}

// retryCoreCrashed: Core's timers died with it.
func (l *Ledger) retryCoreCrashed() {
	s := &l.timing.retry
	excuseEach(s.steers, "Core crashed", nil)
	excuseEach(s.cancels, "Core crashed", nil)
	excuseEach(s.preps, "Core crashed", nil)
	s.requests = map[string]*prepRequest{}
	s.gates = map[uint64]*capGate{}
}

// retryTurnFinished: a finished Turn is owed no retry; a retryable
// refusal in that instant must not be what finished it.
func (l *Ledger) retryTurnFinished(at int64, turn, run, code string) {
	s := &l.timing.retry
	if r := s.steers[run]; r != nil {
		if r.due >= 0 && r.refused == at && code == "input_"+r.code {
			l.violate(at, CheckTimingSteerRetry, "Core finished run %s %s at %s, on the %s receipt of input %s it must send again after its retry delay",
				run, code, vtime(at), r.code, r.input)
		}
		r.excuse("the turn finished")
		r.ended = true
	}
	if r := s.cancels[run]; r != nil {
		r.excuse("the turn finished")
		r.finished = true
	}
	sess := l.core.turn(turn).session
	if r := s.preps[sess]; r != nil && sess != "" {
		if r.due >= 0 && r.refused == at && code == codePreparationStartFailed {
			l.violate(at, CheckTimingPrepareRetry, "Core finished turn %s %s at %s, on a preparation_capacity refusal that leaves it queued for a retry",
				turn, code, vtime(at))
		}
		r.excuse("a turn of the session finished")
	}
	for _, k := range sortedKeys(s.requests) {
		if q := s.requests[k]; q.session == sess && sess != "" {
			q.abandoned = true // its Turn may be the one that finished
		}
	}
}

// excuseEach excuses, for why, the retries of m that match selects (nil:
// all).
func excuseEach[R interface{ excuse(string) }](m map[string]R, why string, match func(R) bool) {
	for _, k := range sortedKeys(m) {
		if match == nil || match(m[k]) {
			m[k].excuse(why)
		}
	}
}

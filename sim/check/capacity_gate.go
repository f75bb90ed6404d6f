package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: capacity_gate, capacity_gate_probe (rules.go), from the wire
// alone. A refusal arriving during a wait (of a preparation sent before it
// began) changes nothing. A Session's own retry may be held back by the
// gate: the lateness of prepare_retry is excused while some connection is
// gated (capGated).
const (
	CheckCapacityGate  = "capacity_gate"
	CheckCapacityProbe = "capacity_gate_probe"
)

// CapacityWaitMax caps a connection's capacity wait (Core's policy).
const CapacityWaitMax = 30 * time.Second

// MarkCapacityGateProbed: after a capacity wait, Core sent a preparation
// on the gated connection (a probe).
const MarkCapacityGateProbed Mark = "capacity_gate_probed"

type capGate struct {
	fails int
	until int64 // no Turn preparation on the connection before this instant
	since int64 // the gate's first counted refusal
	// failsHi and untilHi count also the refusals Core may have counted
	// (of a preparation whose Turn may have finished meanwhile, which the
	// wire does not say): Core's wait ends between until and untilHi, so
	// a send before the earlier is early, a retry excused until the later.
	failsHi int
	untilHi int64
	// uncertain: a status of an older preparation arrived, which Core may
	// have ignored as stale: the gate may be open, so no send is judged
	// early until the probe answers.
	uncertain bool
	probe     string // request ID of the preparation sent once the wait ended, until answered
	// opened: a preparation sent since the gate began was taken; Core then
	// opens the connection step by step, which the wire does not pin down
	// for streams of other kinds: sends are no longer judged, and a retry
	// stays excused while a preparation is open there.
	opened bool
}

// capGateRefused records a preparation_capacity refusal of a Turn's
// preparation reaching Core on conn at at.
func (l *Ledger) capGateRefused(conn uint64, at int64) {
	g := l.capGateMaybeRefused(conn, at)
	l.capGateCount(&g.fails, &g.until, at)
}

// capGateMaybeRefused records a preparation_capacity refusal reaching
// Core on conn at at of a preparation Core may no longer count (its Turn
// may have finished): only the upper bound of the wait counts it.
func (l *Ledger) capGateMaybeRefused(conn uint64, at int64) *capGate {
	g := entry(l.timing.retry.gates, conn)
	if g.fails == 0 && g.failsHi == 0 {
		g.since, g.opened = at, false
	}
	l.capGateCount(&g.failsHi, &g.untilHi, at)
	return g
}

// capGateCount counts a refusal at at into one count of consecutive
// refusals and its wait: PrepareRetryDelay doubled per earlier
// consecutive refusal, capped at CapacityWaitMax.
func (l *Ledger) capGateCount(fails *int, until *int64, at int64) {
	if *fails > 0 && at < *until {
		return
	}
	*fails++
	wait := l.timer(CoreNode, TimerPrepareRetry)
	for i := 1; i < *fails && wait < int64(CapacityWaitMax); i++ {
		wait *= 2
	}
	*until = at + min(wait, int64(CapacityWaitMax))
}

// capGateStatus reads a status from conn reaching Core for request q (nil
// when not a Turn preparation the ledger follows). A status of a
// preparation sent since the gate began (the probe, a fresh stream Core
// always applies) other than a refusal opens the gate; one of an older
// preparation may have opened it at Core.
func (l *Ledger) capGateStatus(conn uint64, id string, st wire.PreparationStatus, q *prepRequest) {
	g := l.timing.retry.gates[conn]
	if g == nil {
		return
	}
	if id == g.probe {
		g.probe = ""
	}
	switch {
	case st.State == wire.StateRejected:
	case q != nil && q.conn == conn && q.sentAt >= g.since:
		g.opened, g.fails, g.until, g.failsHi, g.untilHi = true, 0, 0, 0, 0
	default:
		g.uncertain = true
	}
}

// capGateHeartbeat: a heartbeat of conn reaching Core at at ends its wait.
func (l *Ledger) capGateHeartbeat(conn uint64, at int64) {
	if g := l.timing.retry.gates[conn]; g != nil {
		g.until, g.untilHi = min(g.until, at), min(g.untilHi, at)
	}
}

// capGateSent judges a Turn's execution_prepare (request id) Core sent on
// conn at at. Both rules are judged only after a refusal Core certainly
// counted (fails > 0), with the gate neither opened nor uncertain.
func (l *Ledger) capGateSent(conn uint64, at int64, id, session string) {
	g := l.timing.retry.gates[conn]
	if g == nil {
		return
	}
	if g.probe == "" && at >= g.until {
		g.probe = id
	}
	if g.uncertain || g.opened {
		return
	}
	if g.fails > 0 && g.probe != id && at >= g.until {
		l.violate(at, CheckCapacityProbe, "Core sent execution_prepare %s of session %s on conn c%d at %s while its capacity probe %s was unanswered (%d consecutive preparation_capacity refusals)",
			id, session, conn, vtime(at), g.probe, g.fails)
	}
	// Core's wait ends no earlier than the sooner of the two bounds.
	if early := min(g.until, g.untilHi); g.fails > 0 && at < early {
		l.violate(at, CheckCapacityGate, "Core sent execution_prepare of session %s on conn c%d at %s, before its capacity wait ended at %s (%d consecutive preparation_capacity refusals)",
			session, conn, vtime(at), vtime(early), g.fails)
		return
	}
	l.reach(MarkCapacityGateProbed)
}

// capGated reports whether some connection's capacity gate may be closed
// at at: its wait not over, its probe still out, its state uncertain, or
// (gated) one preparation of any kind open there, or released without its
// final status yet (the wire does not say which connection a Session's
// retry would use).
func (l *Ledger) capGated(at int64) bool {
	for conn, g := range l.timing.retry.gates { //tidy:sorted any-match only
		if g.uncertain || g.probe != "" || at < max(g.until, g.untilHi) {
			return true
		}
		if pc := l.projection.prepsPerConn[conn]; pc != nil && len(pc.open)+len(pc.releasing) > 0 {
			return true
		}
	}
	return false
}

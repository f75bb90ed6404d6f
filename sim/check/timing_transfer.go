package check

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: timing_transfer_exchange (rules.go), from the wire and Core's
// durable preparation records. A Core crash kills the exchange's timer;
// the restart owes the unknown record, judged in its instant.

// transferExchange is Core's runtime_prepare exchange bound
// (wire-reference §3.2).
const transferExchange = 195 * time.Second

// transferClock is a transfer's exchange window from its begin: settled
// by a terminal result reaching Core; its outcome is Core recording the
// step unknown. It has no node or connection: transferExcused reads them.
type transferClock struct {
	conn uint64
	timerWindow
}

type transferTiming struct {
	byID      map[string]*transferClock
	connEnded map[uint64]int64 // conn → instant Core learned it ended
	resultAt  map[string]int64 // transfer → last instant a result reached Core
	unknownAt map[string]int64 // transfer → last instant Core recorded it unknown
	restarted int64            // last Core crash instant
}

func (s *transferTiming) init() {
	s.byID, s.connEnded, s.resultAt, s.unknownAt, s.restarted = map[string]*transferClock{}, map[uint64]int64{}, map[string]int64{}, map[string]int64{}, -1
}

func (l *Ledger) transferTimingBegin(at int64, conn uint64, id string) {
	s := &l.transferTime
	c := &transferClock{conn: conn}
	s.byID[id] = c
	l.startWindow(&c.timerWindow, "", timerTransferExchange, 0, at, int64(transferExchange), func() {
		switch {
		case !c.live() || c.outcome >= 0:
		case s.restarted >= c.from: // Core is down, or its restart judged the record (transferTimingRestarted)
			c.excuse(c.deadline, "Core crashed during the exchange")
		default:
			c.excuse(c.deadline, "reported at its deadline")
			l.report(&c.timerWindow, c.deadline, "transfer %s begun at %s has neither a terminal result nor an unknown record at %s, the end of Core's %s exchange",
				id, vtime(at), vtime(c.deadline), transferExchange)
		}
	})
}

// transferTimingResult: a result reached Core; a terminal one ends the
// exchange.
func (l *Ledger) transferTimingResult(at int64, id string, terminal bool) {
	s := &l.transferTime
	s.resultAt[id] = at
	if c := s.byID[id]; c != nil && terminal {
		c.settled = true
	}
}

// transferOpenAt names a transfer holding its connection at instant at
// (begun since Core's last restart, on a connection Core has not learned
// ended, with no terminal result), or "". An unknown record does not free
// the connection: the Runtime may still hold the transfer open.
func (l *Ledger) transferOpenAt(at int64) string {
	s := &l.transferTime
	for _, id := range sortedKeys(s.byID) {
		if c := s.byID[id]; !c.settled && c.from <= at && s.restarted < c.from && !s.connEndedBy(c, at) {
			return id
		}
	}
	return ""
}

func (l *Ledger) transferTimingCoreDown(at int64) { l.transferTime.restarted = at }

// transferTimingRestarted judges Core's restart at at, after its
// recovery wrote its records: every exchange that was running at the
// crash (begun, no terminal result reached Core, not recorded unknown
// since its begin) is recorded unknown in this instant.
func (l *Ledger) transferTimingRestarted(at int64) {
	s := &l.transferTime
	for _, id := range sortedKeys(s.byID) {
		c := s.byID[id]
		if c.settled || c.from >= at {
			continue
		}
		if u, ok := s.unknownAt[id]; ok && u >= c.from {
			continue
		}
		l.violate(at, CheckTimingTransfer, "transfer %s begun at %s was running when Core crashed, and its restart at %s did not record it unknown",
			id, vtime(c.from), vtime(at))
		c.settled = true // reported once
	}
}

// PreparationStepUnknown records Core durably recording the step of
// transfer id unknown.
func (l *Ledger) PreparationStepUnknown(at int64, id string) {
	l.advance(at)
	s := &l.transferTime
	s.unknownAt[id] = at
	c := s.byID[id]
	if c == nil || !c.live() || !c.show(at) {
		return
	}
	if at == c.deadline {
		l.reach(MarkTransferExchangeExpired)
	}
	l.early(&c.timerWindow, at, func() bool { return s.transferExcused(c, id, at) },
		"Core records transfer %s unknown at %s, %s after its begin: before the %s exchange ended, without a reason",
		id, vtime(at), c.elapsed(at), transferExchange)
}

// transferExcused: by at, its connection ended, Core restarted, or a
// result for it arrived in that instant (and failed the validator).
func (s *transferTiming) transferExcused(c *transferClock, id string, at int64) bool {
	return s.connEndedBy(c, at) || s.restarted >= c.from || s.resultAt[id] == at
}

// connEndedBy: Core learned c's connection ended after c began, by at.
func (s *transferTiming) connEndedBy(c *transferClock, at int64) bool {
	ended, ok := s.connEnded[c.conn]
	return ok && ended >= c.from && ended <= at
}

// observeForgedTransferResults: a forged or replayed result reaching Core
// is a reason too (the honest transfer observer never sees it).
func (l *Ledger) observeForgedTransferResults(ev WireEvent) {
	if _, ok := ev.Frame.Payload.(wire.RuntimePrepareResult); ok && ev.Hostile() && ev.Kind == WireDelivered && ev.To == CoreNode && ev.HasFrame() {
		l.transferTime.resultAt[ev.Frame.ID] = ev.At
	}
}

package check

import (
	"cmp"

	"github.com/turnstile-sim/turnstile/wire"
)

// The connection index holds the facts of each connection that oracles
// read, learned once by learnConns, the first wire observer: an observer
// reads, with l.conn, the facts of every event up to the one it judges.
// One judging what the wire showed before that event compares the event
// number a fact keeps (connIndex.before). Connection IDs are never
// reused, so nothing is forgotten. A rogue's connections are indexed too;
// the checks of honest machines skip its traffic and never ask about
// them. The daemon is the end other than Core: what it sent excludes
// forged frames (a hostile proxy put them on the wire), what reached it
// includes them unless said.

type connIndex struct {
	event uint64 // the number of the event being observed, from 1
	conns map[uint64]*devConn
}

// devConn is what the wire showed on one connection.
type devConn struct {
	device   string                             // the daemon's node, named by the first frame it sent or got
	declared map[string]wire.SupportedAgentKind // the last heartbeat it sent, by kind
	// by request ID, from the statuses it sent
	granted map[string]string // the handle of its first status that was not rejected and named one
	expired map[string]bool
	failed  map[string]uint64 // the event of its first failed status naming a handle
	records recordTable       // the admission records those statuses rebuild (admission_records.go)
	// the first execution_prepare of each request ID that reached it,
	// forged ones too
	prepared map[string]wire.ExecutionPrepare
	// when Core's latest prompt_steer reached it by run\x00input, its
	// latest prompt_cancel by delivery ID (not forged)
	steered, cancelled map[string]int64
	writeEnded         map[string]int64 // transfer → when it sent its first terminal workspace_write_result
	runs               map[string]*runFacts
}

// runFacts is what the wire showed of one Run on one connection.
type runFacts struct {
	starting, done uint64 // the events of the daemon's first starting status naming it and its first done
	ended          bool   // it sent done or run_error
	started        bool   // it sent a started status naming a handle, the latest at startedAt
	startedAt      int64
	cancelled      bool // a prompt_cancel Core sent reached it
}

// conn returns the facts of a connection, for reading.
func (l *Ledger) conn(id uint64) *devConn { return cmp.Or(l.index.conns[id], &devConn{}) }

func (c *devConn) run(id string) runFacts { return *cmp.Or(c.runs[id], &runFacts{}) }

func (c *devConn) learnRun(id string) *runFacts { return entry(made(&c.runs), id) }

// before reports whether a fact learned at event came before the event
// being observed (0: never learned).
func (x *connIndex) before(event uint64) bool { return event != 0 && event < x.event }

func (l *Ledger) learnConns(ev WireEvent) {
	x := &l.index
	x.event++
	switch c := entry(made(&x.conns), ev.Conn); {
	case !ev.HasFrame():
	case ev.Kind == WireSent && !ev.Forged && ev.From != CoreNode:
		c.device = cmp.Or(c.device, ev.From)
		c.daemonSent(ev, x.event)
	case ev.Kind == WireDelivered && ev.To != CoreNode:
		c.device = cmp.Or(c.device, ev.To)
		c.daemonReached(ev)
	}
}

func (c *devConn) daemonSent(ev WireEvent, event uint64) {
	id := ev.Frame.ID
	switch p := ev.Frame.Payload.(type) {
	case wire.Heartbeat:
		c.declared = kindsOf(p)
	case wire.PreparationStatus:
		if p.State != wire.StateRejected && p.Handle != "" {
			keepFirst(made(&c.granted), id, p.Handle)
			c.records.note(id, p)
		}
		switch {
		case p.State == wire.StateStarting && p.RunID != "":
			r := c.learnRun(p.RunID)
			r.starting = cmp.Or(r.starting, event)
		case p.State == wire.StateStarted && p.RunID != "" && p.Handle != "":
			r := c.learnRun(p.RunID)
			r.started, r.startedAt = true, ev.At
		case p.State == wire.StateExpired:
			made(&c.expired)[id] = true
		case p.State == wire.StateFailed && p.Handle != "":
			keepFirst(made(&c.failed), id, event)
		}
	case wire.Done:
		r := c.learnRun(id)
		r.done, r.ended = cmp.Or(r.done, event), true
	case wire.RunError:
		c.learnRun(id).ended = true
	case wire.WorkspaceWriteResult:
		if p.Outcome == wire.OutcomeRejected || p.Outcome == wire.OutcomeCompleted || p.Outcome == wire.OutcomeUnknown {
			keepFirst(made(&c.writeEnded), id, ev.At)
		}
	}
}

func (c *devConn) daemonReached(ev WireEvent) {
	id := ev.Frame.ID
	switch p := ev.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		keepFirst(made(&c.prepared), id, p)
	case wire.PromptSteer:
		if !ev.Forged && ev.From == CoreNode {
			made(&c.steered)[pairKey(id, p.InputID)] = ev.At
		}
	case wire.PromptCancel:
		if !ev.Forged && ev.From == CoreNode {
			c.learnRun(id).cancelled = true
			if p.DeliveryID != "" {
				made(&c.cancelled)[p.DeliveryID] = ev.At
			}
		}
	}
}

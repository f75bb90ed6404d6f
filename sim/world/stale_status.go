package world

import (
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/wire"
)

// Core's reaction to each preparation status it receives on a stream it
// opened: the frames it sends for that request and any durable write in
// the same step. The ledger judges the reaction by the status-stream rule
// (check.StatusStepped); the world never reads Core's view of the stream.

// streamOn reports whether Core opened the status stream of req on conn
// with its own execution_prepare.
func (n *coreNode) streamOn(conn core.ConnID, req string) bool {
	sm := n.streams[req]
	return sm != nil && sm.conn == conn
}

func (n *coreNode) stepStatus(now time.Time, d sim.Delivered, conn core.ConnID, f wire.Frame, st wire.PreparationStatus) []sim.Effect {
	u := n.u
	before := u.store.writes
	n.watchReq, n.reacted = f.ID, nil
	out := n.stepRogueAware(now, d, core.FrameReceived{Conn: conn, Frame: f})
	var did []string
	if len(n.reacted) > 0 {
		did = append(did, "sent "+strings.Join(n.reacted, ","))
	}
	n.watchReq, n.reacted = "", nil
	if u.store.writes != before {
		did = append(did, "wrote "+u.store.lastKind+" "+u.store.lastID)
	}
	u.led.StatusStepped(u.lt(now), connName(conn), f.ID, st, strings.Join(did, " and "))
	u.count("StatusStepped")
	return out
}

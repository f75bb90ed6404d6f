package world

import (
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// bodyMismatch: a workspace write transfer of its own (an Environment and
// Session of its own) whose chunk is not the body the begin declared (same
// size, another sha256): the commit is refused invalid_request and nothing
// is installed (wire reference §3.12). It steps begin, chunk and commit as
// each answer arrives; a begin the daemon refuses (capacity, unsupported,
// unavailable) ends it. The commit is judged only while the transfer is
// open: a short transfer expiry may end it first (check.CondTransferOpen).
type bodyMismatch struct {
	in    *injector
	id    string
	begin wire.WorkspaceWrite
	step  string
	since time.Time
}

// watchWrites keeps the newest write answer to each hostile transfer.
func (h *hostileState) watchWrites(conn sim.ConnID, f wire.Frame) {
	if r, ok := f.Payload.(wire.WorkspaceWriteResult); ok {
		if h.writes == nil {
			h.writes = map[string]wire.WorkspaceWriteResult{}
		}
		h.writes[statusKey(conn, f.ID)] = r
	}
}

func (in *injector) bodyMismatch() {
	h := &in.u.hostile
	declared := []byte("good")
	b := &bodyMismatch{in: in, id: h.mint("w"), begin: wire.WorkspaceWrite{Step: wire.StepBegin,
		EnvironmentID: hostileUUID(h), SessionID: hostileUUID(h), Path: "notes.txt",
		SizeBytes: int64(len(declared)), SHA256: wire.SHA256Hex(declared)}}
	b.send(b.begin, nil)
}

// hostileUUID is a canonical UUID no honest peer mints (version 4, a
// fixed prefix and the hostile sequence).
func hostileUUID(h *hostileState) string {
	h.seq++
	return fmt.Sprintf("0000dead-0000-4000-8000-%012d", h.seq)
}

func (b *bodyMismatch) send(w wire.WorkspaceWrite, probe *check.HostileProbe) {
	b.step, b.since = w.Step, b.in.u.w.Now()
	delete(b.in.u.hostile.writes, statusKey(b.in.conn, b.id))
	if probe != nil {
		b.in.send(b.id, w, *probe)
		return
	}
	b.in.u.forge(b.in.conn, coreID, encodeFrame(b.id, w), nil)
	b.in.u.w.After(floodPoll, "", b.poll)
}

func (b *bodyMismatch) poll() {
	r, ok := b.in.u.hostile.writes[statusKey(b.in.conn, b.id)]
	switch {
	case !b.in.open(), !ok && b.in.u.w.Now().Sub(b.since) > 5*time.Second:
		return
	case !ok:
		b.in.u.w.After(floodPoll, "", b.poll)
	case b.step == wire.StepBegin && r.Outcome == wire.OutcomeReady:
		b.send(wire.WorkspaceWrite{Step: wire.StepChunk, Offset: 0, Data: []byte("evil")}, nil)
	case b.step == wire.StepChunk && r.Outcome == wire.OutcomeReceived:
		b.send(wire.WorkspaceWrite{Step: wire.StepCommit}, &check.HostileProbe{Action: check.HostileWriteBodyMismatch, ReplyID: b.id})
	}
}

package world

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// The rogue_daemon fault: the rogue node dials Core claiming a device (a
// foreign one, or in some faults a real one, which then replaces that
// device's connection as any newer connection does) and speaks the
// protocol wrongly on purpose. Each session is one of:
//
//   - an incompatible protocol version: refused at the upgrade;
//   - two connections at once with the same identity: the newest stays;
//   - frames before any heartbeat: done, error, cancel and steering
//     receipts for Runs it never got, and statuses with a foreign handle
//     for requests it never got — Core ignores them and changes nothing;
//   - a valid heartbeat declaring no Harness kind (so Core never dispatches
//     to it), then the same foreign frames, then one of: an invalid
//     heartbeat (Core closes at once), a valid near-limit heartbeat (Core
//     keeps the connection), a frame over 4 MiB (the transport closes), or
//     silence (Core closes after its idle timeout).
//
// The session closes its connections at the fault's end, except a silent
// one, which waits for Core to close it.

// rogueID is the rogue node; check.RogueNode names it for the checkers.
const rogueID sim.NodeID = check.RogueNode

// Rogue session kinds.
const (
	rogueVersion = iota
	rogueTwin
	rogueJunk
	rogueHeartbeat
	rogueKinds
)

// rogueSession is one rogue_daemon fault.
type rogueSession struct {
	kind    int
	device  string
	version string
	ending  int // for rogueHeartbeat: 0 invalid, 1 near-limit, 2 oversize, 3 silent
	r       *rand.Rand
	until   time.Time
}

// query is the upgrade's query: the claimed device ID and protocol
// version (neither holds '&' or '=', so no escaping is needed).
func (s *rogueSession) query() string {
	return "device_id=" + s.device + "&version=" + s.version
}

// rogueState is the rogue node's life, kept in the universe: the node is
// a thin stepper over it.
type rogueState struct {
	u        *universe
	queued   []*rogueSession
	sessions map[string]*rogueSession // by query of a dial in flight or open
	seq      int
}

func (u *universe) startRogue(f sim.Fault) {
	r := hostileRand(f)
	s := &rogueSession{kind: r.IntN(rogueKinds), version: wire.Version, r: r, until: u.w.Now().Add(f.For)}
	u.hostile.rogue.seq++
	s.device = check.HostileIDPrefix + "dev-" + strconv.Itoa(u.hostile.rogue.seq)
	if r.IntN(6) == 0 {
		s.device = string(u.devices[r.IntN(len(u.devices))].ID)
	}
	switch s.kind {
	case rogueVersion:
		s.version = []string{"0.9.99", wire.Version + "-dev", wire.Version + "+build", " " + wire.Version, "0.10."}[r.IntN(5)]
	case rogueHeartbeat:
		s.ending = []int{0, 0, 1, 2, 3, 3}[r.IntN(6)] // near-limit and oversized frames are costly: rarer
	}
	u.detail("rogue daemon as " + s.device + " kind=" + strconv.Itoa(s.kind))
	u.hostile.rogue.queued = append(u.hostile.rogue.queued, s)
	u.w.Inject(rogueID, sim.TimerFired{Timer: "go"})
}

// rogueNode is the rogue's process. It has no durable state: a fault
// starts each session.
type rogueNode struct{ st *rogueState }

func (n *rogueNode) Step(now time.Time, ev sim.Event) []sim.Effect {
	st := n.st
	switch e := ev.(type) {
	case sim.TimerFired:
		if e.Timer == "go" {
			return st.dialQueued()
		}
		if c, ok := strings.CutPrefix(string(e.Timer), "close/"); ok {
			id, _ := strconv.ParseUint(c, 10, 64)
			return []sim.Effect{sim.Close{Conn: sim.ConnID(id), Reason: "rogue done"}}
		}
	case sim.ConnOpened:
		if s := st.sessions[e.Query]; s != nil && e.Dialer {
			return st.opened(now, e.Conn, s)
		}
		return []sim.Effect{sim.Close{Conn: e.Conn, Reason: "rogue accepts nothing"}}
	}
	return nil
}

func (st *rogueState) dialQueued() []sim.Effect {
	var out []sim.Effect
	for _, s := range st.queued {
		// each dial's query is unique, so opens and sessions pair up
		// whatever the order they arrive in
		st.seq++
		q := s.query() + "&n=" + strconv.Itoa(st.seq)
		st.sessions[q] = s
		out = append(out, sim.Dial{Peer: coreID, Tag: "rogue", Query: q})
		if s.kind == rogueTwin {
			q2 := s.query() + "&n=" + strconv.Itoa(st.seq) + "b"
			st.sessions[q2] = s
			out = append(out, sim.Dial{Peer: coreID, Tag: "rogue", Query: q2})
		}
	}
	st.queued = nil
	return out
}

// claimOf reads a rogue's upgrade query as Core's shell would read the
// device_id and version parameters.
func claimOf(query string) (device, version string) {
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "device_id":
			device = v
		case "version":
			version = v
		}
	}
	return device, version
}

// opened runs the session on its open connection.
func (st *rogueState) opened(now time.Time, c sim.ConnID, s *rogueSession) []sim.Effect {
	u := st.u
	closeAt := sim.SetTimer{Timer: sim.TimerID("close/" + strconv.FormatUint(uint64(c), 10)), At: s.until}
	switch s.kind {
	case rogueVersion, rogueTwin:
		return []sim.Effect{closeAt}
	case rogueJunk:
		return append(st.junk(c, s), closeAt)
	}
	out := []sim.Effect{st.send(c, encodeFrame("", wire.Heartbeat{TS: now.UnixMilli(), DaemonVersion: "rogue"}),
		check.HostileRogueForeignFrame, check.AnswerKeep)}
	out = append(out, st.junk(c, s)...)
	switch s.ending {
	case 0:
		bad := `{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"` +
			agentKind + `","available":true,"capabilities":{"streaming":true}}]}}`
		out = append(out, st.send(c, []byte(bad), check.HostileRogueInvalidHeartbeat, check.AnswerClose))
	case 1:
		hb := encodeFrame("", wire.Heartbeat{TS: now.UnixMilli(), DaemonVersion: "rogue"})
		out = append(out, st.send(c, u.padTo(hb, sim.FrameBytesMax-s.r.IntN(4096)), check.HostileRogueNearLimit, check.AnswerKeep))
	case 2:
		hb := encodeFrame("", wire.Heartbeat{TS: now.UnixMilli(), DaemonVersion: "rogue"})
		out = append(out, sim.Send{Conn: c, Frame: u.padTo(hb, sim.FrameBytesMax+1+s.r.IntN(4096))})
		u.mark(check.MarkHostileOversize)
	case 3:
		// silent from now on: Core must close it by its idle timeout
		u.led.HostileProbe(check.HostileProbe{Conn: uint64(c), Target: string(coreID),
			Action:   check.HostileRogueSilent,
			Deadline: u.lt(now) + int64(check.DocumentedTimer(check.TimerConnIdle)) + int64(time.Second)})
		return out
	}
	return append(out, closeAt)
}

// send is a rogue frame with a probe on Core's answer.
func (st *rogueState) send(c sim.ConnID, b []byte, action, want string) sim.Effect {
	u := st.u
	u.led.HostileProbe(check.HostileProbe{Conn: uint64(c), Target: string(coreID),
		Action: action, Frame: b, Want: []string{want}})
	return sim.Send{Conn: c, Frame: b}
}

// junk is the frames of Runs and requests the rogue never got: for Run
// and request IDs Core really uses (seen on the wire), and for its own.
func (st *rogueState) junk(c sim.ConnID, s *rogueSession) []sim.Effect {
	h := &st.u.hostile
	run, req, input := h.mint("r"), h.mint("p"), "1"
	if len(h.runs) > 0 {
		run = h.runs[s.r.IntN(len(h.runs))]
	}
	if len(h.reqs) > 0 {
		req = h.reqs[s.r.IntN(len(h.reqs))]
	}
	frames := [][]byte{
		encodeFrame(run, wire.Done{Content: "forged", Metadata: &wire.DoneMetadata{AgentSessionID: h.mint("native")}}),
		encodeFrame(run, wire.RunError{Error: "forged"}),
		encodeFrame(run, wire.InteractionDecisionAck{DeliveryID: "cancel:" + run, Applied: true}),
		encodeFrame(run, wire.PromptSteerAck{InputID: input, Written: true, Accepted: true}),
		encodeFrame(req, wire.PreparationStatus{Handle: h.mint("h"), ExecutorID: h.mint("e"), Revision: 99,
			State: wire.StateReady}),
		encodeFrame(req, wire.PreparationStatus{Handle: h.mint("h"), ExecutorID: h.mint("e"), Revision: 100,
			State: wire.StateStarted, RunID: run}),
	}
	s.r.Shuffle(len(frames), func(i, j int) { frames[i], frames[j] = frames[j], frames[i] })
	out := make([]sim.Effect, 0, len(frames))
	for _, b := range frames[:2+s.r.IntN(len(frames)-1)] {
		out = append(out, st.send(c, b, check.HostileRogueForeignFrame, check.AnswerIgnore))
	}
	return out
}

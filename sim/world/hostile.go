package world

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// Hostile peers are fault kinds of the default swarm, drawn per seed like
// any other, shrinkable and replayable: each fault's randomness comes
// from its own stream, seeded by the fault (hostileRand), never from a
// stream another fault or node draws from.
//
//   - hostile_proxy: a mutating proxy on one direction (or both) of a
//     Core–daemon connection for the fault's window: duplicates frames,
//     replays earlier ones later, sends near-limit copies, copies with an
//     over-long ID, and (rarely) a frame over the 4 MiB limit, which
//     closes the connection.
//   - hostile_core_frames: a rogue on Core's side of a connection sends
//     the daemon frames an honest Core never sends (hostile_injector.go).
//   - rogue_daemon: a rogue node dials Core as a device and speaks the
//     protocol wrongly on purpose (hostile_rogue.go).
var (
	kHostileProxy  = kind{kind: "hostile_proxy", min: 500 * time.Millisecond, max: 5 * time.Second}
	kHostileFrames = kind{kind: "hostile_core_frames", min: 2 * time.Second, max: 10 * time.Second}
	kRogueDaemon   = kind{kind: "rogue_daemon", min: time.Second, max: 8 * time.Second}
)

func hostileKinds() []kind { return []kind{kHostileProxy, kHostileFrames, kRogueDaemon, kRogueCore} }

// hostileRand is a fault's own stream: it depends on the fault alone, so
// dropping or adding other faults (shrinking) never changes what it does.
func hostileRand(f sim.Fault) *rand.Rand {
	return rand.New(rand.NewPCG(f.Pick, uint64(f.At)^0x686f7374696c65))
}

// hostileState is what the hostile peers read from the wire as a peer in
// the middle would: per connection, the handles a daemon granted, the
// statuses of the hostile admissions, the inputs Core got accepted and the
// Runs Core started. It never steers an honest machine.
type hostileState struct {
	seq     int
	handles map[sim.ConnID][]grant // handles granted on the connection, in order
	status  map[string]wire.PreparationStatus
	inputs  map[sim.ConnID][][2]string // accepted (run, input) pairs
	runs    []string                   // honest Run IDs Core started, in order
	reqs    []string                   // honest request IDs Core sent
	device  map[sim.ConnID]sim.NodeID  // daemon end of each Core connection
	rogue   *rogueState
	// per connection: Runs Core started, requests Core sent, and the
	// admissions the daemon reported started
	connRuns, connReqs map[sim.ConnID][]string
	started            map[sim.ConnID][]grant
	flooded            bool // an admission record flood ran (hostile_records.go)
	// decisions Core sent (conn/delivery) and those the daemon applied
	// (hostile_decisions.go)
	decisions map[string]sentDecision
	applied   map[sim.ConnID][]sentDecision
	calls     map[sim.ConnID][][2]string           // (run, call) of function calls
	writes    map[string]wire.WorkspaceWriteResult // hostile_writes.go
	cores     []*rogueCore                         // hostile_rogue_core.go
}

type grant struct{ reqID, handle, executor string }

func (h *hostileState) init() {
	h.handles, h.status = map[sim.ConnID][]grant{}, map[string]wire.PreparationStatus{}
	h.inputs, h.device = map[sim.ConnID][][2]string{}, map[sim.ConnID]sim.NodeID{}
	h.connRuns, h.connReqs, h.started = map[sim.ConnID][]string{}, map[sim.ConnID][]string{}, map[sim.ConnID][]grant{}
}

// mint returns a fresh hostile identity of a kind ("p", "r", "s", ...).
func (h *hostileState) mint(kind string) string {
	h.seq++
	return fmt.Sprintf("%s%s-%d", check.HostileIDPrefix, kind, h.seq)
}

func statusKey(c sim.ConnID, id string) string { return strconv.FormatUint(uint64(c), 10) + "/" + id }

// watch reads one network event for the hostile peers.
func (u *universe) watchHostile(ev sim.TapEvent, we check.WireEvent) {
	h := &u.hostile
	if ev.Kind == sim.TapOpened && ev.To == coreID && u.deviceByID(ev.From) != nil {
		h.device[ev.Conn] = ev.From
	}
	if ev.Kind != sim.TapSent || ev.Forged || !we.HasFrame() {
		return
	}
	f := we.Frame
	u.changeAppliedDecision(ev.Conn, ev.From, f) // before watchDecisions forgets the decision
	h.watchDecisions(ev.Conn, ev.From, f)
	u.watchDecisionRepeats(ev.Conn, ev.From, f)
	h.watchWrites(ev.Conn, f)
	h.watchRogueCores(ev.Conn, ev.From, f)
	u.watchEnvironmentReplies(ev.From, f)
	u.watchWorkspace(ev.Conn, ev.From, f)
	u.forgeStaleSubagent(ev.Conn, ev.From, f)
	switch p := f.Payload.(type) {
	case wire.PreparationStatus:
		if strings.HasPrefix(f.ID, check.HostileIDPrefix) {
			h.status[statusKey(ev.Conn, f.ID)] = p
			return
		}
		g := grant{reqID: f.ID, handle: p.Handle, executor: p.ExecutorID}
		switch {
		case p.ExecutorID == "":
			// a read-only workspace profile: no executor to forge a start with
		case p.State == wire.StatePreparing || p.State == wire.StateReady && p.Revision == 1:
			h.handles[ev.Conn] = append(h.handles[ev.Conn], g)
		case p.State == wire.StateStarted:
			h.started[ev.Conn] = append(h.started[ev.Conn], g)
		}
		if p.State == wire.StateStarting && p.RunID != "" && ev.From != coreID {
			// a Run the daemon took on this connection: a later start
			// naming it is run_conflict (one refused, say for an expired
			// admission, never became a Run)
			h.connRuns[ev.Conn] = append(h.connRuns[ev.Conn], p.RunID)
		}
	case wire.PromptSteerAck:
		if p.Accepted && ev.To == coreID {
			h.inputs[ev.Conn] = append(h.inputs[ev.Conn], [2]string{f.ID, p.InputID})
		}
	case wire.ExecutionStart:
		if ev.From == coreID {
			h.runs = append(h.runs, p.RunID)
		}
	case wire.ExecutionPrepare:
		if ev.From == coreID {
			h.reqs = append(h.reqs, f.ID)
			h.connReqs[ev.Conn] = append(h.connReqs[ev.Conn], f.ID)
		}
	}
}

// coreConn picks an open Core–daemon connection with f.Pick; ok is false
// when there is none.
func (u *universe) coreConn(f sim.Fault) (sim.ConnInfo, sim.NodeID, bool) {
	var cands []sim.ConnInfo
	for _, c := range u.w.OpenConns() {
		if c.Acceptor == coreID && u.deviceByID(c.Dialer) != nil {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return sim.ConnInfo{}, "", false
	}
	c := cands[f.Pick%uint64(len(cands))]
	return c, c.Dialer, true
}

// forge puts a frame on conn from `from` and registers its probe, if any.
// A forgery the connection no longer carries registers nothing.
func (u *universe) forge(conn sim.ConnID, from sim.NodeID, frame []byte, p *check.HostileProbe) {
	target := u.peerOf(conn, from)
	if !u.w.Forge(conn, from, frame) || p == nil {
		return
	}
	p.Conn, p.Frame = uint64(conn), frame
	if p.Target == "" {
		p.Target = string(target)
	}
	u.led.HostileProbe(*p)
}

// peerOf returns the other end of an open connection.
func (u *universe) peerOf(conn sim.ConnID, from sim.NodeID) sim.NodeID {
	c, ok := u.w.OpenConn(conn)
	switch {
	case !ok:
		return ""
	case c.Dialer == from:
		return c.Acceptor
	}
	return c.Dialer
}

// encodeFrame encodes a forged frame. The world builds each one valid
// but for the defect it probes; should the wire package's validation
// refuse it anyway, the frame is rendered by encoding/json and sent all
// the same, so that the peer under test answers it and the probe's rule
// judges that answer. The encoder the peers share is the code under test,
// never the judge.
func encodeFrame(id string, p wire.Payload) []byte {
	if b, err := wire.Encode(wire.Frame{ID: id, Payload: p}); err == nil {
		return b
	}
	body, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("hostile frame %T does not marshal: %v", p, err))
	}
	return []byte(`{"type":` + quote(p.MessageType()) + `,"id":` + quote(id) + `,"payload":` + string(body) + `}`)
}

func sortedConns(m map[sim.ConnID][]grant) []sim.ConnID {
	out := make([]sim.ConnID, 0, len(m))
	for c := range m { //tidy:sorted sorted below
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

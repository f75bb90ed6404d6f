package world

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/wire"
)

// coreNode is the Core process: the machine plus a thin shell that
// accepts device connections (checking the version), decodes and encodes
// frames, answers API calls after a small latency and taps effects for
// the ledger.
type coreNode struct {
	u       *universe
	broken  bool // the machine panicked: the process is a corpse
	m       *core.Machine
	replies map[sim.TimerID]sim.Reply
	seq     uint64
	// resends counts refusals (not_ready, busy) Core received per
	// run/input: each allows one more prompt_steer of the same input.
	resends map[string]int
	sent    map[string]bool // run/input whose first prompt_steer left
	// Core's own frames, as it sends them: the Session each preparation
	// request serves, and the latest prompt_cancel of each run.
	prepSession map[string]string
	streams     map[string]*statusStream
	cancels     map[string]*cancelSent
	// conns maps each open connection to its device, as the node's
	// connection events report them (a newer one replaces an older).
	conns map[core.ConnID]string
	rogue map[sim.ConnID]bool
	// callers are the workspace calls whose answer comes in a later
	// step (workspace_node.go).
	callers map[core.CallID]caller
	// streamed holds the chunks of streamed exports taken so far
	// (workspace_node.go).
	streamed map[core.CallID][]byte
	// watchReq is the request whose status Core is stepping; reacted
	// collects the frames Core sends for it meanwhile (stale_status.go).
	watchReq string
	reacted  []string
	subs     *subscriberShell // subscribers.go
	// prefix is put before the IDs of its timers once a takeover made
	// two Cores share the node (failover.go); zombie is set on the old
	// one.
	prefix string
	zombie *zombie
}

const (
	corePrefix = "c/"
	apiPrefix  = "api/"
)

func (u *universe) newCore() sim.Node {
	n := &coreNode{u: u, replies: map[sim.TimerID]sim.Reply{}, resends: map[string]int{}, sent: map[string]bool{},
		prepSession: map[string]string{}, streams: map[string]*statusStream{}, cancels: map[string]*cancelSent{}, conns: map[core.ConnID]string{},
		rogue: map[sim.ConnID]bool{}, callers: map[core.CallID]caller{}}
	u.startPolicy() // engine_profile.go
	if len(u.store.Memory.Turns()) == 0 && len(u.store.Memory.Sessions()) == 0 {
		n.m = core.New(u.coreCfg, u.store)
	} else {
		n.m = core.Restart(u.coreCfg, u.store)
		u.led.CoreRestarted(u.lt(u.w.Now()), u.store.facts())
		u.count("CoreRestarted")
	}
	u.core = n
	return n
}

func (n *coreNode) Step(now time.Time, ev sim.Event) []sim.Effect {
	if n.u.failover != nil {
		return n.failoverStep(now, ev)
	}
	return n.stepCore(now, ev)
}

func (n *coreNode) stepCore(now time.Time, ev sim.Event) []sim.Effect {
	if n.broken {
		return nil // its machine panicked
	}
	switch e := ev.(type) {
	case sim.Start:
		return nil
	case sim.ConnOpened:
		if e.Peer == rogueID {
			return n.rogueOpened(now, e)
		}
		version := upgradeVersion(e.Query)
		n.u.led.UpgradeVersion(n.u.lt(now), uint64(e.Conn), version)
		if !wire.Compatible(version) {
			return []sim.Effect{sim.Close{Conn: e.Conn, Reason: harness.ReasonVersion}}
		}
		n.reconnectDuringSteer(string(e.Peer), 0)
		for c, d := range n.conns { //tidy:sorted deleting only
			if d == string(e.Peer) {
				delete(n.conns, c)
			}
		}
		n.conns[core.ConnID(e.Conn)] = string(e.Peer)
		return n.step(now, core.ConnOpened{Device: string(e.Peer), Conn: core.ConnID(e.Conn)})
	case sim.ConnClosed:
		n.reconnectDuringSteer("", core.ConnID(e.Conn))
		defer delete(n.conns, core.ConnID(e.Conn))
		return n.step(now, core.ConnClosed{Conn: core.ConnID(e.Conn), Reason: e.Reason})
	case sim.Delivered:
		return n.delivered(now, e)
	case sim.TimerFired:
		if r, ok := n.replies[e.Timer]; ok {
			delete(n.replies, e.Timer)
			return []sim.Effect{r}
		}
		if id, ok := strings.CutPrefix(string(e.Timer), subPrefix); ok {
			return n.subscriberTimer(now, id)
		}
		if call, ok := strings.CutPrefix(string(e.Timer), exportTakenPrefix); ok {
			return n.step(now, core.ExportChunkTaken{Call: core.CallID(call)})
		}
		if call, ok := strings.CutPrefix(string(e.Timer), exportAbandonPrefix); ok {
			return n.step(now, core.ExportChunkTaken{Call: core.CallID(call), Abandon: true})
		}
		id, ok := strings.CutPrefix(string(e.Timer), corePrefix)
		if !ok {
			return nil
		}
		return n.step(now, core.TimerFired{Timer: core.TimerID(id)})
	case sim.CallReceived:
		return n.api(now, e)
	}
	return nil
}

func (n *coreNode) delivered(now time.Time, e sim.Delivered) []sim.Effect {
	conn := core.ConnID(e.Conn)
	f, err := n.u.decodeDelivered(e.Frame)
	if err != nil {
		var de *wire.DecodeError
		typ := ""
		if errors.As(err, &de) {
			typ = de.Type
		}
		return n.stepRogueAware(now, e, core.FrameRejected{Conn: conn, Type: typ, Err: err})
	}
	if !n.rogue[e.Conn] {
		n.observeInbound(conn, f)
		if st, ok := f.Payload.(wire.PreparationStatus); ok && n.streamOn(conn, f.ID) {
			return n.stepStatus(now, e, conn, f, st)
		}
	}
	return n.stepRogueAware(now, e, core.FrameReceived{Conn: conn, Frame: f})
}

// upgradeVersion is the protocol version a daemon's upgrade declares,
// which Core's shell decides by the gateway's rule (wire.Compatible); an
// upgrade that declares none is the daemon's own build, wire.Version.
func upgradeVersion(query string) string {
	if query == "" {
		return wire.Version
	}
	_, version := claimOf(query)
	return version
}

// rogueOpened reads a rogue's upgrade as the gateway reads one: the
// claimed device ID, then the protocol version by the gateway's rule
// (wire.Compatible).
func (n *coreNode) rogueOpened(now time.Time, e sim.ConnOpened) []sim.Effect {
	device, version := claimOf(e.Query)
	n.rogue[e.Conn] = true
	n.u.led.RogueConn(n.u.lt(now), uint64(e.Conn), device, version)
	if !wire.Compatible(version) {
		return []sim.Effect{sim.Close{Conn: e.Conn, Reason: harness.ReasonVersion}}
	}
	if device == "" {
		return []sim.Effect{sim.Close{Conn: e.Conn, Reason: "missing_params"}}
	}
	n.reconnectDuringSteer(device, 0)
	return n.step(now, core.ConnOpened{Device: device, Conn: core.ConnID(e.Conn)})
}

// stepRogueAware steps a frame; on a rogue's connection, or for a forged
// frame Core must ignore, it reports any durable write Core makes
// meanwhile. One consequence is the seeds': a rogue claiming a device of
// the pool is that device for Core, so its heartbeat is the device's
// declaration, and a queued Turn that no device of the pool can serve now
// fails capability_unsupported (its inputs with it). Those writes are
// judged by reconnect_window, not here.
func (n *coreNode) stepRogueAware(now time.Time, d sim.Delivered, ev core.Event) []sim.Effect {
	c := d.Conn
	if !n.rogue[c] && (len(n.u.ignoreAtCore) == 0 || !n.u.ignoreAtCore[string(d.Frame)]) {
		return n.step(now, ev)
	}
	st := n.u.store
	st.logging, st.logged, st.unsupported = true, st.logged[:0], map[string]bool{}
	out := n.step(now, ev)
	st.logging = false
	declaration := false
	if fr, ok := ev.(core.FrameReceived); ok && n.rogue[c] {
		_, declaration = fr.Frame.Payload.(wire.Heartbeat)
	}
	for _, w := range st.logged {
		if declaration && (w.kind == "turn" || w.kind == "input of turn") && st.unsupported[w.id] {
			continue
		}
		n.u.led.HostileDurableWrite(n.u.lt(now), uint64(c), w.kind+" "+w.id)
		break
	}
	return out
}

// api turns a workload call into a Core API event; the answer leaves
// after a small latency, so a read is an interval of virtual time.
func (n *coreNode) api(now time.Time, e sim.CallReceived) []sim.Effect {
	req, ok := e.Req.(apiRequest)
	if !ok {
		return nil
	}
	call := core.CallID(numbered(string(e.From)+"/", uint64(e.Call)))
	var ev core.Event
	switch x := req.ev.(type) {
	case core.CreateSession:
		x.Call = call
		ev = x
	case core.SubmitTurn:
		x.Call = call
		ev = x
	case core.SteerInput:
		x.Call = call
		ev = x
	case core.CancelTurn:
		x.Call = call
		ev = x
		n.u.led.CancelCalled(n.u.lt(now), x.Turn)
	case core.ReadTurn:
		x.Call = call
		ev = x
	default:
		if ev = n.workspaceCall(call, e); ev == nil {
			ev = environmentCall(req.ev, call)
		}
		if ev == nil {
			ev = withInteractionCall(req.ev, call)
		}
		if ev == nil {
			panic(fmt.Sprintf("world: the workload called Core with %T, which no call table routes", req.ev))
		}
	}
	out := n.step(now, ev)
	for i, ef := range out {
		if r, ok := ef.(sim.Reply); ok && r.To == "" {
			r.To, r.Call = e.From, e.Call
			n.seq++
			id := sim.TimerID(numbered(apiPrefix, n.seq))
			n.replies[id] = r
			out[i] = sim.SetTimer{Timer: id, At: now.Add(time.Duration(1+n.u.w.Rand("api").IntN(20)) * time.Millisecond)}
		}
	}
	return out
}

// stepMachine runs the machine on ev. A failed assertion is returned with
// the effects its step had produced: step still applies them, so that the
// checkers see what Core was about to do, and reports the panic after
// them (machine_panic.go); the node then does nothing more, unless the
// step had completed and only its closing invariant check failed.
func (n *coreNode) stepMachine(now time.Time, ev core.Event) (effs []core.Effect, sp *core.StepPanic) {
	defer func() {
		if p := recover(); p != nil {
			s, ok := p.(core.StepPanic)
			if !ok {
				panic(p)
			}
			effs, sp = s.Effects, &s
		}
	}()
	return n.m.Step(now, ev), nil
}

// step runs the machine and translates its effects.
func (n *coreNode) step(now time.Time, ev core.Event) []sim.Effect {
	if z := n.zombie; z != nil && z.dead {
		return nil
	}
	effs, sp := n.stepMachine(now, ev)
	if z := n.zombie; z != nil && sp == nil && !z.committed(now) {
		return nil
	}
	out := make([]sim.Effect, 0, len(effs))
	for _, ef := range effs {
		switch e := ef.(type) {
		case core.Send:
			if n.watchReq != "" && e.Frame.ID == n.watchReq {
				n.reacted = append(n.reacted, e.Frame.Payload.MessageType())
			}
			n.observeOutbound(e)
			b, err := n.u.encodeSent(e.Frame)
			if err != nil {
				n.u.fail(checkWire, "Core frame %s does not encode: %v", core.DescribeFrame(e.Frame), err)
				continue
			}
			n.u.forgeAheadOfEnvironment(e)
			out = append(out, sim.Send{Conn: sim.ConnID(e.Conn), Frame: b, Budget: e.Budget})
			out = n.u.duplicateDecision(out, e, b)
		case core.CloseConn:
			out = append(out, sim.Close{Conn: sim.ConnID(e.Conn), Reason: e.Reason})
		case core.SetTimer:
			out = append(out, sim.SetTimer{Timer: sim.TimerID(corePrefix + string(e.Timer)), At: e.At})
		case core.CancelTimer:
			out = append(out, sim.CancelTimer{Timer: sim.TimerID(corePrefix + string(e.Timer))})
		case core.APIResult:
			if !n.subscriberResult(now, e) {
				out = append(out, n.reply(e))
				out = append(out, n.planSubscribers(now, e)...)
			}
		case core.Observation:
			out = append(out, n.observed(now, e)...)
		case core.ExportChunk:
			out = append(out, n.exportChunk(now, e))
		}
	}
	n.subscribersStepped(now)
	if sp != nil {
		n.broken = !sp.Completed
		n.u.machinePanicked(sp.Completed, fmt.Sprintf("core: %v", sp.Value))
	}
	return out
}

// apiRequest is a workload call to Core's API; apiResult its answer.
type apiRequest struct{ ev core.Event }

func (r apiRequest) Describe() string { return r.ev.Describe() }

// AppendDescribe appends the event's description, through its own
// AppendDescribe when it has one.
func (r apiRequest) AppendDescribe(b []byte) []byte {
	if a, ok := r.ev.(sim.AppendDescriber); ok {
		return a.AppendDescribe(b)
	}
	return append(b, r.ev.Describe()...)
}

type apiResult struct{ r core.APIResult }

func (r apiResult) Describe() string { return r.r.Describe() }

// AppendDescribe appends the result's description.
func (r apiResult) AppendDescribe(b []byte) []byte { return r.r.AppendDescribe(b) }

// connName is the ledger's name of a connection, shared by both ends.
func connName[T ~uint64](c T) string { return "c" + strconv.FormatUint(uint64(c), 10) }

// numbered is prefix followed by n in decimal, built with one allocation
// (prefix + strconv.FormatUint(n, 10) makes two).
func numbered(prefix string, n uint64) string {
	var buf [48]byte
	return string(strconv.AppendUint(append(buf[:0], prefix...), n, 10))
}

// turnOfRun returns the turn ID of a run ID ("t-3" or "t-3.2").
func turnOfRun(run string) string {
	t, _, _ := strings.Cut(run, ".")
	return t
}

func steerKey(run, input string) string { return run + "\x00" + input }

// deviceOf returns the device whose current connection is conn, from the
// node's connection events (not Core's view).
func (n *coreNode) deviceOf(conn core.ConnID) string { return n.conns[conn] }

// reconnectDuringSteer marks a connection of a device going away (closed,
// or replaced by a new one) while one of its turns has an input whose
// receipt Core still awaits.
func (n *coreNode) reconnectDuringSteer(device string, conn core.ConnID) {
	if device == "" {
		device = n.deviceOf(conn)
	}
	if device == "" {
		return
	}
	for _, t := range n.m.ActiveTurns() {
		rec, ok := n.u.store.Memory.Turn(t.ID)
		if !ok || rec.Device != device || t.State != core.TurnRunning {
			continue
		}
		for _, in := range t.Inputs {
			if in.State == core.InputDelivering || in.State == core.InputWritten {
				n.u.mark(check.MarkReconnectDuringSteer)
				return
			}
		}
	}
}

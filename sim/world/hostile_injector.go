package world

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// The hostile_core_frames fault: a rogue on Core's side of one Core–daemon
// connection sends the daemon frames an honest Core never sends, each with
// the answer the seeds document (wire reference §3.3, §3.5, §3.7). Every
// identity it mints starts with check.HostileIDPrefix, so its answers go to
// Core, which must ignore them; it reuses an honest identity only where the
// answer cannot touch an honest outcome (an input Core already saw
// accepted, a handle of another request or connection). Its own admission
// (a valid prepare of a Session of its own) is then attacked once ready:
// a start with the wrong executor, a release, a start of the released
// handle.

// injector is one hostile_core_frames fault.
type injector struct {
	u    *universe
	r    *rand.Rand
	conn sim.ConnID
	dev  sim.NodeID
	req  string // its own admission's request ID
	sess string // its own admission's Session
}

func (u *universe) startInjector(f sim.Fault) {
	c, dev, ok := u.coreConn(f)
	if !ok {
		u.noVictim(f, "no Core–daemon connection")
		return
	}
	in := &injector{u: u, r: hostileRand(f), conn: c.ID, dev: dev}
	u.detail("rogue Core frames on " + connName(c.ID) + " to " + string(dev))
	// the actions that need an honest state to exist (an accepted input, a
	// started admission) run whenever they can; the others in a random
	// subset
	in.reusedInput()
	in.conflictingStart()
	for _, d := range []time.Duration{f.For, f.For + 15*time.Second, f.For + 40*time.Second} {
		u.w.After(d, "", in.conflictingDecision) // decisions come late in a Turn
		u.w.After(d, "", in.imageResult)
	}
	in.ownAdmission()
	in.recordFlood()
	actions := []func(){in.neverGranted, in.foreignHandle, in.staleHandle, in.invalidStart,
		in.badReleases, in.undecodablePrepare, in.unknownRun, in.longInputID, in.undecodableSteer,
		in.refusedPrepares, in.foreignStatus, in.mcpPrepares, in.blankInputSteer, in.bodyMismatch}
	in.r.Shuffle(len(actions), func(i, j int) { actions[i], actions[j] = actions[j], actions[i] })
	n := 3 + in.r.IntN(len(actions)-2)
	for _, a := range actions[:n] {
		a()
	}
	if in.req != "" {
		u.w.After(f.For, "", in.attackOwn)
	}
}

func (in *injector) send(id string, p wire.Payload, probe check.HostileProbe) {
	in.sendRaw(encodeFrame(id, p), probe)
}

func (in *injector) sendRaw(b []byte, probe check.HostileProbe) {
	probe.Target = string(in.dev)
	in.u.forge(in.conn, coreID, b, &probe)
}

func hostileInput(text string) wire.MessageInput {
	return wire.MessageInput{{Content: []wire.InputContent{wire.TextPart(text)}}}
}

// neverGranted: a start and a release of a handle no one ever granted.
func (in *injector) neverGranted() {
	h := in.u.hostile.mint("h")
	req := in.u.hostile.mint("p")
	in.send(req, wire.ExecutionStart{ExecutorID: in.u.hostile.mint("e"), Handle: h, RunID: in.u.hostile.mint("r"),
		Input: hostileInput("never granted")},
		check.HostileProbe{Action: check.HostileStartNeverGranted, ReplyID: req})
	req2 := in.u.hostile.mint("p")
	in.send(req2, wire.ExecutionRelease{Handle: h},
		check.HostileProbe{Action: check.HostileReleaseNeverGrant, ReplyID: req2})
}

// foreignHandle: a start naming a handle the daemon granted on this
// connection to another request ID.
func (in *injector) foreignHandle() {
	gs := in.u.hostile.handles[in.conn]
	if len(gs) == 0 {
		return
	}
	g := gs[in.r.IntN(len(gs))]
	req := in.u.hostile.mint("p")
	in.send(req, wire.ExecutionStart{ExecutorID: g.executor, Handle: g.handle, RunID: in.u.hostile.mint("r"),
		Input: hostileInput("foreign handle")},
		check.HostileProbe{Action: check.HostileStartForeignHandle, ReplyID: req})
}

// staleHandle: a start with the request ID and handle of an admission
// granted on an older connection of the same device: handles are valid
// only on the connection that issued them.
func (in *injector) staleHandle() {
	h := &in.u.hostile
	for _, c := range sortedConns(h.handles) {
		if c >= in.conn || h.device[c] != in.dev || len(h.handles[c]) == 0 {
			continue
		}
		g := h.handles[c][in.r.IntN(len(h.handles[c]))]
		req := h.mint("p")
		in.send(req, wire.ExecutionStart{ExecutorID: g.executor, Handle: g.handle, RunID: h.mint("r"),
			Input: hostileInput("stale handle")},
			check.HostileProbe{Action: check.HostileStartStaleHandle, ReplyID: req})
		return
	}
}

// invalidStart: a start with a blank Run ID (it decodes; the dispatcher
// refuses it as invalid_start).
func (in *injector) invalidStart() {
	req := in.u.hostile.mint("p")
	b := []byte(`{"type":"execution_start","id":` + quote(req) + `,"payload":{"executor_id":"x-e","handle":"x-h",` +
		`"run_id":"  ","input":[{"content":[{"type":"input_text","text":"blank run"}]}]}}`)
	in.sendRaw(b, check.HostileProbe{Action: check.HostileStartInvalid, ReplyID: req})
}

// badReleases: a release without a handle.
func (in *injector) badReleases() {
	req := in.u.hostile.mint("p")
	b := []byte(`{"type":"execution_release","id":` + quote(req) + `,"payload":{"handle":""}}`)
	in.sendRaw(b, check.HostileProbe{Action: check.HostileReleaseEmpty, ReplyID: req})
}

// undecodablePrepare: an execution_prepare whose payload does not decode.
func (in *injector) undecodablePrepare() {
	req := in.u.hostile.mint("p")
	b := in.malformedPrepare(req)
	in.sendRaw(b, check.HostileProbe{Action: check.HostilePrepareUndecodable, ReplyID: req})
}

// unknownRun: a cancel and a steer for a Run the daemon never started.
func (in *injector) unknownRun() {
	h := &in.u.hostile
	run := h.mint("r")
	in.send(run, wire.PromptCancel{DeliveryID: h.mint("d")},
		check.HostileProbe{Action: check.HostileCancelUnknownRun, ReplyID: run})
	run2 := h.mint("r")
	in.send(run2, wire.PromptSteer{InputID: h.mint("i"), Input: hostileInput("unknown run"), DurableReceipt: true},
		check.HostileProbe{Action: check.HostileSteerUnknownRun, ReplyID: run2})
}

// longInputID: a steer whose input_id exceeds 256 bytes (half of them by
// exactly one byte): invalid_input, and the receipt never echoes the
// oversized identity. One in three is exactly 256 bytes instead, which is
// valid: the Run is unknown, so run_inactive.
func (in *injector) longInputID() {
	run := in.u.hostile.mint("r")
	n, probe := wire.InputIDBytesMax+1, check.HostileProbe{Action: check.HostileSteerLongInputID, ReplyID: run}
	switch in.r.IntN(6) {
	case 0, 1:
		n, probe = wire.InputIDBytesMax, check.HostileProbe{Action: check.HostileSteerLimitInputID, ReplyID: run}
	case 2, 3:
		n += 1 + in.r.IntN(64)
	}
	id := check.HostileIDPrefix + strings.Repeat("i", n-len(check.HostileIDPrefix))
	b := []byte(`{"type":"prompt_steer","id":` + quote(run) + `,"payload":{"input_id":` + quote(id) +
		`,"input":[{"content":[{"type":"input_text","text":"long id"}]}],"durable_receipt":true}}`)
	in.sendRaw(b, probe)
}

// undecodableSteer: a steer whose payload does not decode (input is not a
// message list): invalid_input, on the Run ID.
func (in *injector) undecodableSteer() {
	run := in.u.hostile.mint("r")
	b := in.malformedSteer(run)
	in.sendRaw(b, check.HostileProbe{Action: check.HostileSteerUndecodable, ReplyID: run})
}

// blankInputSteer: a steer whose input_id is only spaces: invalid_input
// (the encoder refuses it: edit the bytes).
func (in *injector) blankInputSteer() {
	h := &in.u.hostile
	run, input := h.mint("r"), h.mint("i")
	b := encodeFrame(run, wire.PromptSteer{InputID: input, Input: hostileInput("blank input id"), DurableReceipt: true})
	b = bytes.Replace(b, []byte(`"input_id":`+quote(input)), []byte(`"input_id":"  "`), 1)
	in.sendRaw(b, check.HostileProbe{Action: check.HostileSteerBlankInputID, ReplyID: run})
}

// reusedInput: a steer reusing the Run and input ID of an input Core
// already saw accepted, with other content: input_conflict (run_inactive
// once the daemon published done and dropped the route). Core ignores a
// receipt for an input it no longer waits for.
func (in *injector) reusedInput() {
	ins := in.u.hostile.inputs[in.conn]
	if len(ins) == 0 {
		return
	}
	ri := ins[in.r.IntN(len(ins))]
	in.send(ri[0], wire.PromptSteer{InputID: ri[1], Input: hostileInput("other content"), DurableReceipt: true},
		check.HostileProbe{Action: check.HostileSteerReusedInput, ReplyID: ri[0]})
}

// hostileConfig is a valid configuration of a Session of the injector's.
func hostileConfig(session, model string) wire.ExecutionConfiguration {
	c := wire.ExecutionConfiguration{AgentKind: agentKind, AgentStateKey: wire.AgentStateKey(session),
		StrictResume: true, DisableExecutionEnvironment: true}
	b, _ := json.Marshal(model)
	c.AgentOptions = map[string]json.RawMessage{wire.AgentOptionModel: b}
	return c
}

// ownAdmission: a valid prepare of its own Session, then the same request
// ID with other content (request_conflict once granted). In half the
// faults the first prepare carries an explicit empty agent_options, which
// a Runtime reads as no options: it is admitted like any other.
func (in *injector) ownAdmission() {
	h := &in.u.hostile
	in.req = h.mint("p")
	s := h.mint("s")
	in.sess = s
	if in.r.IntN(2) == 0 {
		c := hostileConfig(s, "m1")
		c.AgentOptions = nil
		b := encodeFrame(in.req, wire.ExecutionPrepare{SessionID: s, Configuration: c})
		b = bytes.Replace(b, []byte(`"strict_resume":true`), []byte(`"strict_resume":true,"agent_options":{}`), 1)
		in.sendRaw(b, check.HostileProbe{Action: check.HostilePrepareEmptyOptions, ReplyID: in.req})
	} else {
		in.send(in.req, wire.ExecutionPrepare{SessionID: s, Configuration: hostileConfig(s, "m1")},
			check.HostileProbe{Action: check.HostilePrepareOwn, ReplyID: in.req})
	}
	in.send(in.req, wire.ExecutionPrepare{SessionID: s, Configuration: hostileConfig(s, "m2")},
		check.HostileProbe{Action: check.HostilePrepareConflict, ReplyID: in.req})
}

// attackOwn attacks the injector's own admission at the end of the fault:
// once ready, a start with the wrong executor, a release, and a start of
// the released handle; while still preparing, a release.
func (in *injector) attackOwn() {
	st, ok := in.u.hostile.status[statusKey(in.conn, in.req)]
	if !ok || st.Handle == "" || st.State == wire.StateRejected {
		return
	}
	h := &in.u.hostile
	if st.State == wire.StateReady {
		in.send(in.req, wire.ExecutionStart{ExecutorID: h.mint("e"), Handle: st.Handle, RunID: h.mint("r"),
			Input: hostileInput("wrong executor")},
			check.HostileProbe{Action: check.HostileStartWrongExecutor, ReplyID: in.req})
		if runs := h.connRuns[in.conn]; len(runs) > 0 {
			// a Run ID already used on this connection: run_conflict
			in.send(in.req, wire.ExecutionStart{ExecutorID: st.ExecutorID, Handle: st.Handle, RunID: runs[in.r.IntN(len(runs))],
				Input: hostileInput("used run")},
				check.HostileProbe{Action: check.HostileStartUsedRun, ReplyID: in.req})
		}
	}
	if st.State == wire.StateReady || st.State == wire.StatePreparing {
		in.send(in.req, wire.ExecutionRelease{Handle: st.Handle},
			check.HostileProbe{Action: check.HostileReleaseOwn, ReplyID: in.req})
		in.send(in.req, wire.ExecutionStart{ExecutorID: st.ExecutorID, Handle: st.Handle, RunID: h.mint("r"),
			Input: hostileInput("released")},
			check.HostileProbe{Action: check.HostileStartReleased, ReplyID: in.req})
		if st.State == wire.StateReady {
			in.u.w.After(time.Duration(50+in.r.IntN(500))*time.Millisecond, "", in.reusePrepares)
		}
	}

}

// reusePrepares: once its own admission is released, its executor idles
// for its Session, prepared as a new root with model m1. Two prepares of
// that Session may not reuse it: one with another configuration
// (configuration_conflict) and one requiring existing history without
// naming it (history_unavailable). A busy, closing or vanished executor,
// or an unavailable kind, answers otherwise; executor_reuse judges
// any reuse from the wire.
func (in *injector) reusePrepares() {
	h := &in.u.hostile
	req := h.mint("p")
	in.send(req, wire.ExecutionPrepare{SessionID: in.sess, Configuration: hostileConfig(in.sess, "m3")},
		check.HostileProbe{Action: check.HostilePrepareOtherConfig, ReplyID: req})
	c := hostileConfig(in.sess, "m1")
	c.RequireExistingNativeSession = true
	req = h.mint("p")
	in.send(req, wire.ExecutionPrepare{SessionID: in.sess, Configuration: c},
		check.HostileProbe{Action: check.HostilePrepareReuseNoHistory, ReplyID: req})
}

// conflictingStart: the request ID, handle and executor of an admission
// the daemon already started on this connection (and Core is done with),
// with another Run: start_conflict.
func (in *injector) conflictingStart() {
	ss := in.u.hostile.started[in.conn]
	if len(ss) == 0 {
		return
	}
	g := ss[in.r.IntN(len(ss))]
	in.send(g.reqID, wire.ExecutionStart{ExecutorID: g.executor, Handle: g.handle, RunID: in.u.hostile.mint("r"),
		Input: hostileInput("conflicting start")},
		check.HostileProbe{Action: check.HostileStartConflict, ReplyID: g.reqID})
}

// refusedPrepares: prepares of Sessions of its own that the configuration
// rules refuse before any native work: a state key of another Session
// (invalid_configuration), an agent option the Runtime does not know
// (unsupported_configuration), and existing history required of a Session
// that has none (history_unavailable). A device whose kind is unavailable
// answers resource_unavailable to the last two.
func (in *injector) refusedPrepares() {
	h := &in.u.hostile
	s := h.mint("s")
	req := h.mint("p")
	// the encoder refuses the state key of another Session: edit the bytes
	b := encodeFrame(req, wire.ExecutionPrepare{SessionID: s, Configuration: hostileConfig(s, "m")})
	b = bytes.Replace(b, []byte(quote(wire.AgentStateKey(s))), []byte(quote(wire.AgentStateKey(h.mint("s")))), 1)
	in.sendRaw(b, check.HostileProbe{Action: check.HostilePrepareInvalid, ReplyID: req})
	s = h.mint("s")
	req = h.mint("p")
	b = encodeFrame(req, wire.ExecutionPrepare{SessionID: s, Configuration: hostileConfig(s, "m")})
	b = bytes.Replace(b, []byte(`"agent_options":{`), []byte(`"agent_options":{"x-unknown-option":true,`), 1)
	in.sendRaw(b, check.HostileProbe{Action: check.HostilePrepareUnknownOption, ReplyID: req})
	s = h.mint("s")
	c := hostileConfig(s, "m")
	c.RequireExistingNativeSession = true
	req = h.mint("p")
	in.send(req, wire.ExecutionPrepare{SessionID: s, Configuration: c},
		check.HostileProbe{Action: check.HostilePrepareNoHistory, ReplyID: req})
}

// foreignStatus: towards Core, a status for a request whose handle the
// daemon already sent on this connection (so Core sees the real one
// first), with a handle the daemon never issued and a revision above any:
// Core applies only the first handle of a stream, so it ignores it (it
// never starts, releases or records anything for the foreign handle).
func (in *injector) foreignStatus() {
	h := &in.u.hostile
	gs := h.handles[in.conn]
	if len(gs) == 0 {
		return
	}
	req := gs[len(gs)-1].reqID
	st := wire.PreparationStatus{Handle: h.mint("h"), ExecutorID: h.mint("e"), Revision: 1 << 40, State: wire.StateReady}
	if in.r.IntN(2) == 0 {
		st.State, st.RunID = wire.StateStarted, h.mint("r")
	}
	b := encodeFrame(req, st)
	in.u.ignoreAtCore[string(b)] = true
	in.u.forge(in.conn, in.dev, b, &check.HostileProbe{Target: string(coreID), Action: check.HostileForeignStatus})
}

package world

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/sim/harness"
	"github.com/turnstile-sim/turnstile/wire"
)

// The rogue_core fault: a scripted rogue on Core's side of one Core–daemon
// connection runs an admission and a Run of its own (every identity
// minted with check.HostileIDPrefix, so Core ignores the answers) and, in
// each situation it drives the daemon into, sends the frame that is wrong
// there:
//
//   - at once: an undecodable execution_start and execution_release, and
//     a start that decodes with an invalid input (invalid_start,
//     invalid_release, invalid_start);
//   - its prepare granted (ready): a release of the handle under another
//     request ID (unknown_preparation, the handle untouched), then its
//     start, and behind it in the same instant a cancel with a receipt
//     and a durable steer, both before the native start can return
//     (not_ready), and in half the starts a permission decision for the
//     request the native side asked before its start returned
//     (not_ready);
//   - started: durable steers one after the other, each once the
//     previous one's first receipt arrived, up to 256 admitted, then one
//     more (input_limit); each one that reaches the daemon while the
//     native write of an earlier one is still out (its first receipt
//     accepted early, or outcome_unknown past the budget) is refused busy;
//     the Run is a long native turn (sim/harness long_turn.go), so steers
//     that meet no busy reach the limit while it is live; a Run that
//     ended short of the limit is followed by another on the same
//     Session, up to rogueCoreRounds times;
//   - its Run done: once the Harness still holds the Session's executor,
//     a prepare of the Session with the same configuration naming another
//     agent_session_id (native_session_conflict);
//   - on a second Session, a failed executor close, then prepares of
//     that Session (executor_cleanup_unconfirmed;
//     hostile_rogue_cleanup.go);
//   - throughout: a function result with an image for each function call
//     the daemon sends on the connection, when the kind declares
//     function_tools but not function_result_images (unsupported).
//
// The checkers (sim/check/hostile.go, hostile_answers.go) hold each
// answer to the seeds' code for the situation, judged from the wire and
// the Harness's ground truth; the honest checkers keep judging Core's own
// traffic.
var kRogueCore = kind{kind: "rogue_core", min: 5 * time.Second, max: 20 * time.Second}

// rogueCoreSteersMax is how many inputs a Run takes (wire reference §6.1).
const rogueCoreSteersMax = check.DocumentedSteerInputsPerRun

// Phases of a rogue Core's script.
const (
	rcPreparing = iota
	rcStarting
	rcSteering
	rcRunning
	rcOver
)

// rogueCore is one rogue_core fault.
type rogueCore struct {
	u     *universe
	r     *rand.Rand
	conn  sim.ConnID
	dev   sim.NodeID
	phase int
	sess  string
	req   string
	run   string
	exec  string // the executor its admission got
	// steering: the input whose first receipt is awaited, and how many
	// inputs the daemon admitted
	pending  string
	admitted int
	rounds   int             // Runs started again after one ended short of the limit
	answered map[string]bool // function calls already answered
	cleanup  *rogueCleanup   // its second Session (hostile_rogue_cleanup.go)
}

func (u *universe) startRogueCore(f sim.Fault) {
	c, dev, ok := u.coreConn(f)
	if !ok {
		u.noVictim(f, "no Core–daemon connection")
		return
	}
	h := &u.hostile
	rc := &rogueCore{u: u, r: hostileRand(f), conn: c.ID, dev: dev, sess: h.mint("s"), req: h.mint("p"),
		run: h.mint("r"), answered: map[string]bool{}}
	u.detail("rogue Core on " + connName(c.ID) + " to " + string(dev))
	h.cores = append(h.cores, rc)
	rc.undecodable()
	rc.startCleanup()
	rc.send(rc.req, wire.ExecutionPrepare{SessionID: rc.sess, Configuration: hostileConfig(rc.sess, "m1")}, nil)
}

// send forges a frame towards the daemon with an optional probe.
func (rc *rogueCore) send(id string, p wire.Payload, probe *check.HostileProbe) {
	rc.sendRaw(encodeFrame(id, p), probe)
}

func (rc *rogueCore) sendRaw(b []byte, probe *check.HostileProbe) {
	if probe != nil {
		probe.Target = string(rc.dev)
	}
	rc.u.forge(rc.conn, coreID, b, probe)
}

// undecodable: an execution_start and an execution_release whose payloads
// do not decode, each broken in one way drawn from the decoder's rules.
func (rc *rogueCore) undecodable() {
	h := &rc.u.hostile
	req := h.mint("p")
	head := `{"type":"execution_start","id":` + quote(req) + `,"payload":`
	in := `"input":[{"content":[{"type":"input_text","text":"undecodable"}]}]`
	start := []string{
		`{"executor_id":7,"handle":"x-h","run_id":"x-r",` + in + `}`,                     // a mistyped member
		`{"executor_id":"x-e","handle":"x-h","handle":"x-h2","run_id":"x-r",` + in + `}`, // a member repeated
		`{"executor_id":"x-e","handle":null,"run_id":"x-r",` + in + `}`,                  // null where not nullable
		`{"executor_id":"x-e","handle":"x-h","run_id":"x-r","input":"text"}`,             // input not a message list
		`["x-e"]`, // not an object
	}[rc.r.IntN(5)]
	rc.sendRaw([]byte(head+start+`}`), &check.HostileProbe{Action: check.HostileStartUndecodable, ReplyID: req})
	// one that decodes, with an input the message rules refuse (§5.2)
	req = h.mint("p")
	part := []wire.InputContent{wire.TextPart("")}
	if rc.r.IntN(2) == 0 {
		part = []wire.InputContent{{Type: wire.ContentInputImage}}
	}
	b := encodeFrame(req, wire.ExecutionStart{ExecutorID: h.mint("e"), Handle: h.mint("h"), RunID: h.mint("r"),
		Input: hostileInput("x")})
	bad, err := json.Marshal(wire.MessageInput{{Content: part}})
	if err != nil {
		panic("an invalid input does not marshal: " + err.Error())
	}
	good := []byte(`"input":[{"content":[{"type":"input_text","text":"x"}]}]`)
	if !bytes.Contains(b, good) {
		panic("the rogue's start does not encode its input as expected: " + string(b))
	}
	b = bytes.Replace(b, good, append([]byte(`"input":`), bad...), 1)
	rc.sendRaw(b, &check.HostileProbe{Action: check.HostileStartInvalidInput, ReplyID: req})
	req = h.mint("p")
	release := []string{`{"handle":["x-h"]}`, `{"handle":"x-h","handle":"x-h2"}`, `{"handle":null}`, `"x-h"`}[rc.r.IntN(4)]
	rc.sendRaw([]byte(`{"type":"execution_release","id":`+quote(req)+`,"payload":`+release+`}`),
		&check.HostileProbe{Action: check.HostileReleaseUndecodable, ReplyID: req})
}

// watchRogueCores reads one honest frame for the rogue Cores on its
// connection.
func (h *hostileState) watchRogueCores(conn sim.ConnID, from sim.NodeID, f wire.Frame) {
	for _, rc := range h.cores {
		if rc.conn != conn || from != rc.dev {
			continue
		}
		if rc.phase != rcOver {
			rc.observe(f)
		}
		rc.cleanup.observe(f)
	}
}

// observe advances the script on a frame the daemon sent; the answer
// leaves a moment later, as a peer's reaction does.
func (rc *rogueCore) observe(f wire.Frame) {
	later := func(fn func()) { rc.u.w.After(time.Millisecond, "", fn) }
	switch p := f.Payload.(type) {
	case wire.PreparationStatus:
		if f.ID != rc.req {
			return
		}
		switch {
		case p.State == wire.StateReady && rc.phase == rcPreparing:
			rc.phase = rcStarting
			later(func() { rc.start(p) })
		case p.State == wire.StateStarted && rc.phase == rcStarting:
			rc.phase = rcSteering
			later(rc.steer)
		case p.State == wire.StateRejected, p.State == wire.StateFailed, p.State == wire.StateExpired,
			p.State == wire.StateReleased:
			if rc.phase <= rcStarting {
				rc.phase = rcOver
			}
		}
	case wire.PromptSteerAck:
		if f.ID == rc.run && rc.phase == rcSteering && p.InputID == rc.pending && rc.pending != "" {
			rc.steerAnswered(p, later)
		}
	case wire.Done:
		if f.ID == rc.run {
			rc.phase = rcOver
			rc.u.w.After(time.Duration(50+rc.r.IntN(450))*time.Millisecond, "", rc.nativeConflict)
			if rc.admitted < rogueCoreSteersMax && rc.rounds < rogueCoreRounds && p.Metadata != nil {
				native := p.Metadata.AgentSessionID
				rc.u.w.After(time.Second, "", func() { rc.again(native) })
			}
		}
	case wire.FunctionCall:
		if !rc.answered[f.ID+"/"+p.CallID] {
			rc.answered[f.ID+"/"+p.CallID] = true
			later(func() { rc.imageResult(f.ID, p.CallID) })
		}
	}
}

// rogueCoreRounds bounds the Runs a rogue Core starts again on its
// Session when one ended before its steers reached the limit (only a long
// native Turn outlasts 256 writes one after the other).
const rogueCoreRounds = 3

// again runs the script once more on its Session: a prepare resuming the
// native session its last done reported (its idle executor's, or the one
// a new executor resumes), then the start and the steers.
func (rc *rogueCore) again(native string) {
	h := &rc.u.hostile
	rc.rounds++
	rc.req, rc.run, rc.admitted, rc.pending, rc.phase = h.mint("p"), h.mint("r"), 0, "", rcPreparing
	c := hostileConfig(rc.sess, "m1")
	c.AgentSessionID = native
	rc.send(rc.req, wire.ExecutionPrepare{SessionID: rc.sess, Configuration: c}, nil)
}

// start: a release under another request ID, the start, then a cancel
// and a steer that reach the daemon before the native start returns.
func (rc *rogueCore) start(st wire.PreparationStatus) {
	h := &rc.u.hostile
	rc.exec = st.ExecutorID
	other := h.mint("p")
	rc.send(other, wire.ExecutionRelease{Handle: st.Handle}, &check.HostileProbe{
		Action: check.HostileReleaseForeignRequest, ReplyID: other})
	rc.u.led.HostileOwnRun(rc.run)
	rc.armLongTurn()
	rc.armAskBeforeStart()
	rc.send(rc.req, wire.ExecutionStart{ExecutorID: st.ExecutorID, Handle: st.Handle, RunID: rc.run,
		Input: hostileInput("rogue run")}, nil)
	rc.send(rc.run, wire.PromptCancel{DeliveryID: h.mint("d")}, &check.HostileProbe{
		Action: check.HostileCancelStarting, ReplyID: rc.run})
	if caps, ok := rc.kindCaps(); ok && caps.DurableInputReceipts.IsSupported() {
		in := h.mint("i")
		rc.send(rc.run, wire.PromptSteer{InputID: in, Input: hostileInput("too early"), DurableReceipt: true},
			&check.HostileProbe{Action: check.HostileSteerStarting, ReplyID: rc.run})
	}
}

// armLongTurn: on a kind that takes durable inputs, the native turn of
// the rogue's Run is a long one (sim/harness long_turn.go), so its steers
// one after the other meet the per-Run input limit while the Run is
// live (input_limit) rather than the Run's end.
func (rc *rogueCore) armLongTurn() {
	d := rc.u.deviceByID(rc.dev)
	if caps, ok := rc.kindCaps(); !ok || d == nil || !caps.DurableInputReceipts.IsSupported() {
		return
	}
	d.ArmLongTurn(rc.run)
}

// armAskBeforeStart: in half the starts, on a kind that declares
// permissions, the native side asks a permission before the start returns
// (sim/harness ask_before_start.go), and the rogue answers it while the
// start is unresolved: not_ready, the daemon holding the request.
func (rc *rogueCore) armAskBeforeStart() {
	d := rc.u.deviceByID(rc.dev)
	if caps, ok := rc.kindCaps(); !ok || d == nil || !caps.Permissions.IsSupported() || rc.r.IntN(2) != 0 {
		return
	}
	d.ArmAskBeforeStart()
	run := rc.run
	var poll func(left int)
	poll = func(left int) {
		asked := d.AskedBeforeStart(run)
		if len(asked) == 0 {
			if left > 0 {
				rc.u.w.After(100*time.Millisecond, "", func() { poll(left - 1) })
			}
			return
		}
		id := asked[0]
		rc.send(id, wire.PermissionDecision{DeliveryID: rc.u.hostile.mint("d"), Approved: true}, &check.HostileProbe{
			Action: check.HostileDecisionStarting, ReplyID: id, Run: run})
	}
	rc.u.w.After(100*time.Millisecond, "", func() { poll(5) })
}

// steer sends the next durable input; the one past the limit carries
// the probe.
func (rc *rogueCore) steer() {
	if caps, ok := rc.kindCaps(); !ok || !caps.DurableInputReceipts.IsSupported() {
		rc.phase = rcRunning
		return
	}
	rc.pending = rc.u.hostile.mint("i")
	if rc.admitted == 0 && rc.rounds == 0 && rc.r.IntN(2) == 0 {
		// in half the faults, one native write of the device outlives
		// the daemon's budget: perhaps one of these inputs'
		if d := rc.u.deviceByID(rc.dev); d != nil {
			d.Arm(harness.WriteOverBudget)
		}
	}
	// behind an earlier input whose native write is still out, busy
	probe := &check.HostileProbe{Action: check.HostileSteerWriteOutstanding, ReplyID: rc.run, Input: rc.pending}
	if rc.admitted == rogueCoreSteersMax {
		probe = &check.HostileProbe{Action: check.HostileSteerPastLimit, ReplyID: rc.run, Input: rc.pending}
		rc.phase = rcRunning
	}
	rc.send(rc.run, wire.PromptSteer{InputID: rc.pending, Input: hostileInput("steer"), DurableReceipt: true}, probe)
}

// steerAnswered: the first receipt of the pending input. Written,
// accepted, outcome_unknown or rejected (its native write failed), it
// counts as admitted (the Run holds it, wire reference §3.7) and the next
// one follows; any refusal ends the steering (the Run ended, its native side
// refused, or its one native write is taken).
func (rc *rogueCore) steerAnswered(p wire.PromptSteerAck, later func(func())) {
	rc.pending = ""
	if p.ErrorCode == wire.SteerOutcomeUnknown || p.ErrorCode == wire.SteerRejected {
		// admitted, its native write past the daemon's budget and perhaps
		// still out (the next input may meet it: busy), or failed: either
		// way the Run holds the input and it counts towards the limit
		rc.admitted++
		later(rc.steer)
		return
	}
	if p.ErrorCode != "" || !p.Written && !p.Accepted {
		rc.phase = rcRunning
		return
	}
	rc.admitted++
	later(rc.steer)
}

// nativeConflict: its Run done, a prepare of its Session naming another
// native session, while the Harness still holds the Session's executor
// (once its close is confirmed the daemon may prepare a new one, which the
// native engine refuses: the oracle then judges nothing).
func (rc *rogueCore) nativeConflict() {
	if !rc.ownerAlive() {
		return
	}
	h := &rc.u.hostile
	c := hostileConfig(rc.sess, "m1")
	c.AgentSessionID = h.mint("native")
	req := h.mint("p")
	rc.send(req, wire.ExecutionPrepare{SessionID: rc.sess, Configuration: c},
		&check.HostileProbe{Action: check.HostilePrepareNativeConflict, ReplyID: req, Executor: rc.exec})
}

// ownerAlive reports whether the Harness of the rogue's device holds a
// live, reusable executor for its Session.
func (rc *rogueCore) ownerAlive() bool {
	d := rc.u.deviceByID(rc.dev)
	if d == nil || d.Node() == nil {
		return false
	}
	t := d.Node().Harness().Truth()
	for _, id := range t.OpenExecutors() {
		if e := t.Executor(id); e != nil && e.Session == rc.sess && !e.Retired {
			return true
		}
	}
	return false
}

// imageResult: a function result with an image for a call the daemon
// just sent, where the kind declares function tools but not images in
// their results: unsupported (not_pending or decision_conflict if the
// call was answered or withdrawn before it arrived).
func (rc *rogueCore) imageResult(run, call string) {
	caps, ok := rc.kindCaps()
	if !ok || caps.FunctionResultImages.IsSupported() || !caps.FunctionTools.IsSupported() ||
		strings.HasPrefix(run, check.HostileIDPrefix) && run != rc.run {
		return
	}
	delivery := rc.u.hostile.mint("d")
	rc.send(run, wire.FunctionResult{DeliveryID: delivery, CallID: call, Success: true,
		Content: []wire.InputContent{wire.TextPart("chart"), wire.ImagePart("https://example.com/chart.png")}},
		&check.HostileProbe{Action: check.HostileResultImagesPending, ReplyID: run, Delivery: delivery})
}

func (rc *rogueCore) kindCaps() (wire.AgentKindCapabilities, bool) {
	d := rc.u.deviceByID(rc.dev)
	if d == nil || len(d.Daemon.Kinds) == 0 {
		return wire.AgentKindCapabilities{}, false
	}
	return d.Daemon.Kinds[0].Capabilities, true
}

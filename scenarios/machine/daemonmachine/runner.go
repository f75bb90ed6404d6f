// Package daemonmachine is the Driver of daemon.Machine: the scripted
// Core's frames are its events, a controlled Harness answers its native
// calls. It never imports Core.
package daemonmachine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/controlled"
	"github.com/turnstile-sim/turnstile/wire"
)

// Runner drives one daemon.Machine for the scenario player.
type Runner struct {
	scenarios.Log
	m          *daemon.Machine
	h          *harness
	now        time.Time
	gen        daemon.ConnID
	timers     map[daemon.TimerID]time.Time
	pending    []daemon.Send // non-heartbeat frames not yet asserted
	beats      []daemon.Send // heartbeats not yet asserted
	queue      []daemon.Event
	beatsFired int // heartbeat timer fires during an advance
}

// New returns a player of sc and the driver of a machine declaring what
// sc declares, with limits (zero: defaults), its workspaces under dir.
func New(sc *scenarios.Scenario, limits daemon.Limits, dir string) (*scenarios.Player, *Runner, error) {
	hb, _, err := sc.Declaration() // none: a Runtime that serves no kind
	if err != nil {
		return nil, nil, err
	}
	cfg := controlled.Config(cmp.Or(hb.DaemonVersion, "scenario"), hb.SupportedAgentKinds)
	cfg.Limits = limits
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	r := &Runner{
		Log:    scenarios.Log{Name: "runtime"},
		m:      daemon.New(cfg),
		h:      newHarness(dir),
		now:    scenarios.Epoch,
		timers: map[daemon.TimerID]time.Time{},
	}
	return scenarios.NewPlayer(sc, r), r, nil
}

func (r *Runner) VersionRefused(map[string]string) {
	r.Note("skipped: the protocol version is refused by Core's gateway at the WebSocket upgrade (HTTP 426); the daemon's transport, not daemon.Machine, stops reconnecting")
}

func (r *Runner) Connect() {
	r.beats = nil // heartbeats of an earlier connection are never compared
	r.gen++
	r.run(daemon.ConnOpened{Conn: r.gen})
}

// run steps evs and every event the Harness answers with, in order.
func (r *Runner) run(evs ...daemon.Event) {
	r.queue = append(r.queue, evs...)
	for len(r.queue) > 0 {
		e := r.queue[0]
		r.queue = r.queue[1:]
		quiet := isHeartbeatTimer(e)
		if quiet {
			r.beatsFired++
		} else {
			r.Note("> " + e.Describe())
		}
		for _, eff := range r.m.Step(r.now, e) {
			r.apply(eff, quiet)
		}
	}
}

// isHeartbeatTimer: periodic heartbeats are counted, not printed.
func isHeartbeatTimer(e daemon.Event) bool {
	t, ok := e.(daemon.TimerFired)
	return ok && strings.HasPrefix(string(t.Timer), "heartbeat/")
}

func envelopeID(raw []byte) string {
	var env struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.ID
}

func (r *Runner) apply(e daemon.Effect, quiet bool) {
	if !quiet {
		r.Note("  " + e.Describe())
	}
	switch v := e.(type) {
	case daemon.Send:
		if v.Frame.Payload != nil && v.Frame.Payload.MessageType() == wire.TypeHeartbeat {
			r.beats = append(r.beats, v)
		} else {
			r.pending = append(r.pending, v)
		}
	case daemon.SetTimer:
		r.timers[v.Timer] = v.At
	case daemon.CancelTimer:
		delete(r.timers, v.Timer)
	case daemon.NativeCall:
		r.queue = append(r.queue, r.h.call(v)...)
	}
}

func (r *Runner) Unlisted() []string {
	var out []string
	for _, s := range r.pending {
		out = append(out, daemon.DescribeFrame(s.Frame))
	}
	r.pending = nil
	return out
}

func (r *Runner) Sent(f *scenarios.Frame) ([]byte, error) {
	var s daemon.Send
	if f.Type == wire.TypeHeartbeat {
		if len(r.beats) == 0 {
			return nil, fmt.Errorf("the Runtime sent no heartbeat")
		}
		s = r.beats[0]
		r.beats = nil // periodic heartbeats after the listed one are not compared
	} else {
		if len(r.pending) == 0 {
			return nil, nil
		}
		s, r.pending = r.pending[0], r.pending[1:]
	}
	if s.Conn != r.gen {
		return nil, fmt.Errorf("sent on connection %d, want the current one %d", s.Conn, r.gen)
	}
	b, err := wire.Encode(s.Frame)
	if err != nil {
		return nil, fmt.Errorf("the Runtime's frame does not encode: %v", err)
	}
	return b, nil
}

func (r *Runner) Deliver(f *scenarios.Frame, raw []byte) {
	frame, rejected, ok := r.Decode(f, raw)
	switch {
	case rejected != nil:
		r.run(daemon.FrameRejected{Conn: r.gen, Type: f.Type, ID: envelopeID(raw), Err: rejected})
	case ok:
		r.run(daemon.FrameReceived{Conn: r.gen, Frame: frame})
	}
}

func (r *Runner) Disconnect(bool) {
	r.run(daemon.ConnClosed{Conn: r.gen})
}

// Advance moves time by d, firing the timers in order.
func (r *Runner) Advance(d time.Duration) {
	target := r.now.Add(d)
	r.beatsFired = 0
	defer func() {
		if r.beatsFired > 0 {
			r.Note(fmt.Sprintf("(%d periodic heartbeats)", r.beatsFired))
		}
	}()
	for {
		id, at, ok := scenarios.Earliest(r.timers)
		if !ok || at.After(target) {
			break
		}
		r.now = at
		delete(r.timers, id)
		r.run(daemon.TimerFired{Timer: id})
	}
	r.now = target
}

// harness is the controlled Harness of README.md, "Harness actions".
type harness struct {
	armed   map[string]int
	turns   []daemon.TurnID // native Turns in start order
	settled map[daemon.TurnID]*daemon.SettleResult
	waits   map[daemon.TurnID]daemon.CallID // held settlement waits
	held    []daemon.NativeCall             // calls that hang
	apply   []daemon.NativeInputApplied     // written inputs held before consumption
	late    map[daemon.TurnID]bool          // a native event follows settlement
	// files lays file steps into the workspaces; native answers the
	// workspace and transfer calls from them as the daemon does.
	files  *controlled.Controlled
	native *runner.Native
	out    []daemon.Event // what native answered
}

// newHarness keeps the workspaces and the transfers under dir.
func newHarness(dir string) *harness {
	h := &harness{
		armed: map[string]int{}, settled: map[daemon.TurnID]*daemon.SettleResult{},
		waits: map[daemon.TurnID]daemon.CallID{}, late: map[daemon.TurnID]bool{}, files: controlled.New(),
	}
	h.files.SetWorkspaces(filepath.Join(dir, "workspaces"))
	h.native = runner.NewNative(context.Background(), h.files, slog.New(slog.DiscardHandler), func(e daemon.Event) { h.out = append(h.out, e) })
	h.native.SetWorkspaces(localworkspace.Binding{Base: filepath.Join(dir, "workspaces")})
	h.native.Installer = &runner.Installer{Workspace: filepath.Join(dir, "prepared"), State: filepath.Join(dir, "state")}
	return h
}

// take consumes one arming of action.
func (h *harness) take(action string) bool {
	if h.armed[action] == 0 {
		return false
	}
	h.armed[action]--
	return true
}

func result(c daemon.CallID, res daemon.Result) daemon.Event {
	return daemon.NativeResult{Call: c, Result: res}
}

// hangs names the action that makes a kind of native call hang.
func hangs(op daemon.Op) string {
	switch op.(type) {
	case daemon.Prepare:
		return "hang-setup"
	case daemon.Cancel:
		return "hang-cancel"
	case daemon.AwaitSettlement:
		return "hang-settle"
	case daemon.DurableWrite:
		return "hang-write"
	}
	return ""
}

// call answers a native call, or holds it when a hang is armed for it;
// the events are stepped after the current ones.
func (h *harness) call(c daemon.NativeCall) []daemon.Event {
	if hang := hangs(c.Op); hang != "" && h.take(hang) {
		h.held = append(h.held, c)
		return nil
	}
	return h.answer(c)
}

// answer answers a native call as the armed faults say.
func (h *harness) answer(c daemon.NativeCall) []daemon.Event {
	answer := func(res daemon.Result) []daemon.Event { return []daemon.Event{result(c.Call, res)} }
	switch op := c.Op.(type) {
	case daemon.Prepare:
		if h.take("fail-setup") {
			return answer(daemon.PrepareResult{Err: "native setup failed"})
		}
		return answer(daemon.PrepareResult{})
	case daemon.StartTurn:
		if h.take("fail-start") {
			return answer(daemon.StartResult{Err: "native start failed"})
		}
		h.turns = append(h.turns, op.Turn)
		return answer(daemon.StartResult{Turn: true})
	case daemon.DurableWrite:
		if h.take("uncertain-write") {
			return answer(daemon.WriteResult{Outcome: daemon.WriteUnknown, Err: "native write outcome unknown"})
		}
		applied := daemon.NativeInputApplied{Turn: op.Turn, InputID: op.InputID}
		if h.take("hold-apply") {
			h.apply = append(h.apply, applied)
			return answer(daemon.WriteResult{Outcome: daemon.WriteWritten})
		}
		return append(answer(daemon.WriteResult{Outcome: daemon.WriteWritten}), applied)
	case daemon.Cancel:
		return answer(daemon.CancelResult{})
	case daemon.AwaitSettlement:
		if s := h.settled[op.Turn]; s != nil {
			return h.settledEvents(op.Turn, c.Call, *s)
		}
		h.waits[op.Turn] = c.Call
		return nil
	case daemon.CloseExecutor:
		if h.take("close-failure") {
			return answer(daemon.CloseResult{Err: "native close failed"})
		}
		return answer(daemon.CloseResult{})
	case daemon.RespondPermission, daemon.RespondUserChoice, daemon.SubmitFunctionResult:
		return answer(daemon.DecisionResult{Outcome: daemon.DecisionApplied})
	case daemon.OpenWorkspace, daemon.CloseWorkspace, daemon.ReadWorkspace, daemon.ExportWorkspace, daemon.WriteWorkspace,
		daemon.StageChunk, daemon.InstallTransfer, daemon.DiscardTransfer:
		h.native.Run(c)
		h.native.Wait()
		out := h.out
		h.out = nil
		return out
	}
	panic(fmt.Sprintf("controlled harness: unknown op %T", c.Op))
}

func (h *harness) settledEvents(t daemon.TurnID, c daemon.CallID, s daemon.SettleResult) []daemon.Event {
	evs := []daemon.Event{result(c, s)}
	if h.late[t] {
		delete(h.late, t)
		evs = append(evs, daemon.NativeTurnEvent{Turn: t, Event: wire.Delta{Delta: "late", Sequence: 999}})
	}
	return evs
}

// live returns the oldest native Turn not yet settled.
func (h *harness) live() (daemon.TurnID, bool) {
	for _, t := range h.turns {
		if h.settled[t] == nil {
			return t, true
		}
	}
	return "", false
}

func (r *Runner) Harness(st scenarios.Step) {
	switch st.Action {
	case "emit":
		t, ok := r.h.live()
		if !ok {
			r.Failf("harness emit: no live native Turn")
			return
		}
		raw := `{"type":` + strconv.Quote(st.Args["type"]) + `,"id":"native","payload":` + st.Input + `}`
		f, err := wire.Decode([]byte(raw))
		if err != nil {
			r.Failf("harness emit %s: %v", st.Args["type"], err)
			return
		}
		r.run(daemon.NativeTurnEvent{Turn: t, Event: f.Payload})
	case "apply":
		if len(r.h.apply) == 0 {
			r.Failf("harness apply: no written input is held")
			return
		}
		a := r.h.apply[0]
		r.h.apply = r.h.apply[1:]
		r.run(a)
	case "release":
		if len(r.h.held) == 0 {
			r.Failf("harness release: no native call is hanging")
			return
		}
		held := r.h.held
		r.h.held = nil
		var evs []daemon.Event
		for _, c := range held {
			evs = append(evs, r.h.answer(c)...)
		}
		r.run(evs...)
	case "file":
		if err := r.h.files.Do(scenarios.HarnessCommand(st)); err != nil {
			r.Failf("%v", err)
			return
		}
		r.Note("file " + st.Args["environment"] + ":" + st.Args["path"])
	case "late-event":
		t, ok := r.h.live()
		if !ok {
			r.Failf("harness late-event: no live native Turn")
			return
		}
		r.h.late[t] = true
		r.Note("armed late-event on " + string(t))
	default:
		r.h.armed[st.Action]++
		r.Note("armed " + st.Action)
	}
}

// Settle settles the oldest live native Turn and answers its wait.
func (r *Runner) Settle(args map[string]string) {
	t, ok := r.h.live()
	if !ok {
		r.Failf("settle: no live native Turn")
		return
	}
	s := daemon.SettleResult{Settled: true, Reusable: args["reusable"] != "false", Reason: args["reason"],
		Outcome: wire.Done{Content: args["content"]}}
	if sess := args["session"]; sess != "" {
		s.Outcome.Metadata = &wire.DoneMetadata{AgentSessionID: sess}
	}
	r.h.settled[t] = &s
	r.Note(fmt.Sprintf("native Turn %s settled", t))
	if c, ok := r.h.waits[t]; ok {
		delete(r.h.waits, t)
		r.run(r.h.settledEvents(t, c, s)...)
	}
}

func (r *Runner) RuntimeOwned(args map[string]string) {
	snap := r.m.Snapshot()
	have := controlled.OwnedCounts(snap.Owned)
	have["idle"], have["closing"], have["records"] = snap.Capacity.Idle, snap.Capacity.Closing, snap.Capacity.Records
	line := "runtime-owned"
	for _, k := range scenarios.KindRuntimeOwned.Members() {
		want, listed := args[k]
		if !listed {
			continue
		}
		line += fmt.Sprintf(" %s=%d", k, have[k])
		if strconv.Itoa(have[k]) != want {
			r.Failf("%s=%d, want %s (owned %v)", k, have[k], want, snap.Owned)
		}
	}
	r.Note(line)
}

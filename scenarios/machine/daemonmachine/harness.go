package daemonmachine

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"

	"github.com/turnstile-sim/turnstile/adapters/localworkspace"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/daemon/runner"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/controlled"
	"github.com/turnstile-sim/turnstile/wire"
)

// harness is the controlled Harness: every native call succeeds at once
// unless a harness step armed a fault for it; Turns run until a settle
// step settles them.
type harness struct {
	armed   map[string]int
	turns   []daemon.TurnID // native Turns in start order
	settled map[daemon.TurnID]*daemon.SettleResult
	waits   map[daemon.TurnID]daemon.CallID // held settlement waits
	held    []daemon.NativeCall             // calls that hang
	apply   []daemon.NativeInputApplied     // written inputs held before consumption
	late    map[daemon.TurnID]bool          // a native event follows settlement
	// files lays harness file steps into the workspaces; native answers
	// the workspace and transfer calls from them as the daemon does.
	files  *controlled.Controlled
	native *runner.Native
	out    []daemon.Event // what native answered
}

// newHarness keeps the Environments' workspaces and the transfers'
// installation under dir.
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

// call answers a native call; the events are stepped after the current
// ones.
func (h *harness) call(c daemon.NativeCall) []daemon.Event {
	switch op := c.Op.(type) {
	case daemon.Prepare:
		if h.take("hang-setup") {
			h.held = append(h.held, c)
			return nil
		}
		if h.take("fail-setup") {
			return []daemon.Event{result(c.Call, daemon.PrepareResult{Err: "native setup failed"})}
		}
		return []daemon.Event{result(c.Call, daemon.PrepareResult{})}
	case daemon.StartTurn:
		if h.take("fail-start") {
			return []daemon.Event{result(c.Call, daemon.StartResult{Err: "native start failed"})}
		}
		h.turns = append(h.turns, op.Turn)
		return []daemon.Event{result(c.Call, daemon.StartResult{Turn: true})}
	case daemon.DurableWrite:
		return h.write(c, op)
	case daemon.Cancel:
		if h.take("hang-cancel") {
			h.held = append(h.held, c)
			return nil
		}
		return []daemon.Event{result(c.Call, daemon.CancelResult{})}
	case daemon.AwaitSettlement:
		if h.take("hang-settle") {
			h.held = append(h.held, c)
			return nil
		}
		if s := h.settled[op.Turn]; s != nil {
			return h.settledEvents(op.Turn, c.Call, *s)
		}
		h.waits[op.Turn] = c.Call
		return nil
	case daemon.CloseExecutor:
		if h.take("close-failure") {
			return []daemon.Event{result(c.Call, daemon.CloseResult{Err: "native close failed"})}
		}
		return []daemon.Event{result(c.Call, daemon.CloseResult{})}
	case daemon.RespondPermission, daemon.RespondUserChoice, daemon.SubmitFunctionResult:
		return []daemon.Event{result(c.Call, daemon.DecisionResult{Outcome: daemon.DecisionApplied})}
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

// release answers a hanging call as if it had succeeded.
func (h *harness) release(c daemon.NativeCall) []daemon.Event {
	switch op := c.Op.(type) {
	case daemon.Prepare:
		return []daemon.Event{result(c.Call, daemon.PrepareResult{})}
	case daemon.Cancel:
		return []daemon.Event{result(c.Call, daemon.CancelResult{})}
	case daemon.DurableWrite:
		return []daemon.Event{result(c.Call, daemon.WriteResult{Outcome: daemon.WriteWritten}),
			daemon.NativeInputApplied{Turn: op.Turn, InputID: op.InputID}}
	case daemon.AwaitSettlement:
		h.waits[op.Turn] = c.Call
		return nil
	}
	panic(fmt.Sprintf("controlled harness: cannot release %T", c.Op))
}

func (h *harness) write(c daemon.NativeCall, op daemon.DurableWrite) []daemon.Event {
	switch {
	case h.take("hang-write"):
		h.held = append(h.held, c)
		return nil
	case h.take("uncertain-write"):
		return []daemon.Event{result(c.Call, daemon.WriteResult{Outcome: daemon.WriteUnknown, Err: "native write outcome unknown"})}
	}
	evs := []daemon.Event{result(c.Call, daemon.WriteResult{Outcome: daemon.WriteWritten})}
	applied := daemon.NativeInputApplied{Turn: op.Turn, InputID: op.InputID}
	if h.take("hold-apply") {
		h.apply = append(h.apply, applied)
		return evs
	}
	return append(evs, applied)
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
			evs = append(evs, r.h.release(c)...)
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

// Settle settles the oldest live native Turn with the step's outcome and
// answers its settlement wait, if one is outstanding.
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
	count := map[string]int{}
	for _, res := range snap.Owned {
		count[res.Kind]++
	}
	have := map[string]int{
		"executors": count["executor"], "turns": count["turn"], "calls": count["call"],
		"idle": snap.Capacity.Idle, "closing": snap.Capacity.Closing, "records": snap.Capacity.Records,
	}
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

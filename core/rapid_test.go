package core_test

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/stretchr/testify/require"
	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

// rapidConfig keeps connections from idling out: the scripted Runtime
// sends no periodic heartbeat.
var rapidConfig = core.Config{ConnIdleTimeout: 1000 * time.Hour, Policy: enginetest.OpenPolicy(kind)}

// rapidWorld drives one Core machine with one device and one Session
// against a model of Turn state and input cursors.
type rapidWorld struct {
	m       *core.Machine
	st      *store.Memory
	now     time.Time
	conn    core.ConnID
	session string
	timers  map[core.TimerID]time.Time

	// what the machine sent
	prep       string            // open preparation request ID
	prepRev    uint64            // last revision the scripted Runtime sent on it
	run        string            // current Run ID (started or starting)
	runTurn    string            // its Turn
	started    map[string]bool   // Run IDs that got execution_start
	steer      map[string]string // run → input ID of the last prompt_steer
	sends      map[string]int    // "run/input" → prompt_steer count
	resend     map[string]int    // resends allowed (not_ready/busy answers)
	lastCancel map[string]string // run → delivery ID of the last prompt_cancel
	cancels    map[string]bool   // every cancel delivery ID sent

	// the model
	turns    []string
	terminal map[string]core.TurnState
	cursor   map[string]int
}

func newRapidWorld() *rapidWorld {
	st := store.NewMemory()
	w := &rapidWorld{
		m: core.New(rapidConfig, st), st: st, now: t0, timers: map[core.TimerID]time.Time{},
		started: map[string]bool{}, steer: map[string]string{}, sends: map[string]int{},
		resend: map[string]int{}, lastCancel: map[string]string{}, cancels: map[string]bool{}, terminal: map[string]core.TurnState{}, cursor: map[string]int{},
	}
	w.reconnect(nil)
	r := w.step(nil, core.CreateSession{Call: "s", Agent: defaultAgent()})
	w.session = r[0].(core.APIResult).Value.(core.SessionCreated).Session
	return w
}

func (w *rapidWorld) reconnect(t *rapid.T) {
	w.conn++
	w.step(t, core.ConnOpened{Device: "d1", Conn: w.conn})
	w.step(t, core.FrameReceived{Conn: w.conn, Frame: wire.Frame{Payload: heartbeat(fullCaps())}})
}

// step applies an event and records what the machine sent, checking that
// no Run is started twice and no input is delivered twice.
func (w *rapidWorld) step(t *rapid.T, ev core.Event) []core.Effect {
	effs := w.m.Step(w.now, ev)
	for _, e := range effs {
		switch x := e.(type) {
		case core.SetTimer:
			w.timers[x.Timer] = x.At
		case core.CancelTimer:
			delete(w.timers, x.Timer)
		case core.Send:
			w.sent(t, x)
		}
	}
	return effs
}

func (w *rapidWorld) sent(t *rapid.T, s core.Send) {
	switch p := s.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		w.prep, w.prepRev = s.Frame.ID, 0
	case wire.ExecutionStart:
		require.Falsef(t, w.started[p.RunID], "Run %s started twice", p.RunID)
		w.started[p.RunID] = true
		w.run, w.runTurn = p.RunID, strings.SplitN(p.RunID, ".", 2)[0]
	case wire.PromptSteer:
		key := s.Frame.ID + "/" + p.InputID
		w.sends[key]++
		require.Truef(t, w.sends[key] <= 1+w.resend[key], "input %s delivered again without a not_ready/busy refusal", key)
		w.steer[s.Frame.ID] = p.InputID
	case wire.PromptCancel:
		// Every cancel attempt carries a fresh delivery ID.
		require.Falsef(t, w.cancels[p.DeliveryID], "cancel delivery ID %s sent twice", p.DeliveryID)
		w.cancels[p.DeliveryID] = true
		w.lastCancel[s.Frame.ID] = p.DeliveryID
	}
}

func (w *rapidWorld) status(t *rapid.T, state string) {
	w.prepRev++
	w.step(t, core.FrameReceived{Conn: w.conn, Frame: wire.Frame{ID: w.prep, Payload: wire.PreparationStatus{
		ExecutorID: "e", Handle: "h-" + w.prep, Revision: w.prepRev, State: state, RunID: w.run}}})
}

func (w *rapidWorld) runFrame(t *rapid.T, p wire.Payload) {
	w.step(t, core.FrameReceived{Conn: w.conn, Frame: wire.Frame{ID: w.run, Payload: p}})
}

func (w *rapidWorld) view(id string) core.TurnView {
	v, _ := w.m.Turn(id)
	return v
}

// pending is the input awaiting a receipt on the current Run, if any.
func (w *rapidWorld) pending() (string, core.InputState) {
	v := w.view(w.runTurn)
	if w.run == "" || v.State.Terminal() || v.InputCursor >= len(v.Inputs) {
		return "", ""
	}
	in := v.Inputs[v.InputCursor]
	return in.ID, in.State
}

func (w *rapidWorld) actions() map[string]func(*rapid.T) {
	return w.moreActions(map[string]func(*rapid.T){
		"submit": func(t *rapid.T) {
			if len(w.turns) >= 6 {
				t.Skip("enough turns")
			}
			r := w.step(t, core.SubmitTurn{Call: "c", Session: w.session, Input: wire.TextInput("x")})
			id := r[0].(core.APIResult).Value.(core.TurnSubmitted).Turn
			w.turns = append(w.turns, id)
		},
		"ready": func(t *rapid.T) {
			if w.prep == "" {
				t.Skip("no preparation")
			}
			w.status(t, wire.StateReady)
		},
		"started": func(t *rapid.T) { w.needRun(t); w.status(t, wire.StateStarted) },
		"refuse_start": func(t *rapid.T) {
			if !w.rarely(t) {
				return
			}
			w.needRun(t)
			w.step(t, core.FrameReceived{Conn: w.conn, Frame: wire.Frame{ID: w.prep, Payload: wire.PreparationStatus{
				State: wire.StateRejected, ErrorCode: "executor_unavailable", Operation: wire.TypeExecutionStart}}})
		},
		"capacity": func(t *rapid.T) {
			if !w.rarely(t) {
				return
			}
			if w.prep == "" {
				t.Skip("no preparation")
			}
			w.step(t, core.FrameReceived{Conn: w.conn, Frame: wire.Frame{ID: w.prep, Payload: wire.PreparationStatus{
				State: wire.StateRejected, ErrorCode: "preparation_capacity"}}})
		},
	})
}

// moreActions are the steering, output, cancel and fault actions.
func (w *rapidWorld) moreActions(acts map[string]func(*rapid.T)) map[string]func(*rapid.T) {
	for k, f := range map[string]func(*rapid.T){
		"steer": func(t *rapid.T) {
			if len(w.turns) == 0 {
				t.Skip("no turn")
			}
			id := rapid.SampledFrom(w.turns).Draw(t, "turn")
			if w.runTurn != "" && rapid.Bool().Draw(t, "current") {
				id = w.runTurn
			}
			w.step(t, core.SteerInput{Call: "c", Turn: id, Input: wire.TextInput("s")})
		},
		"ack":   func(t *rapid.T) { w.ack(t) },
		"ack2":  func(t *rapid.T) { w.ack(t) },
		"ack3":  func(t *rapid.T) { w.ack(t) },
		"delta": func(t *rapid.T) { w.needRun(t); w.runFrame(t, wire.Delta{Delta: "d"}) },
		"error": func(t *rapid.T) {
			if !w.rarely(t) {
				return
			}
			w.needRun(t)
			w.runFrame(t, wire.RunError{Error: "e", Code: "server_error"})
		},
		"done": func(t *rapid.T) {
			if !w.rarely(t) {
				return
			}
			w.needRun(t)
			w.runFrame(t, wire.Done{Metadata: &wire.DoneMetadata{AgentSessionID: "n"}})
		},
		"cancel":  func(t *rapid.T) { w.cancel(t) },
		"receipt": func(t *rapid.T) { w.receipt(t) },
		"advance": func(t *rapid.T) { w.advance(t) },
		"drop": func(t *rapid.T) {
			if !w.rarely(t) {
				return
			}
			w.step(t, core.ConnClosed{Conn: w.conn})
			w.prep, w.run = "", ""
			w.reconnect(t)
		},
		"restart": func(t *rapid.T) {
			if !w.rarely(t) {
				return
			}
			w.m = core.Restart(rapidConfig, w.st)
			w.timers = map[core.TimerID]time.Time{}
			w.prep, w.run = "", ""
			w.reconnect(t)
		},
		"": func(t *rapid.T) { w.check(t) },
	} {
		acts[k] = f
	}
	return acts
}

// rarely skips disruptive actions most of the time so that long runs
// reach deep states.
func (w *rapidWorld) rarely(t *rapid.T) bool {
	return rapid.IntRange(0, 5).Draw(t, "rarely") == 0
}

func (w *rapidWorld) needRun(t *rapid.T) {
	if w.run == "" || w.prep == "" && w.view(w.runTurn).State.Terminal() {
		t.Skip("no run")
	}
}

// ack answers the pending input with a drawn receipt; the model cursor
// moves only on accepted.
func (w *rapidWorld) ack(t *rapid.T) {
	id, state := w.pending()
	if id == "" || w.steer[w.run] != id {
		t.Skip("no delivered input")
	}
	kind := rapid.SampledFrom([]string{"written", "accepted", "not_ready", "busy", "in_flight", "rejected"}).Draw(t, "receipt")
	ack := wire.PromptSteerAck{InputID: id}
	switch kind {
	case "written":
		ack.Written = true
	case "accepted":
		ack.Accepted = true
		if state == core.InputDelivering || state == core.InputWritten {
			w.cursor[w.runTurn]++
		}
	default:
		ack.ErrorCode = kind
		if (kind == "not_ready" || kind == "busy") && state == core.InputDelivering {
			w.resend[w.run+"/"+id]++
		}
	}
	w.runFrame(t, ack)
}

func (w *rapidWorld) cancel(t *rapid.T) {
	if !w.rarely(t) {
		return
	}
	if len(w.turns) == 0 {
		t.Skip("no turn")
	}
	id := rapid.SampledFrom(w.turns).Draw(t, "turn")
	w.step(t, core.CancelTurn{Call: "c", Turn: id})
}

// receipt answers the Run's latest cancel attempt. not_ready keeps the
// Turn waiting for the retry's receipt (nothing is decided); the others
// decide as usual.
func (w *rapidWorld) receipt(t *rapid.T) {
	w.needRun(t)
	id := w.lastCancel[w.run]
	if id == "" {
		t.Skip("no cancel sent")
	}
	code := rapid.SampledFrom([]string{"", wire.CancelRunInactive, wire.CancelNotReady, wire.CancelFailed}).Draw(t, "cancel receipt")
	before := w.view(w.runTurn)
	w.runFrame(t, wire.InteractionDecisionAck{DeliveryID: id, Applied: code == "", ErrorCode: code, Outcome: &wire.Done{}})
	after := w.view(w.runTurn)
	if code == wire.CancelNotReady && !before.State.Terminal() && before.Cancel == core.CancelRequested && before.CancelDeliveryID == id &&
		(after.State.Terminal() || after.Cancel != core.CancelRequested) {
		require.Fail(t, fmt.Sprintf("turn %s decided (%s, cancel %s) by a not_ready cancel receipt", w.runTurn, after.State, after.Cancel))
	}
}

// advance fires the earliest armed timer.
func (w *rapidWorld) advance(t *rapid.T) {
	if len(w.timers) == 0 {
		t.Skip("no timer")
	}
	ids := make([]core.TimerID, 0, len(w.timers))
	for id := range w.timers {
		if !strings.HasPrefix(string(id), "idle:") {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		t.Skip("only idle timers")
	}
	slices.SortFunc(ids, func(a, b core.TimerID) int { return w.timers[a].Compare(w.timers[b]) })
	id := ids[0]
	if at := w.timers[id]; at.After(w.now) {
		w.now = at
	}
	delete(w.timers, id)
	w.step(t, core.TimerFired{Timer: id})
}

// check: terminal states never change, cursors equal the model and only
// accepted inputs lie below them.
func (w *rapidWorld) check(t *rapid.T) {
	for _, id := range w.turns {
		v := w.view(id)
		prev, ok := w.terminal[id]
		require.Truef(t, !ok || v.State == prev, "turn %s regressed from %s to %s", id, prev, v.State)
		if v.State.Terminal() {
			w.terminal[id] = v.State
		}
		if v.InputCursor != w.cursor[id] {
			require.Fail(t, fmt.Sprintf("turn %s cursor %d, model %d", id, v.InputCursor, w.cursor[id]))
		}
		for i, in := range v.Inputs {
			require.Equalf(t, in.State == core.InputAccepted, i < v.InputCursor, "turn %s input %s is %s with cursor %d", id, in.ID, in.State, v.InputCursor)
		}
	}
}

func TestRapidTurnStateAndCursor(t *testing.T) {
	// Reaching an ack takes five effective actions; rapid's default of 30
	// steps (many skipped) rarely gets there. Deepen unless set explicitly.
	if f := flag.Lookup("rapid.steps"); f != nil && f.Value.String() == f.DefValue {
		_ = f.Value.Set("300")
		defer func() { _ = f.Value.Set(f.DefValue) }()
	}
	rapid.Check(t, func(t *rapid.T) {
		w := newRapidWorld()
		t.Repeat(w.actions())
		w.check(t)
	})
}

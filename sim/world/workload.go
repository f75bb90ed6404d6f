package world

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

const workloadID sim.NodeID = "workload"

// workload is the API client: it creates sessions, submits turns, steers
// inputs, cancels at random moments and reads turn state through Core's
// API (sim calls), recording reads and steers with their call and return
// instants for the linearizability check. It never crashes.
type workload struct {
	u *universe
	// pendBuf and pendLast hold the last text of pendingReason (workload_steer.go).
	pendBuf  []byte
	pendLast string
	r        *rand.Rand
	total    int
	seq      uint64
	actions  map[sim.TimerID]func(now time.Time)
	calls    map[sim.CallID]*wCall

	sessions []*wSession
	turns    []*wTurn
	steers   []*wSteer
	// inputByID is resolve's scratch index of a read's inputs.
	inputByID map[string]int
	arrivals  []time.Duration // submission instant of each planned turn

	turnsSubmitted, inputsSent, issued int
	terminalCount                      int           // turns known terminal
	env                                *wEnvironment // workload_environment.go
	out                                []sim.Effect  // effects of the running Step
	ans                                *wAnswers     // interaction answers (interaction.go)
	mcp                                *wMCP         // MCP servers and their tokens (workload_mcp.go)
	mcpEmpty                           *rand.Rand    // explicit empty MCP server lists (workload_mcp.go)
	successors                         int           // workspace writes planned after an unknown one (workload_workspace.go)
	readLimitR                         *rand.Rand    // byte reads' max_bytes (workload_workspace.go)
	exportPairR                        *rand.Rand    // paired exports (workload_workspace.go)
	defs                               *rand.Rand    // Environment definitions (workload_definition.go)
}

type wSession struct {
	agent  core.AgentConfig
	id     string
	images bool
	failed bool // Core refused the configuration
	// workspace writes in flight, and whether one may be unsettled
	// (workload_workspace.go)
	writesOut int
	unsettled bool
}

type wTurn struct {
	sess     *wSession
	id       string
	terminal bool
	input    wire.MessageInput

	// idSeq and terminalSeq are the issued and terminal counts right after
	// the turn got its ID and became terminal (0: not yet), so a pending
	// snapshot can tell what it was then (workload_steer.go).
	idSeq, terminalSeq int

	// steers are the Turn's steers not recorded yet when last resolved,
	// in call order (resolve).
	steers []*wSteer
}

type wSteer struct {
	call, ret int64
	turn      *wTurn
	input     string
	outcome   string
	recorded  bool
}

type wCall struct {
	at     time.Time
	done   func(now time.Time, r core.APIResult)
	lost   func(now time.Time)
	answer bool
}

func newWorkload(u *universe, r *rand.Rand) *workload {
	return &workload{u: u, r: r, actions: map[sim.TimerID]func(time.Time){}, calls: map[sim.CallID]*wCall{}}
}

const callTimeout = 3 * time.Second

func (wl *workload) Step(now time.Time, ev sim.Event) []sim.Effect {
	wl.out = nil
	switch e := ev.(type) {
	case sim.Start:
		wl.plan(now)
	case sim.TimerFired:
		if fn, ok := wl.actions[e.Timer]; ok {
			delete(wl.actions, e.Timer)
			fn(now)
		}
	case sim.CallReturned:
		if c, ok := wl.calls[e.Call]; ok && !c.answer {
			c.answer = true
			delete(wl.calls, e.Call)
			res, _ := e.Res.(apiResult)
			c.done(now, res.r)
		}
	}
	out := wl.out
	wl.out = nil
	return out
}

func (wl *workload) after(now time.Time, d time.Duration, fn func(now time.Time)) {
	wl.seq++
	id := sim.TimerID(numbered("w/", wl.seq))
	wl.actions[id] = fn
	wl.out = append(wl.out, sim.SetTimer{Timer: id, At: now.Add(d)})
}

// call sends one API request; lost runs if no answer comes in time (Core
// was down: the request may or may not have been handled).
func (wl *workload) call(now time.Time, ev core.Event, done func(time.Time, core.APIResult), lost func(time.Time)) {
	wl.callWithin(now, callTimeout, ev, done, lost)
}

// callWithin is call with its own wait for the answer.
func (wl *workload) callWithin(now time.Time, wait time.Duration, ev core.Event, done func(time.Time, core.APIResult), lost func(time.Time)) {
	wl.seq++
	id := sim.CallID(wl.seq)
	c := &wCall{at: now, done: done, lost: lost}
	wl.calls[id] = c
	wl.out = append(wl.out, sim.Call{To: coreID, Call: id, Req: apiRequest{ev}})
	wl.after(now, wait, func(now time.Time) {
		if !c.answer {
			c.answer = true
			delete(wl.calls, id)
			c.lost(now)
		}
	})
}

// plan draws the sessions and the turn arrivals.
func (wl *workload) plan(now time.Time) {
	sh := wl.u.shape
	wl.total = sh.turns(wl.u.w.Workload())
	if wl.total <= 0 {
		return
	}
	wl.planEnvironment(now)
	n := sh.sessions(1+wl.r.IntN(min(4, wl.total)), wl.total)
	for i := range n {
		s := &wSession{}
		s.agent, s.images = wl.drawAgent(i)
		if wl.u.plainUnderProfile(&s.agent, i, n) {
			s.images = false // the built-in catalog qualifies no image
		}
		wl.sessions = append(wl.sessions, s)
		wl.createSession(now, s)
	}
	for i := range wl.total {
		s := wl.sessions[wl.r.IntN(n)]
		at := sh.arrival(time.Duration(100+wl.r.IntN(20000))*time.Millisecond, i)
		t := &wTurn{sess: s, input: wl.input(s, "turn "+strconv.Itoa(i))}
		wl.turns = append(wl.turns, t)
		wl.arrivals = append(wl.arrivals, at)
		wl.after(now, at, func(now time.Time) { wl.submit(now, t) })
	}
	wl.planWorkspace(now)
	wl.planFlood(now)
}

func (wl *workload) createSession(now time.Time, s *wSession) {
	wl.call(now, core.CreateSession{Agent: s.agent}, func(now time.Time, r core.APIResult) {
		if r.Err != nil {
			s.failed = true
			if class, ok := engineRefusal(r.Err); ok {
				wl.u.led.SessionAdmission(wl.u.lt(now), wl.u.sessionSpec(s.agent), class)
				return
			}
			wl.u.led.SessionRefused(wl.u.lt(now), r.Err.Error())
			return
		}
		wl.u.led.SessionAdmission(wl.u.lt(now), wl.u.sessionSpec(s.agent), "")
		s.id = r.Value.(core.SessionCreated).Session
		wl.u.led.SessionCreated(wl.u.lt(now), s.id, wl.u.sessionSpec(s.agent))
	}, func(now time.Time) { wl.createSession(now, s) })
}

// drawAgent varies the agent configuration: environment, structured
// output, multi-agent, function tools, tool search, images.
func (wl *workload) drawAgent(i int) (core.AgentConfig, bool) {
	r := wl.r
	a := core.AgentConfig{Kind: agentKind, Model: "sim-model-" + strconv.Itoa(i), SystemPrompt: "be brief"}
	switch r.IntN(3) {
	case 0:
		a.Environment = core.EnvNone
	case 1:
		a.Environment, a.EnvironmentID = core.EnvSelfHosted, workspaceEnvironment(1, i)
	default:
		a.Environment, a.EnvironmentID = core.EnvOpenAIHosted, workspaceEnvironment(2, i)
	}
	if r.IntN(4) == 0 {
		a.OutputSchema = []byte(`{"type":"object"}`)
	}
	a.MultiAgent = r.IntN(2) == 0
	if r.IntN(3) == 0 {
		a.FunctionTools = []wire.FunctionTool{{Name: "lookup", Description: "look something up"}}
	}
	if r.IntN(6) == 0 {
		a.ToolSearch = true
		a.FunctionTools = append(a.FunctionTools, wire.FunctionTool{Name: "deferred", DeferLoading: true})
	}
	a.TextVerbosity = []string{"", core.VerbosityLow, core.VerbosityHigh}[r.IntN(3)]
	drawHarnessConfig(&a, i)
	wl.drawMCP(&a, i)
	wl.drawEmptyMCP(&a)
	wl.drawDefinition(&a, i)
	images := r.IntN(4) == 0
	return a, images
}

func (wl *workload) input(s *wSession, text string) wire.MessageInput {
	in := wire.TextInput(text)
	if s.images && wl.r.IntN(2) == 0 {
		in[0].Content = append(in[0].Content, wire.ImagePart("https://example.com/image.png"))
	}
	return in
}

// submit sends a turn once its session exists, then plans its steers,
// cancel and reads.
func (wl *workload) submit(now time.Time, t *wTurn) {
	if t.sess.failed {
		wl.issued++
		wl.markTerminal(t)
		return
	}
	if t.sess.id == "" {
		wl.after(now, 500*time.Millisecond, func(now time.Time) { wl.submit(now, t) })
		return
	}
	wl.call(now, core.SubmitTurn{Session: t.sess.id, Input: t.input}, func(now time.Time, r core.APIResult) {
		if r.Err != nil {
			wl.issued++
			wl.markTerminal(t)
			return
		}
		t.id = r.Value.(core.TurnSubmitted).Turn
		wl.issued++
		t.idSeq = wl.issued
		wl.turnsSubmitted++
		wl.planTurn(now, t)
	}, func(now time.Time) { wl.after(now, 200*time.Millisecond, func(now time.Time) { wl.submit(now, t) }) })
}

func (wl *workload) planTurn(now time.Time, t *wTurn) {
	if offsets, ok := wl.u.shape.steerPlan(wl.r, wl.turnsSubmitted == 1); ok {
		for _, at := range offsets {
			wl.after(now, at, func(now time.Time) { wl.steer(now, t) })
		}
		wl.maybeCancel(now, t)
		wl.poll(now, t)
		return
	}
	steers := wl.r.IntN(4)
	if wl.r.IntN(3) == 0 {
		steers = 3 + wl.r.IntN(3) // a chatty turn
	}
	for range steers {
		at := time.Duration(wl.r.IntN(8000)) * time.Millisecond
		wl.after(now, at, func(now time.Time) { wl.steer(now, t) })
	}
	wl.maybeCancel(now, t)
	wl.poll(now, t)
}

// maybeCancel cancels one Turn in four at a random moment.
func (wl *workload) maybeCancel(now time.Time, t *wTurn) {
	if wl.r.IntN(4) == 0 {
		at := time.Duration(wl.r.IntN(6000)) * time.Millisecond
		wl.after(now, at, func(now time.Time) {
			seq := wl.seq + 1 // the call's own sequence (call takes it)
			wl.call(now, core.CancelTurn{Turn: t.id}, func(now time.Time, r core.APIResult) {
				if r.Err == nil {
					wl.u.led.CancelAnswered(wl.u.lt(now), seq, t.id)
				}
				wl.afterCancel(now, t)
			}, func(time.Time) {})
		})
	}
}

// poll reads the turn now and then until it is terminal.
func (wl *workload) poll(now time.Time, t *wTurn) {
	wl.read(now, t)
	if !t.terminal {
		wl.after(now, time.Duration(300+wl.r.IntN(2500))*time.Millisecond, func(now time.Time) {
			if !t.terminal {
				wl.poll(now, t)
			}
		})
	}
}

func (wl *workload) read(now time.Time, t *wTurn) {
	call := wl.u.lt(now)
	wl.call(now, core.ReadTurn{Turn: t.id}, func(now time.Time, r core.APIResult) {
		v, _ := r.Value.(*core.TurnView)
		if v == nil {
			return
		}
		ret := wl.u.lt(now)
		wl.u.led.ReadTurn(call, ret, t.sess.id, t.id, publicState(v.State))
		wl.u.count("ReadTurn")
		wl.resolve(ret, t, v)
		wl.answerInteractions(now, t, v)
		wl.cancelRunning(now, t, v.State)
		wl.cancelRunningForForgery(now, t, v.State)
		wl.cancelIfStarting(now, t, v.State)
		wl.cancelForCrash(now, t, v.State) // cancel_crash.go
		if v.State.Terminal() {
			wl.markTerminal(t)
		}
	}, func(time.Time) {})
}

func (wl *workload) steer(now time.Time, t *wTurn) {
	if t.terminal && wl.u.shape != shapeManySteers {
		return // many_steers keeps steering: Core must refuse it
	}
	s := &wSteer{call: wl.u.lt(now), turn: t}
	wl.steers = append(wl.steers, s)
	t.steers = append(t.steers, s)
	wl.inputsSent++
	in := wl.input(t.sess, "steer "+strconv.Itoa(wl.inputsSent))
	seq := wl.seq + 1 // the call's own sequence (call takes it)
	wl.u.led.SteerCalled(seq, t.id)
	wl.call(now, core.SteerInput{Turn: t.id, Input: in}, func(now time.Time, r core.APIResult) {
		if r.Err != nil {
			if errors.Is(r.Err, core.ErrInputLimit) {
				wl.u.mark(check.MarkSteerInputLimit)
				wl.u.led.SteerCallAnswered(wl.u.lt(now), seq, t.id, check.SteerLimitRefused)
			} else {
				wl.u.led.SteerCallAnswered(wl.u.lt(now), seq, t.id, check.SteerRefused)
			}
			s.input = fmt.Sprintf("refused-%d", wl.inputsSent)
			wl.record(s, wl.u.lt(now), check.InputRejected)
			return
		}
		s.input = r.Value.(core.InputSteered).Input
		wl.u.led.SteerCallAnswered(wl.u.lt(now), seq, t.id, check.SteerAdmitted)
		wl.u.led.SteerAnswered(wl.u.lt(now), t.id, in)
	}, func(now time.Time) {
		s.input = fmt.Sprintf("lost-%d", len(wl.steers))
		wl.u.led.SteerCallAnswered(wl.u.lt(now), seq, t.id, check.SteerLost)
		wl.record(s, wl.u.lt(now), check.InputUnknown)
	})
}

func (wl *workload) markTerminal(t *wTurn) {
	if !t.terminal {
		t.terminal = true
		wl.terminalCount++
		t.terminalSeq = wl.terminalCount
	}
}

package daemon

import (
	"fmt"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Machine is the Runtime dispatcher. It is not safe for concurrent use:
// the shell (or the simulator) calls Step from one goroutine.
type Machine struct {
	cfg Config
	now time.Time
	out []Effect
	// wallOffset is the accumulated WallClockStep: wall time is now plus
	// it. Only wire values read it, never a decision.
	wallOffset time.Duration

	conn      conn
	executors map[string]*executor
	turns     map[TurnID]*turn
	calls     map[CallID]*call
	timers    map[TimerID]*timer

	seqExecutor, seqHandle, seqTurn, seqCall uint64

	ws workspace

	fence      fence     // suspension state; survives reconnects
	xfer       transfers // runtime_prepare orphans and the installed snapshot
	shutdown   bool
	lastReport string
	reported   bool

	ix interactions

	// continuity is each Session's native identity kept from an executor
	// retired with its lost connection (continuity.go).
	continuity map[string]keptSession
	seqKept    uint64
}

// conn is the state of the current connection: routes and admission
// records. It is replaced wholesale on reconnect; nothing carries over.
type conn struct {
	gen       ConnID
	up        bool
	byRequest map[string]*admission
	byHandle  map[string]*admission
	order     []*admission // admission records in creation order
	runs      map[string]*turn
	usedRuns  map[string]bool // every Run ID started on this connection
	transfer  *prepTransfer   // the runtime_prepare transfer, if any
}

type callKind uint8

const (
	callPrepare callKind = iota + 1
	callStart
	callWrite
	callCancel
	callSettle
	callClose
	callOpenWorkspace
	callCloseWorkspace
	callReadWorkspace
	callWriteWorkspace
	callExportWorkspace
	callStage   // runtime_prepare.go
	callInstall // runtime_prepare.go
	callDiscard // runtime_prepare.go
	callDecision
)

var callKindNames = [...]string{"", "prepare", "start", "write", "cancel", "settle", "close",
	"open-workspace", "close-workspace", "read-workspace", "write-workspace", "export-workspace",
	"stage", "install", "discard", "decision"}

// call is an outstanding native call and what it refers to.
type call struct {
	id       CallID
	kind     callKind
	executor string
	turn     TurnID
	input    string
	reader   string        // workspace calls: the read-only profile
	op       string        // workspace calls: the operation ID
	read     *pendingRead  // callReadWorkspace
	transfer *transfer     // callWriteWorkspace
	export   *exportStream // callExportWorkspace
	staged   string        // runtime_prepare calls: installer identity of the transfer
	ix       *interaction  // callDecision: the interaction it answers
	ack      string        // callDecision: the ack's envelope ID
}

type timerKind uint8

const (
	timerHeartbeat timerKind = iota + 1
	timerExpiry
	timerWrite
	timerSettleWait
	timerSettleRetry
	timerIdle
	timerCloseRetry
	timerReaderCloseRetry
	timerTransfer
	timerPrepareExpiry
)

type timer struct {
	kind     timerKind
	at       time.Time
	gen      ConnID
	handle   string
	turn     TurnID
	input    string
	executor string
}

// New returns a machine for cfg. Zero limits take their defaults. It
// panics when the configuration is invalid: that is a programming error
// of the caller, caught by Config.Validate.
func New(cfg Config) *Machine {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		panic(err)
	}
	return &Machine{
		cfg:       cfg,
		executors: map[string]*executor{},
		turns:     map[TurnID]*turn{},
		calls:     map[CallID]*call{},
		timers:    map[TimerID]*timer{},
		ws:        newWorkspace(),

		continuity: map[string]keptSession{},
	}
}

// Step applies one event at instant now and returns the effects to run,
// in order. now must not go backwards between calls.
func (m *Machine) Step(now time.Time, ev Event) []Effect {
	defer m.wrapStepPanic()
	if now.Before(m.now) {
		panicf("time went backwards: %v after %v", now, m.now)
	}
	m.now = now
	m.out = nil
	switch e := ev.(type) {
	case ConnOpened:
		m.onConnOpened(e)
	case ConnClosed:
		m.onConnClosed(e)
	case FrameReceived:
		m.onFrame(e)
	case FrameRejected:
		m.onFrameRejected(e)
	case TimerFired:
		m.onTimer(e)
	case NativeResult:
		m.onNativeResult(e)
	case NativeTurnEvent:
		m.onNativeEvent(e)
	case NativeInputApplied:
		m.onInputApplied(e)
	case NativePermissionWithdrawn:
		m.onPermissionWithdrawn(e)
	case ShutdownRequested:
		m.beginShutdown()
	case WallClockStep:
		m.wallOffset += e.Offset
	case KindAvailability:
		m.onKindAvailability(e)
	default:
		panic(fmt.Sprintf("daemon: unknown event %T", ev))
	}
	m.maybeReport()
	m.checkInvariantsAfterStep()
	out := m.out
	m.out = nil
	return out
}

// ---- effect helpers ----

func (m *Machine) emit(e Effect) { m.out = append(m.out, e) }

// send writes a frame on the current connection when it is gen and up.
func (m *Machine) send(gen ConnID, f wire.Frame, budget time.Duration) {
	if !m.conn.up || m.conn.gen != gen {
		return
	}
	m.emit(Send{Conn: gen, Frame: f, Budget: budget})
}

func (m *Machine) setTimer(id TimerID, t *timer) {
	m.timers[id] = t
	m.emit(SetTimer{Timer: id, At: t.at})
}

func (m *Machine) cancelTimer(id TimerID) {
	if _, ok := m.timers[id]; !ok {
		return
	}
	delete(m.timers, id)
	m.emit(CancelTimer{Timer: id})
}

func (m *Machine) nativeCall(c *call, op Op) {
	m.seqCall++
	c.id = CallID("c-" + strconv.FormatUint(m.seqCall, 10))
	m.calls[c.id] = c
	m.emit(NativeCall{Call: c.id, Op: op})
}

func (m *Machine) mintExecutor() string {
	m.seqExecutor++
	return "ex-" + strconv.FormatUint(m.seqExecutor, 10)
}

func (m *Machine) mintHandle() string {
	m.seqHandle++
	return "h-" + strconv.FormatUint(m.seqHandle, 10)
}

func (m *Machine) mintTurn() TurnID {
	m.seqTurn++
	return TurnID("t-" + strconv.FormatUint(m.seqTurn, 10))
}

// ---- timers ----

func heartbeatTimer(gen ConnID) TimerID {
	return TimerID("heartbeat/g" + strconv.FormatUint(uint64(gen), 10))
}
func expiryTimer(handle string) TimerID { return TimerID("expiry/" + handle) }
func writeTimer(t TurnID, input string) TimerID {
	return TimerID("write/" + string(t) + "/" + input)
}
func settleWaitTimer(t TurnID) TimerID  { return TimerID("settle-wait/" + string(t)) }
func settleRetryTimer(t TurnID) TimerID { return TimerID("settle-retry/" + string(t)) }
func idleTimer(ex string) TimerID       { return TimerID("idle/" + ex) }
func closeRetryTimer(ex string) TimerID { return TimerID("close-retry/" + ex) }

func (m *Machine) onTimer(e TimerFired) {
	t, ok := m.timers[e.Timer]
	if !ok || m.now.Before(t.at) {
		return // cancelled, replaced, or delivered early: ignore
	}
	delete(m.timers, e.Timer)
	switch t.kind {
	case timerHeartbeat:
		m.heartbeatDue(t.gen)
	case timerExpiry:
		m.expiryDue(t.handle)
	case timerWrite:
		m.writeBudgetDue(t.turn, t.input)
	case timerSettleWait:
		m.settleWaitDue(t.turn)
	case timerSettleRetry:
		m.settleRetryDue(t.turn)
	case timerIdle:
		m.idleDue(t.executor)
	case timerCloseRetry:
		m.closeRetryDue(t.executor)
	default:
		m.workspaceTimer(t)
	}
}

// ---- native results ----

func (m *Machine) onNativeResult(e NativeResult) {
	c, ok := m.calls[e.Call]
	if !ok {
		return // unknown or duplicate result: nothing to settle
	}
	delete(m.calls, e.Call)
	switch c.kind {
	case callPrepare:
		m.prepareDone(c, resultAs[PrepareResult](c, e.Result))
	case callStart:
		m.startDone(c, resultAs[StartResult](c, e.Result))
	case callWrite:
		m.writeDone(c, resultAs[WriteResult](c, e.Result))
	case callCancel:
		m.cancelDone(c, resultAs[CancelResult](c, e.Result))
	case callSettle:
		m.settleDone(c, resultAs[SettleResult](c, e.Result))
	case callClose:
		m.closeDone(c, resultAs[CloseResult](c, e.Result))
	case callStage:
		m.stageDone(c, resultAs[StageResult](c, e.Result))
	case callInstall:
		m.installDone(c, resultAs[InstallResult](c, e.Result))
	case callDiscard:
		resultAs[DiscardResult](c, e.Result)
	case callDecision:
		m.decisionDone(c, resultAs[DecisionResult](c, e.Result))
	default:
		m.workspaceCall(c, e.Result)
	}
}

// resultAs checks that a result matches its call's operation. A mismatch
// is a bug of the shell: reading it as any outcome could claim more than
// happened, so it panics.
func resultAs[R Result](c *call, res Result) R {
	r, ok := res.(R)
	if !ok {
		panicf("native result %T for %s call %s", res, callKindNames[c.kind], c.id)
	}
	return r
}

// ---- connection ----

func (m *Machine) onConnOpened(e ConnOpened) {
	if e.Conn <= m.conn.gen {
		return // stale or repeated generation
	}
	if m.conn.up {
		old := m.conn.gen
		m.retireConnection()
		m.emit(CloseConn{Conn: old, Reason: "replaced"})
	}
	m.conn = conn{
		gen:       e.Conn,
		up:        true,
		byRequest: map[string]*admission{},
		byHandle:  map[string]*admission{},
		runs:      map[string]*turn{},
		usedRuns:  map[string]bool{},
	}
	m.heartbeatDue(e.Conn)
}

func (m *Machine) onConnClosed(e ConnClosed) {
	if !m.conn.up || e.Conn != m.conn.gen {
		return
	}
	m.retireConnection()
}

// wall is the wall-clock reading, in Unix milliseconds, of monotonic
// instant t: the value a wire field carries. Decisions never use it.
func (m *Machine) wall(t time.Time) int64 { return t.Add(m.wallOffset).UnixMilli() }

// wallSeconds is wall in Unix seconds: the unit of heartbeat ts, as the
// documented era's Runtime sends it (wire-reference §4.4).
func (m *Machine) wallSeconds(t time.Time) int64 { return t.Add(m.wallOffset).Unix() }

func (m *Machine) heartbeatDue(gen ConnID) {
	if !m.conn.up || m.conn.gen != gen {
		return
	}
	m.send(gen, wire.Frame{Payload: m.heartbeat()}, m.cfg.Limits.ReceiptSendBudget)
	m.setTimer(heartbeatTimer(gen), &timer{kind: timerHeartbeat, at: m.now.Add(m.cfg.HeartbeatInterval), gen: gen})
}

func (m *Machine) heartbeat() wire.Heartbeat {
	kinds := make([]wire.SupportedAgentKind, len(m.cfg.Kinds))
	for i, k := range m.cfg.Kinds {
		kinds[i] = wire.SupportedAgentKind{Kind: k.Kind, Available: k.Available, Version: k.Version, Capabilities: k.Capabilities}
	}
	return wire.Heartbeat{
		TS:                  m.wallSeconds(m.now),
		ActiveRequests:      m.activeCount(),
		DaemonVersion:       m.cfg.DaemonVersion,
		SupportedAgentKinds: kinds,
	}
}

// retireConnection retires every route and handle of the current
// connection, and its executors: admissions, handles, Run routes, their
// timers and outputs are connection-local, and an executor is bound to
// the connection it was prepared on. Idle ones (and those the retired
// admissions reserved) are closed now, busy ones once their Turn settles
// (Reusable or not), preparing ones once their preparation completes; a
// later connection's prepare never reuses them. Native work keeps running
// and is settled and cleaned up; nothing of it is ever sent on or
// replayed to a successor connection.
func (m *Machine) retireConnection() {
	m.transferConnLost()
	c := &m.conn
	c.up = false // from here on makeIdle closes executors of c.gen
	m.cancelTimer(heartbeatTimer(c.gen))
	m.workspaceConnected()
	for _, a := range c.order {
		m.retireAdmission(a)
	}
	for _, id := range sortedTurnIDs(m.turns) {
		t := m.turns[id]
		if t.gen == c.gen {
			m.orphanTurn(t)
		}
	}
	for _, ex := range m.executorsIn(phaseIdle) {
		m.retireExecutor(ex)
	}
	c.byRequest = map[string]*admission{}
	c.byHandle = map[string]*admission{}
	c.order = nil
	c.runs = map[string]*turn{}
	c.usedRuns = map[string]bool{}
}

// onFrame routes one decoded frame of the current connection.
func (m *Machine) onFrame(e FrameReceived) {
	if !m.conn.up || e.Conn != m.conn.gen || e.Frame.Payload == nil {
		return
	}
	switch p := e.Frame.Payload.(type) {
	case wire.ExecutionPrepare:
		m.onPrepare(e.Frame.ID, p)
	case wire.ExecutionStart:
		m.onStart(e.Frame.ID, p)
	case wire.ExecutionRelease:
		m.onRelease(e.Frame.ID, p)
	case wire.PromptSteer:
		m.onSteer(e.Frame.ID, p)
	case wire.PromptCancel:
		m.onCancel(e.Frame.ID, p)
	case wire.DeviceShutdown:
		m.beginShutdown()
	case wire.WorkspaceRead:
		m.onWorkspaceRead(e.Frame.ID, p)
	case wire.WorkspaceWrite:
		m.onWorkspaceWrite(e.Frame.ID, p)
	case wire.WorkspaceExport:
		m.onWorkspaceExport(e.Frame.ID, p)
	case wire.EnvironmentQuiesce:
		m.onQuiesce(e.Frame.ID, p)
	case wire.EnvironmentResume:
		m.onResume(e.Frame.ID, p)
	case wire.RuntimePrepare:
		m.onRuntimePrepare(e.Frame.ID, p)
	case wire.PermissionDecision:
		m.onPermissionDecision(e.Frame.ID, p)
	case wire.UserChoiceDecision:
		m.onUserChoiceDecision(e.Frame.ID, p)
	case wire.FunctionResult:
		m.onFunctionResult(e.Frame.ID, p)
	}
}

// onFrameRejected answers undecodable admission control frames with
// the operation's rejection, and an undecodable prompt_steer with an
// invalid_input receipt on its Run ID (wire reference §3.7; the input_id
// is not echoed: nothing of an undecodable payload is trusted); other
// undecodable frames have no effect.
func (m *Machine) onFrameRejected(e FrameRejected) {
	if !m.conn.up || e.Conn != m.conn.gen || e.ID == "" {
		return
	}
	code := ""
	switch e.Type {
	case wire.TypePromptSteer:
		m.send(m.conn.gen, wire.Frame{ID: e.ID, Payload: wire.PromptSteerAck{ErrorCode: CodeInvalidInput}},
			m.cfg.Limits.ReceiptSendBudget)
		return
	case wire.TypeExecutionPrepare:
		code = CodeInvalidRequest
	case wire.TypeExecutionStart:
		code = CodeInvalidStart
	case wire.TypeExecutionRelease:
		code = CodeInvalidRelease
	default:
		m.workspaceFrameRejected(e.Type, e.ID)
		return
	}
	m.sendRejected(e.ID, e.Type, code, nil)
}

package core

import (
	"fmt"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/wire"
)

// Machine is Core's coordinator: every protocol decision of Core, driven
// only through Step. It is not safe for concurrent use; the shell
// serialises Steps.
type Machine struct {
	cfg Config
	st  Store
	ctr Counters
	now time.Time
	out []Effect
	// started is the instant of the first Step (an enrolled device's
	// reconnect window runs from it).
	started time.Time

	devices    map[string]*device
	deviceList []*device // the values of devices in ascending ID order (addDevice)
	conns      map[ConnID]*conn
	sessions   map[string]*session
	order      []*session       // sessions in Seq order, each at its slot (addSession)
	ready      []bool           // at s.slot: s.schedulable() (setReady)
	turns      map[string]*turn // unfinished Turns
	turnList   []*turn          // the values of turns, each at its slot (addTurn, removeTurn)
	preps      map[string]*preparation
	prepList   []*preparation   // the values of preps, each at its slot (addPrep, dropPrep)
	runs       map[string]*turn // Run ID → claimed Turn (the Run route)
	subs       map[CallID]*subscriber
	subList    []*subscriber // the values of subs, each at its slot (addSub, dropSub)
	timers     map[TimerID]time.Time
	// cancelTimers counts the armed timers of kinds timerCancel and
	// timerCancelRetry, so the invariants look up those of a Turn without
	// a cancel only when some armed one is not a requested cancel's.
	cancelTimers int
	ws           coreWorkspace
	fence        *fencing      // suspension records and requests in flight (fencing.go)
	envPreps     *preparations // Environment preparations (runtime_prepare.go)

	decisions map[string]decisionRef // delivery ID → decision awaiting its receipt

	waits []waitKey // selectConn's waits found by the running schedule
}

// session is a Session's volatile state around its durable record.
type session struct {
	rec     SessionRecord
	queue   []*turn      // unfinished Turns, FIFO; queue[0] is the only one that may be active
	prep    *preparation // preparation of queue[0], if any
	backoff bool         // preparation_capacity retry timer armed
	req     requirement  // the last requirements built (requirements)
	reqKey  uint8        // requirementKey they were built for, 0 before
	// wsHeld counts the idle reads and writes in flight holding the
	// Session's workspace reservation (holdWorkspace); wsSeen is
	// checkWorkspaceHeld's scratch count, 0 outside it.
	wsHeld, wsSeen int
	// profile is engineProfile of the Session's kind, once profileRead.
	profile     EngineProfile
	profileRead bool
	// why is unqualified's answer for the Session under whyPolicy, once
	// whyRead.
	why       string
	whyPolicy *engine.Policy
	whyRead   bool
	key       string // its key in Machine.sessions (addSession)
	slot      int    // its index in Machine.order (addSession)
}

// turn is an unfinished Turn: its durable record plus volatile routing.
type turn struct {
	rec      TurnRecord
	inputs   []InputRecord
	conn     *conn // connection carrying the Run route (claimed Turns)
	admitted *wire.AgentKindCapabilities
	subs     []*subscriber
	retrying bool // a steer resend timer is armed
	// images: the initial input or one of the first imagesSeen-1 inputs
	// carries an image (turnHasImages; imagesSeen 0: not looked yet).
	images     bool
	imagesSeen int
	key        string // its key in Machine.turns (addTurn)
	slot       int    // its index in Machine.turnList (addTurn)
}

// New returns a Machine over an empty store. It panics when cfg is invalid
// or st already holds records (use Restart).
func New(cfg Config, st Store) *Machine {
	m := newMachine(cfg, st)
	assert.That(len(st.Sessions()) == 0 && len(st.Turns()) == 0, "New over a non-empty store; use Restart")
	return m
}

func newMachine(cfg Config, st Store) *Machine {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		panic(err.Error())
	}
	m := &Machine{
		cfg:      cfg,
		st:       st,
		ctr:      st.Counters(),
		devices:  map[string]*device{},
		conns:    map[ConnID]*conn{},
		sessions: map[string]*session{},
		turns:    map[string]*turn{},
		preps:    map[string]*preparation{},
		runs:     map[string]*turn{},
		subs:     map[CallID]*subscriber{},
		timers:   map[TimerID]time.Time{},
		ws:       newCoreWorkspace(),
	}
	for _, id := range cfg.Devices {
		if m.devices[id] == nil {
			m.addDevice(&device{id: id, enrolled: true})
		}
	}
	return m
}

// Step applies one event at instant now and returns the effects to apply,
// in order. now must not go backwards between calls (Step panics).
func (m *Machine) Step(now time.Time, ev Event) []Effect {
	defer m.wrapStepPanic()
	if now.Before(m.now) {
		panicf("time went backwards: %v after %v", now, m.now)
	}
	m.now = now
	m.out = nil
	if m.started.IsZero() {
		m.started = m.now
		for _, d := range m.deviceList { // the enrolled pool's windows start now
			m.setTimer(timerID(timerReconnect, d.id), m.reconnectEnd(d))
		}
	}
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
		m.onTimer(e.Timer)
	case SubscriberOverflow:
		m.onSubscriberOverflow(e)
	case CreateSession:
		m.onCreateSession(e)
	case SubmitTurn:
		m.onSubmitTurn(e)
	case SteerInput:
		m.onSteerInput(e)
	case CancelTurn:
		m.onCancelTurn(e)
	case ReadTurn:
		m.onReadTurn(e)
	case ListTurns:
		m.onListTurns(e)
	case Subscribe:
		m.onSubscribe(e)
	case ReadWorkspace:
		m.onReadWorkspace(e)
	case WriteWorkspace:
		m.onWriteWorkspace(e)
	case ExportWorkspace:
		m.onExportWorkspace(e)
	case ExportChunkTaken:
		m.onExportChunkTaken(e)
	case QuiesceEnvironment, ResumeEnvironment, ReadSuspension:
		m.onFencingAPI(e)
	case PrepareEnvironment, ReadPreparation:
		m.onPreparationAPI(e)
	case ReadEnvironment:
		m.onReadEnvironment(e)
	case interactionAPI:
		m.onInteractionAPI(e)
	default:
		panic(fmt.Sprintf("core: unknown event %T", ev))
	}
	m.schedule()
	m.checkInvariantsAfterStep()
	out := m.out
	m.out = nil
	return out
}

func (m *Machine) emit(e Effect) { m.out = append(m.out, e) }

func (m *Machine) send(c ConnID, id string, p wire.Payload) {
	m.emit(Send{Conn: c, Frame: wire.Frame{ID: id, Payload: p}})
}

// sendBestEffort sends a frame the shell may drop once budget has passed
// since it was queued (Send.Budget).
func (m *Machine) sendBestEffort(c ConnID, id string, p wire.Payload, budget time.Duration) {
	m.emit(Send{Conn: c, Frame: wire.Frame{ID: id, Payload: p}, Budget: budget})
}

func (m *Machine) result(r APIResult) { m.emit(r) }

// answer is the result of a call that answers v on success and err
// otherwise.
func answer(call CallID, v APIValue, err error) APIResult {
	if err != nil {
		return APIResult{Call: call, Err: err}
	}
	return APIResult{Call: call, Value: v}
}

func (m *Machine) setTimer(id TimerID, at time.Time) {
	if isCancelTimer(id) {
		if _, ok := m.timers[id]; !ok {
			m.cancelTimers++
		}
	}
	m.timers[id] = at
	m.emit(SetTimer{Timer: id, At: at})
}

// cancelTimer disarms id when armed; it emits nothing otherwise.
func (m *Machine) cancelTimer(id TimerID) {
	if _, ok := m.timers[id]; ok {
		m.disarm(id)
		m.emit(CancelTimer{Timer: id})
	}
}

// disarm removes the armed timer id.
func (m *Machine) disarm(id TimerID) {
	delete(m.timers, id)
	if isCancelTimer(id) {
		m.cancelTimers--
	}
}

// isCancelTimer reports whether id is of kind timerCancel or
// timerCancelRetry.
func isCancelTimer(id TimerID) bool {
	s := string(id)
	return strings.HasPrefix(s, timerCancel+":") || strings.HasPrefix(s, timerCancelRetry+":")
}

func (m *Machine) armed(id TimerID) bool { _, ok := m.timers[id]; return ok }

// Timer names: "<kind>:<subject>".
const (
	timerIdle        = "idle"
	timerPrepRetry   = "prepare-retry"
	timerWritten     = "written"
	timerSteerRetry  = "steer-retry"
	timerCancel      = "cancel"
	timerCancelRetry = "cancel-retry"
	// timerReconnect ends a device's reconnect window (reconnecting);
	// firing only steps the machine, whose scheduling then judges again.
	timerReconnect = "reconnect"
	// timerConnCapacity ends a connection's capacity wait; firing only
	// steps the machine, whose scheduling then probes the connection.
	timerConnCapacity = "conn-capacity"
)

func timerID(kind, subject string) TimerID { return TimerID(kind + ":" + subject) }

func (m *Machine) onTimer(id TimerID) {
	at, ok := m.timers[id]
	if !ok || m.now.Before(at) {
		return
	}
	m.disarm(id)
	kind, subject, _ := strings.Cut(string(id), ":")
	switch kind {
	case timerReconnect:
		// the window is over (reconnecting reads the clock); schedule runs
	case timerIdle:
		m.onIdleTimer(subject)
	case timerConnCapacity:
		// the wait is over (capacityGated reads the clock); schedule runs
	case timerPrepRetry:
		if s := m.sessions[subject]; s != nil {
			m.setBackoff(s, false)
		}
	case timerWritten:
		m.onWrittenTimeout(subject)
	case timerSteerRetry:
		m.onSteerRetry(subject)
	case timerCancel:
		m.onCancelTimeout(subject)
	case timerCancelRetry:
		m.onCancelRetry(subject)
	case timerFenceReply:
		m.fenceUnknown(subject)
	case timerTransfer:
		m.transferUnknown(subject)
	case timerDecision:
		m.onDecisionTimeout(subject)
	default:
		if !m.onWorkspaceTimer(kind, subject) {
			panic(fmt.Sprintf("core: armed timer of unknown kind %q", id))
		}
	}
}

// mint returns the next identity of a durable counter.
func (m *Machine) mint(prefix string, ctr *uint64) string {
	*ctr++
	m.st.SaveCounters(m.ctr)
	return fmt.Sprintf("%s-%d", prefix, *ctr)
}

func (m *Machine) saveTurn(t *turn)       { m.st.PutTurn(t.rec) }
func (m *Machine) saveSession(s *session) { m.st.PutSession(s.rec) }

func (m *Machine) saveInput(t *turn, i int) { m.st.PutInput(t.rec.ID, t.inputs[i]) }

// lookupTurn finds a Turn's record, unfinished or not.
func (m *Machine) lookupTurn(id string) (TurnRecord, bool) {
	if t := m.turns[id]; t != nil {
		return t.rec, true
	}
	return m.st.Turn(id)
}

// apiTurnErr is the error for a call naming a Turn that is not unfinished.
func (m *Machine) apiTurnErr(id string) error {
	if _, ok := m.st.Turn(id); ok {
		return ErrTurnTerminal
	}
	return ErrUnknownTurn
}

package core

import (
	"fmt"
	"slices"

	"github.com/turnstile-sim/turnstile/wire"
)

func (m *Machine) onCreateSession(e CreateSession) {
	agent, err := e.Agent.validate()
	if err == nil {
		err = m.admitAgent(agent)
	}
	if _, ok := m.prepStore(); err == nil && agent.Definition != nil && !ok {
		err = ErrPreparationUnavailable
	}
	if err != nil {
		m.result(APIResult{Call: e.Call, Err: err})
		return
	}
	if len(m.sessions) >= m.cfg.SessionsMax {
		m.result(APIResult{Call: e.Call, Err: ErrSessionLimit})
		return
	}
	id := m.mint("s", &m.ctr.Sessions)
	s := &session{rec: SessionRecord{ID: id, Seq: m.ctr.Sessions, Agent: agent}}
	m.saveSession(s)
	m.addSession(s)
	m.result(APIResult{Call: e.Call, Value: SessionCreated{Session: id}})
}

func (m *Machine) onSubmitTurn(e SubmitTurn) {
	s := m.sessions[e.Session]
	switch {
	case s == nil:
		m.result(APIResult{Call: e.Call, Err: ErrUnknownSession})
		return
	case e.Input.Validate() != nil:
		m.result(APIResult{Call: e.Call, Err: fmt.Errorf("%w: %v", ErrInvalidInput, e.Input.Validate())})
		return
	case m.admitInput(s, e.Input) != nil:
		m.result(APIResult{Call: e.Call, Err: m.admitInput(s, e.Input)})
		return
	case len(s.queue) >= m.cfg.TurnsPerSessionMax:
		m.result(APIResult{Call: e.Call, Err: ErrQueueFull})
		return
	case m.sessionState(s).Unrecoverable != "":
		m.result(APIResult{Call: e.Call, Err: fmt.Errorf("%w: %s", ErrSessionUnrecoverable, m.sessionState(s).Unrecoverable)})
		return
	}
	id := m.mint("t", &m.ctr.Turns)
	t := &turn{rec: TurnRecord{
		ID: id, Seq: m.ctr.Turns, Session: s.rec.ID, State: TurnQueued,
		Input: slices.Clone(e.Input),
	}}
	m.saveTurn(t)
	m.addTurn(t)
	m.setQueue(s, append(s.queue, t))
	m.result(APIResult{Call: e.Call, Value: TurnSubmitted{Turn: id}})
}

// SessionState is what a Session's record alone does not say: whether
// its next Turn needs native_session_recovery, and why it cannot run at
// all when no device of the pool can give it.
type SessionState struct {
	// RecoveryRequired: the Session started Turns but no native session
	// ID was recorded (a Turn cut short, typically by a Core restart),
	// and none of its Turns is claimed (a running Turn may still record
	// one): its next Turn asks the Runtime to resume the existing native
	// session and needs native_session_recovery.
	RecoveryRequired bool
	// Unrecoverable, when set, is why the Session cannot take a new
	// Turn: recovery is required and every device of the pool is
	// connected with a declaration (none reconnecting) and those
	// declaring the kind available lack native_session_recovery. It is
	// judged on the current declarations, like device selection, so it
	// clears when a device declaring the capability connects.
	Unrecoverable string
}

// sessionState judges s against the pool as selectConn does, for
// native_session_recovery alone.
func (m *Machine) sessionState(s *session) SessionState {
	claimed := len(s.queue) > 0 && s.queue[0].rec.State != TurnQueued
	st := SessionState{RecoveryRequired: s.rec.StartedTurns > 0 && s.rec.NativeSessionID == "" && !claimed}
	if !st.RecoveryRequired {
		return st
	}
	lacking := false
	for _, d := range m.deviceList {
		if m.reconnecting(d, s.rec.Agent.Kind) {
			return st
		}
		if d.conn == 0 || m.deviceFenced(d.id) {
			continue
		}
		k, ok := m.conns[d.conn].kinds[s.rec.Agent.Kind]
		if !ok || !k.Available {
			continue
		}
		if k.Capabilities.NativeSessionRecovery.IsSupported() {
			return st
		}
		lacking = true
	}
	if lacking {
		st.Unrecoverable = capNativeSessionRecovery + ": the Session started Turns without a recorded native session ID " +
			"and no device of the pool declares native_session_recovery for kind " + s.rec.Agent.Kind
	}
	return st
}

// schedule prepares the head Turn of every Session that has no active
// Turn, in Session order: FIFO per Session, one active Turn per Session.
// It visits the Sessions marked ready, in slot (Session) order,
// reading the marks as it goes: scheduleHead of any other Session returns
// false at its first test (an empty queue, a preparation, a backoff).
//
// selectConn's verdict is a function of the kind, the requirement's set
// and the machine's state. While no head got further than a wait, the
// state it reads is unchanged, so a kind and set that found nothing for
// one Session find nothing for the next: schedule remembers them
// (m.waits) until a head gets further, and such a head waits at once.
func (m *Machine) schedule() {
	m.waits = m.waits[:0]
	for i := m.nextReady(0); i >= 0; i = m.nextReady(i + 1) {
		s := m.order[i]
		for m.scheduleHead(s) {
		}
	}
	m.waits = m.waits[:0]
}

// waitKey is a kind and requirement set for which selectConn found no
// connection and nothing missing (the Turn waits).
type waitKey struct {
	kind string
	set  uint64
}

// waiting reports whether schedule already found that k waits.
func (m *Machine) waiting(k waitKey) bool {
	for _, w := range m.waits {
		if w == k {
			return true
		}
	}
	return false
}

// setQueue, setPrep and setBackoff are the only writers of a Session's
// queue, preparation and backoff (TestIndexWriters): each keeps the
// Session's ready mark.
func (m *Machine) setQueue(s *session, q []*turn) { s.queue = q; m.setReady(s) }

func (m *Machine) setPrep(s *session, p *preparation) { s.prep = p; m.setReady(s) }

func (m *Machine) setBackoff(s *session, b bool) { s.backoff = b; m.setReady(s) }

// schedulable: s has a queued head scheduleHead may try (it still checks
// the workspace reservation and the head's state).
func (s *session) schedulable() bool {
	return len(s.queue) > 0 && s.prep == nil && !s.backoff
}

// setReady sets m.ready[s.slot] to s.schedulable().
func (m *Machine) setReady(s *session) {
	for len(m.ready) <= s.slot {
		m.ready = append(m.ready, false)
	}
	m.ready[s.slot] = s.schedulable()
}

// isReady reports m.ready[i].
func (m *Machine) isReady(i int) bool { return i < len(m.ready) && m.ready[i] }

// nextReady is the lowest i' >= i with m.ready[i'] set, or -1.
func (m *Machine) nextReady(i int) int {
	for ; i < len(m.ready); i++ {
		if m.ready[i] {
			return i
		}
	}
	return -1
}

// scheduleHead tries to prepare s's head Turn. It reports whether the head
// was rejected, so the next Turn may be tried.
func (m *Machine) scheduleHead(s *session) bool {
	if len(s.queue) == 0 || s.prep != nil || s.backoff || m.workspaceReserved(s) {
		return false
	}
	t := s.queue[0]
	if t.rec.State != TurnQueued {
		return false
	}
	if miss := m.unqualified(s); miss != "" {
		m.finish(t, TurnFailed, CodeCapabilityUnsupported, miss)
		return true
	}
	req := m.requirements(s, t)
	k := waitKey{s.rec.Agent.Kind, req.set}
	if m.waiting(k) {
		return false // as an earlier head of this schedule: wait
	}
	c, missing := m.selectConn(k.kind, req)
	if c == nil && missing == "" {
		m.waits = append(m.waits, k)
		return false // no device declares the kind: wait
	}
	m.waits = m.waits[:0] // what follows may change what selectConn reads
	if c == nil {
		m.finish(t, TurnFailed, CodeCapabilityUnsupported, missing)
		return true
	}
	if ready, failed := m.environmentReady(s, t, c); !ready {
		return failed
	}
	m.startPreparation(s, t, c, req)
	return false
}

// requirements returns the capabilities t needs. They are a function of
// the Session's immutable Agent configuration and of four facts
// (requirementKey); the Session keeps the last one built with its key and
// builds again only when the key changed. Never modify the names.
func (m *Machine) requirements(s *session, t *turn) requirement {
	if !s.profileRead { // the Policy is immutable, the Session's kind too
		s.profile, s.profileRead = m.engineProfile(s.rec.Agent.Kind), true
	}
	profile := s.profile
	images := turnHasImages(t)
	key := requirementKey(&s.rec, profile, images)
	if s.reqKey != key {
		s.req = newRequirement(appendRequirements(nil, s.rec, profile, images)...)
		s.reqKey = key
	}
	return s.req
}

// requirementKey encodes, from bit 1 up, everything appendRequirements
// reads besides the Session's Agent configuration: whether the Turn
// carries an image, whether the Session needs native recovery, and the
// engine profile's two flags. Bit 0 is always set, so the zero key of a
// new Session matches nothing.
func requirementKey(s *SessionRecord, profile EngineProfile, images bool) uint8 {
	key := uint8(1)
	if images {
		key |= 2
	}
	if s.StartedTurns > 0 && s.NativeSessionID == "" {
		key |= 4
	}
	if profile.WebSearchControl {
		key |= 8
	}
	if profile.TextVerbosity {
		key |= 16
	}
	return key
}

// turnHasImages reports whether t's initial input or one of its active
// inputs carries an image. Inputs are only ever appended (steer.go) and
// never change, so t remembers the answer for the inputs it looked at
// (imagesSeen of them, the initial input first) and looks only at those
// appended since.
func turnHasImages(t *turn) bool {
	if t.imagesSeen == 0 {
		t.images = t.rec.Input.HasImages()
		t.imagesSeen = 1
	}
	for ; !t.images && t.imagesSeen <= len(t.inputs); t.imagesSeen++ {
		t.images = t.inputs[t.imagesSeen-1].Input.HasImages()
	}
	return t.images
}

// selectConn picks the admissible connection with the fewest open
// preparations and Runs, ties broken by device ID. When none is
// admissible it returns the first missing capability (in device order)
// only when no device of the pool may still serve the Turn; otherwise ""
// (the Turn stays queued).
//
// Core checks "选定设备的声明" at device selection and at the final check
// (core-runtime-protocol, 能力声明): a device whose declaration lacks a
// capability is never selected, and a queued Turn fails
// capability_unsupported at selection only when every device of the pool
// (the enrolled devices of Config.Devices and every device seen since) is
// connected with a declaration, and those declaring the kind available
// lack a required capability (a device declaring the kind unavailable, or
// not at all, says it cannot serve it now; a fenced device serves
// nothing). A device of the pool that is reconnecting (away, or
// connected before its first heartbeat, for less than ReconnectWindow)
// has no declaration Core may judge (capabilities are unknown before a
// heartbeat, and nothing is inferred): it may still serve the Turn, which
// then waits. A device away for longer no longer counts; the next step
// after its window (a heartbeat of a connected device, at the latest)
// decides again.
func (m *Machine) selectConn(kind string, req requirement) (*conn, string) {
	var best *conn
	missing, anyOK, mayServe := "", false, false
	for _, d := range m.deviceList { // sorted by ID
		if m.reconnecting(d, kind) {
			mayServe = true // its declaration is unknown
			continue
		}
		if d.conn == 0 {
			continue
		}
		if m.deviceFenced(d.id) {
			continue // suspended: serves nothing until resumed
		}
		c := m.conns[d.conn]
		verdict, miss, _ := checkConn(c, kind, req)
		switch verdict {
		case admitMissing:
			if missing == "" {
				missing = miss
			}
		case admitOK:
			anyOK = true
			if c.preps >= m.cfg.PreparationsPerConnMax || m.capacityGated(c) {
				continue
			}
			if best == nil || c.preps+c.runs < best.preps+best.runs {
				best = c
			}
		}
	}
	if best != nil || anyOK || mayServe {
		return best, "" // nil: admissible but at its limit, or a device may still serve: wait
	}
	return nil, missing
}

// prepareConfig builds execution_prepare's configuration: the immutable
// Session configuration and exactly the fields Core sets. It never carries
// Run input or a Run ID.
func prepareConfig(s SessionRecord, caps wire.AgentKindCapabilities) wire.ExecutionConfiguration {
	a := s.Agent
	cfg := wire.ExecutionConfiguration{
		AgentKind:     a.Kind,
		AgentStateKey: wire.AgentStateKey(s.ID),
		StrictResume:  true,
		ExecutionControls: &wire.ExecutionControls{
			WebSearch:                      webSearchDisabled,
			TextVerbosity:                  a.TextVerbosity,
			DisableProgrammaticToolCalling: a.DisableProgrammaticToolCalling,
		},
		ObserveMessages:              caps.MessageItems.IsSupported(),
		ObserveSubagentIdentities:    a.MultiAgent,
		DisableSubagents:             !a.MultiAgent,
		FunctionTools:                slices.Clone(a.FunctionTools),
		ToolSearch:                   a.ToolSearch,
		AgentSessionID:               s.NativeSessionID,
		RequireExistingNativeSession: s.StartedTurns > 0 && s.NativeSessionID == "",
	}
	putOption(&cfg.AgentOptions, wire.AgentOptionModel, jsonString(a.Model))
	putOption(&cfg.AgentOptions, wire.AgentOptionSystemPrompt, jsonString(a.SystemPrompt))
	if a.ModelProvider != "" {
		putOption(&cfg.AgentOptions, wire.AgentOptionModelProvider, jsonString(a.ModelProvider))
	}
	if a.HarnessConfig != nil {
		putOption(&cfg.AgentOptions, wire.AgentOptionHarnessConfig, a.HarnessConfig)
	}
	if a.OutputSchema != nil {
		cfg.ExecutionControls.OutputFormat = &wire.OutputFormat{Type: wire.OutputFormatJSONSchema, Schema: a.OutputSchema}
	}
	if a.Environment == EnvNone {
		cfg.DisableExecutionEnvironment = true
	} else {
		cfg.LocalEnvironment = &wire.LocalEnvironment{ID: a.EnvironmentID}
	}
	if a.MCPServers != nil { // an explicit empty list travels as []
		servers := slices.Clone(a.MCPServers)
		cfg.MCPHTTPServers = &servers
	}
	return cfg
}

// putOption sets one agent_options member (a raw JSON value).
func putOption[M ~map[string]V, V ~[]byte](m *M, key string, raw []byte) {
	if *m == nil {
		*m = make(M, 4)
	}
	(*m)[key] = V(raw)
}

// jsonString renders s as a JSON string literal.
func jsonString(s string) []byte {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}

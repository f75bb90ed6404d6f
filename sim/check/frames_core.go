package check

import (
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: capability (rules.go); check names of other frame oracles.
const (
	CheckPrepareConfiguration = "prepare_configuration"
	CheckNativeHistory        = "native_history"
	CheckRefusalCode          = "refusal_code"
)

// CoreNode is Core's node ID on the simulated network: every other node
// is a device (d1..d4), a rogue (RogueNode) or the workload.
const CoreNode = "core"

// frameState is what the frame oracles learned from the wire and from the
// API client's requests.
type frameState struct {
	sessions map[string]*sessionFacts
	conns    map[uint64]*coreConn
	connIDs  []uint64                          // the keys of conns, ascending
	preps    map[string]*prepFacts             // preparation request ID (Core mints them once)
	runs     map[string]string                 // Run → its Session
	steerImg map[string]bool                   // turn → an accepted steer call carried an image
	expect   map[uint64]map[string]expectation // conn → request → the answer it must get (refusal_codes.go)

	admissions     map[string]*admissionRec // conn\x00request
	admissionOrder []string
	grants         map[string]bool // device\x00request\x00handle granted
	quiesced       map[string]bool // devices ever asked to be quiesced or sent a quiesce (capability_refusal.go)
}

type sessionFacts struct {
	spec      SessionSpec
	nativeIDs map[string]bool // native session IDs Core received for its Runs
	runs      []string        // Runs Core sent execution_start for, in order
}

type coreConn struct {
	device string
	known  bool  // a heartbeat reached Core: the declaration is known
	opaque bool  // an undecodable frame reached Core: Core drops the snapshot
	closed bool  // either end closed it (capability_refusal.go)
	opened int64 // when it opened (capability_refusal.go)
	kinds  map[string]wire.SupportedAgentKind
}

type prepFacts struct {
	session  string
	conn     uint64
	recovery bool // the Session needed native_session_recovery at selection
}

func (f *frameState) init() { f.grants, f.admissions = map[string]bool{}, map[string]*admissionRec{} }

// SessionCreated records that Core answered the API client's request to
// create a Session with its ID: spec is the configuration the client
// asked for.
func (l *Ledger) SessionCreated(at int64, session string, spec SessionSpec) {
	made(&l.frames.sessions)[session] = &sessionFacts{spec: spec, nativeIDs: map[string]bool{}}
}

// SteerAnswered records that Core accepted a steer call for turn (the API
// returned an input ID): its input counts for the Turn's requirements.
func (l *Ledger) SteerAnswered(at int64, turn string, input wire.MessageInput) {
	if hasImages(input) {
		made(&l.frames.steerImg)[turn] = true
		// A queued Turn that now needs message_images may have no
		// admissible device: it waits, or fails, instead of a retry.
		if r := l.timing.retry.preps[l.core.turn(turn).session]; r != nil {
			r.excuse("a steered input with images changed a queued Turn's requirements")
		}
	}
}

// observeCoreFrames follows what Core sends and receives on its device
// connections and judges execution_prepare and execution_start.
func (l *Ledger) observeCoreFrames(ev WireEvent) {
	f := &l.frames
	switch {
	case ev.Kind == WireOpened && ev.To == CoreNode:
		if _, ok := f.conns[ev.Conn]; !ok {
			i, _ := slices.BinarySearch(f.connIDs, ev.Conn)
			f.connIDs = slices.Insert(f.connIDs, i, ev.Conn)
		}
		made(&f.conns)[ev.Conn] = &coreConn{device: ev.From, opened: ev.At, kinds: map[string]wire.SupportedAgentKind{}}
	case ev.Kind == WireClosed:
		if c := f.conns[ev.Conn]; c != nil {
			c.closed = true
		}
	case ev.Kind == WireDelivered && ev.To == CoreNode:
		l.coreReceived(ev)
	case ev.Kind == WireSent && ev.From == CoreNode && ev.HasFrame():
		switch p := ev.Frame.Payload.(type) {
		case wire.ExecutionPrepare:
			l.prepareSent(ev, p)
		case wire.ExecutionStart:
			l.startSent(ev, p)
		case wire.EnvironmentQuiesce:
			made(&f.quiesced)[ev.To] = true
		}
	}
}

// coreReceived keeps the declaration of the connection (the latest
// heartbeat Core received replaces the snapshot) and the native session
// IDs Core learns from done and applied cancel receipts.
func (l *Ledger) coreReceived(ev WireEvent) {
	f := &l.frames
	c := f.conns[ev.Conn]
	if c == nil {
		return
	}
	if ev.DecodeErr != nil {
		c.opaque = true
		return
	}
	if !ev.HasFrame() {
		return
	}
	var md *wire.DoneMetadata
	switch p := ev.Frame.Payload.(type) {
	case wire.Heartbeat:
		c.known, c.kinds = true, kindsOf(p)
	case wire.Done:
		md = p.Metadata
	case wire.InteractionDecisionAck:
		if p.Applied && p.Outcome != nil {
			md = p.Outcome.Metadata
		}
	}
	if md == nil || md.AgentSessionID == "" {
		return
	}
	if s := f.sessions[f.runs[ev.Frame.ID]]; s != nil {
		s.nativeIDs[md.AgentSessionID] = true
	}
}

// nativeHistoryRun returns a Run of the Session for which the Harness
// created a native turn (ground truth: native history exists), or "".
func (l *Ledger) nativeHistoryRun(s *sessionFacts) string {
	for _, run := range s.runs {
		if _, ok := l.harness.turns[run]; ok {
			return run
		}
	}
	return ""
}

// prepareSent judges one execution_prepare: the device's declaration
// admits the Session (selection check) and the configuration is the one
// the seeds' table gives for the Session.
func (l *Ledger) prepareSent(ev WireEvent, p wire.ExecutionPrepare) {
	f := &l.frames
	s := f.sessions[p.SessionID]
	if s == nil {
		return // a Session the client never learned of has no Turns
	}
	if p.Configuration.WorkspaceReadOnly {
		l.readOnlyPrepareSent(ev, p, s)
		return
	}
	// Recovery: Core started a Turn of the Session and names no native
	// session, so it asks for existing history; the Harness's ground
	// truth also says so when a native turn exists and Core names none.
	cfg := p.Configuration
	recovery := cfg.RequireExistingNativeSession ||
		(cfg.AgentSessionID == "" && l.nativeHistoryRun(s) != "")
	made(&f.preps)[ev.Frame.ID] = &prepFacts{session: p.SessionID, conn: ev.Conn, recovery: recovery}
	what := "execution_prepare " + ev.Frame.ID + " of session " + p.SessionID
	l.checkDeclaration(ev.At, ev.Conn, what, s.spec.Kind, RequiredCapabilities(s.spec, recovery, false))
	l.engineDispatch(ev.At, ev.Conn, what, s) // engine_admission.go
	l.checkPrepareConfig(ev, p, s)
	l.checkNativeHistory(ev.At, what, cfg, s)
}

// startSent judges one execution_start: it follows Core's own prepare on
// the same connection, and the declaration Core holds now still admits
// the Turn (final check), its input's images included.
func (l *Ledger) startSent(ev WireEvent, p wire.ExecutionStart) {
	f := &l.frames
	pr := f.preps[ev.Frame.ID]
	what := "execution_start " + ev.Frame.ID + " of run " + p.RunID
	switch {
	case pr == nil:
		l.violate(ev.At, CheckCapability, "%s without a selection check: Core sent no execution_prepare for it", what)
		return
	case pr.conn != ev.Conn:
		l.violate(ev.At, CheckCapability, "%s on conn c%d, prepared on conn c%d", what, ev.Conn, pr.conn)
		return
	}
	s := f.sessions[pr.session]
	made(&f.runs)[p.RunID] = pr.session
	s.runs = append(s.runs, p.RunID)
	turn, _, _ := strings.Cut(p.RunID, ".") // "t-3" or "t-3.2"
	images := hasImages(p.Input) || f.steerImg[turn]
	l.checkDeclaration(ev.At, ev.Conn, what, s.spec.Kind, RequiredCapabilities(s.spec, pr.recovery, images))
	l.engineDispatch(ev.At, ev.Conn, what, s) // engine_admission.go
}

// checkDeclaration: the connection's declaration is known, declares the
// Session's kind available, and supports every required capability.
func (l *Ledger) checkDeclaration(at int64, conn uint64, what, kind string, required []string) {
	c := l.frames.conns[conn]
	if c == nil || c.opaque {
		return
	}
	k, ok := c.kinds[kind]
	switch {
	case !c.known:
		l.violate(at, CheckCapability, "%s to %s before any heartbeat declared its capabilities", what, c.device)
	case !ok || !k.Available:
		l.violate(at, CheckCapability, "%s to %s, which does not declare kind %q available", what, c.device, kind)
	default:
		if miss := missingCapabilities(required, k.Capabilities); len(miss) > 0 {
			l.violate(at, CheckCapability, "%s to %s, whose declaration lacks %s", what, c.device, strings.Join(miss, ","))
		}
	}
}

func kindsOf(hb wire.Heartbeat) map[string]wire.SupportedAgentKind {
	kinds := map[string]wire.SupportedAgentKind{}
	for _, k := range hb.SupportedAgentKinds {
		kinds[k.Kind] = k
	}
	return kinds
}

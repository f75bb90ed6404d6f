package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Environment preparation (wire-reference §3.2). An operator call gives
// Core the ordered steps of an Environment's preparation on a device:
// files, skills and plugins with their bytes, and initialize / finalize
// headers. Core drives them one transfer at a time on the device's
// connection, one frame in flight: begin → ready, chunks of at most
// 64 KiB each answered received with the new end offset, commit →
// completed with the total size; a step without body is begin → ready,
// commit → completed. Every result is checked with the shared validator
// against the expected outcome, offset and size. Each step's state is
// recorded durably before and after it runs; bodies are volatile.
//
// A rejected or failed step ends the preparation with its code (and a
// setup command's exit code). A lost connection, a Core restart, a result
// the validator refuses or no result within 195 s from begin makes the
// step unknown (runtime_preparation_unconfirmed): `received` confirmed
// staging only, and nothing is ever replayed on a later connection.

// transferExchangeTimeout bounds one transfer's whole exchange.
const transferExchangeTimeout = 195 * time.Second

const timerTransfer = "transfer"

// PreparationState is an Environment preparation's (or one step's)
// durable state.
type PreparationState string

const (
	PreparationPending   PreparationState = "pending"
	PreparationRunning   PreparationState = "running"
	PreparationCompleted PreparationState = "completed"
	PreparationRejected  PreparationState = "rejected"
	PreparationFailed    PreparationState = "failed"
	PreparationUnknown   PreparationState = "unknown"
)

// Terminal reports whether the state is final.
func (s PreparationState) Terminal() bool {
	return s != PreparationPending && s != PreparationRunning
}

// PrepareStep is one step of an Environment preparation: a begin header
// (action, metadata, size and digest; the IDs and step are filled in by
// Core) and, for skill, plugin and file, its bytes.
type PrepareStep struct {
	Header wire.RuntimePrepare
	Body   []byte
}

// PreparationStepRecord is one step's durable state.
type PreparationStepRecord struct {
	Action    string
	Name      string // skill or plugin name, file path, initialization action
	Size      int64
	State     PreparationState
	Transfer  string // the transfer's Envelope ID once begun
	ErrorCode string
	ExitCode  int
}

// EnvironmentPreparationRecord is one durable Environment preparation.
type EnvironmentPreparationRecord struct {
	ID            string
	Seq           uint64
	Device        string
	EnvironmentID string
	SessionID     string
	State         PreparationState
	Steps         []PreparationStepRecord
	// Session is the Core Session whose Environment definition this
	// preparation installs on Connection ("" for an operator call).
	Session    string `json:",omitempty"`
	Connection ConnID `json:",omitempty"`
}

// PreparationStore is the durable table of Environment preparations. A
// Store implementing it lets Core prepare Environments; without it the
// call is refused with ErrPreparationUnavailable.
type PreparationStore interface {
	PutEnvironmentPreparation(EnvironmentPreparationRecord)
	EnvironmentPreparations() []EnvironmentPreparationRecord // in Seq order
}

// Environment preparation API errors; none changes durable state.
var (
	ErrPreparationUnavailable = errors.New("core: the store keeps no environment preparation records")
	ErrInvalidPreparation     = errors.New("core: invalid environment preparation")
	ErrTransferBusy           = errors.New("core: a transfer is already running on the device's connection")
	ErrDeviceFenced           = errors.New("core: the device has an unresolved suspension")
	ErrUnknownPreparation     = errors.New("core: unknown environment preparation")
)

// PrepareEnvironment runs Steps on Device for the Environment and Session
// (canonical UUIDs). Result: PreparationStarted.
type PrepareEnvironment struct {
	Call          CallID
	Device        string
	EnvironmentID string
	SessionID     string
	Steps         []PrepareStep
}

// ReadPreparation reads an Environment preparation. Result:
// *EnvironmentPreparationRecord.
type ReadPreparation struct {
	Call CallID
	ID   string
}

func (PrepareEnvironment) isEvent() {}
func (ReadPreparation) isEvent()    {}

func (e PrepareEnvironment) Describe() string {
	return fmt.Sprintf("api prepare-environment call=%s device=%s env=%s steps=%d", e.Call, e.Device, e.EnvironmentID, len(e.Steps))
}
func (e ReadPreparation) Describe() string {
	return fmt.Sprintf("api read-preparation call=%s id=%s", e.Call, e.ID)
}

// envPrep is a running preparation (volatile around its record).
type envPrep struct {
	rec    *EnvironmentPreparationRecord
	conn   ConnID
	steps  []PrepareStep
	cur    int
	id     string // current transfer's Envelope ID
	expect string // outcome awaited
	offset int64  // bytes confirmed received
	end    int64  // end of the chunk in flight
}

// preparations is the machine's preparation state.
type preparations struct {
	recs    map[string]*EnvironmentPreparationRecord
	byXfer  map[string]*envPrep // by current transfer ID
	running map[ConnID]*envPrep
	// poisoned: connections whose last transfer ended unknown while the
	// connection stayed up; the Runtime may still hold it open, so no
	// other transfer starts there (one transfer per connection).
	poisoned map[ConnID]bool
	// poisonedBy: the transfer that poisoned each connection; its late
	// terminal result proves the Runtime ended it, lifting the poison.
	poisonedBy map[string]ConnID
	// bySession: per connection, the preparation of each Session's
	// Environment definition there (volatile: a connection's own).
	bySession map[ConnID]map[string]string
}

func (m *Machine) prepStore() (PreparationStore, bool) {
	s, ok := m.st.(PreparationStore)
	return s, ok
}

func (m *Machine) prepState() *preparations {
	if m.envPreps != nil {
		return m.envPreps
	}
	m.envPreps = &preparations{recs: map[string]*EnvironmentPreparationRecord{},
		byXfer: map[string]*envPrep{}, running: map[ConnID]*envPrep{}, poisoned: map[ConnID]bool{},
		poisonedBy: map[string]ConnID{},
		bySession:  map[ConnID]map[string]string{}}
	if st, ok := m.prepStore(); ok {
		for _, r := range st.EnvironmentPreparations() {
			rec := r
			rec.Steps = slices.Clone(r.Steps)
			m.envPreps.recs[r.ID] = &rec
		}
	}
	return m.envPreps
}

func (m *Machine) putPrep(rec *EnvironmentPreparationRecord) {
	st, ok := m.prepStore()
	assert.That(ok, "preparation %s without a preparation store", rec.ID)
	cp := *rec
	cp.Steps = slices.Clone(rec.Steps)
	st.PutEnvironmentPreparation(cp)
}

func (m *Machine) onPreparationAPI(ev Event) {
	switch e := ev.(type) {
	case PrepareEnvironment:
		id, err := m.prepareEnvironment(e)
		m.result(answer(e.Call, PreparationStarted{Preparation: id}, err))
	case ReadPreparation:
		rec, ok := m.prepState().recs[e.ID]
		if !ok {
			m.result(APIResult{Call: e.Call, Err: ErrUnknownPreparation})
			return
		}
		cp := *rec
		cp.Steps = slices.Clone(rec.Steps)
		m.result(APIResult{Call: e.Call, Value: &cp})
	}
}

// checkSteps validates every step's header with the shared validator and
// its body against the declared size, before anything is sent.
func checkSteps(env, session string, steps []PrepareStep) ([]PreparationStepRecord, error) {
	if len(steps) == 0 {
		return nil, fmt.Errorf("%w: no step", ErrInvalidPreparation)
	}
	out := make([]PreparationStepRecord, len(steps))
	for i, s := range steps {
		h := s.Header
		h.Step, h.EnvironmentID, h.SessionID, h.Offset, h.Data = wire.StepBegin, env, session, 0, nil
		if err := h.Validate(); err != nil {
			return nil, fmt.Errorf("%w: steps[%d]: %v", ErrInvalidPreparation, i, err)
		}
		body := hasBody(h.Action)
		if (body && int64(len(s.Body)) != h.SizeBytes) || (!body && len(s.Body) > 0) {
			return nil, fmt.Errorf("%w: steps[%d]: body does not match size_bytes", ErrInvalidPreparation, i)
		}
		out[i] = PreparationStepRecord{Action: h.Action, Name: stepName(h), Size: int64(len(s.Body)), State: PreparationPending}
	}
	return out, nil
}

func hasBody(action string) bool {
	return action == wire.PrepareActionSkill || action == wire.PrepareActionPlugin || action == wire.PrepareActionFile
}

func stepName(h wire.RuntimePrepare) string {
	switch {
	case h.Skill != nil:
		return h.Skill.Name
	case h.Plugin != nil:
		return h.Plugin.Name
	case h.File != nil:
		return h.File.Path
	case h.Initialization != nil:
		return h.Initialization.Action
	}
	return ""
}

func (m *Machine) prepareEnvironment(e PrepareEnvironment) (string, error) {
	if _, ok := m.prepStore(); !ok {
		return "", ErrPreparationUnavailable
	}
	if strings.TrimSpace(e.Device) == "" {
		return "", fmt.Errorf("%w: device required", ErrInvalidPreparation)
	}
	steps, err := checkSteps(e.EnvironmentID, e.SessionID, e.Steps)
	if err != nil {
		return "", err
	}
	c, err := m.runtimeConn(e.Device)
	if err != nil {
		return "", err
	}
	if m.deviceFenced(e.Device) {
		return "", ErrDeviceFenced
	}
	if m.transferBusy(c) {
		return "", ErrTransferBusy
	}
	rec := &EnvironmentPreparationRecord{Device: e.Device, EnvironmentID: e.EnvironmentID, SessionID: e.SessionID, Steps: steps}
	m.startEnvPrep(c, rec, e.Steps)
	return rec.ID, nil
}

// transferBusy: a transfer runs on the connection, or its last one ended
// unknown while it stayed up (one transfer per connection).
func (m *Machine) transferBusy(c *conn) bool {
	ps := m.prepState()
	return ps.running[c.id] != nil || ps.poisoned[c.id]
}

// startEnvPrep numbers rec, records it running and begins its first step.
func (m *Machine) startEnvPrep(c *conn, rec *EnvironmentPreparationRecord, steps []PrepareStep) {
	ps := m.prepState()
	seq := uint64(len(ps.recs)) + 1
	rec.ID, rec.Seq, rec.State, rec.Connection = fmt.Sprintf("ep-%d", seq), seq, PreparationRunning, c.id
	ps.recs[rec.ID] = rec
	p := &envPrep{rec: rec, conn: c.id, steps: slices.Clone(steps)}
	ps.running[c.id] = p
	m.beginStep(p)
}

// transferID mints the canonical UUID of a preparation's step.
func transferID(seq uint64, step int) string {
	return fmt.Sprintf("7e570000-0000-4000-8000-%06x%06x", seq&0xffffff, step&0xffffff)
}

// beginStep records the step as running, then sends its begin.
func (m *Machine) beginStep(p *envPrep) {
	rec := p.rec
	st := &rec.Steps[p.cur]
	p.id = transferID(rec.Seq, p.cur+1)
	st.State, st.Transfer = PreparationRunning, p.id
	m.putPrep(rec)
	h := p.steps[p.cur].Header
	h.Step, h.EnvironmentID, h.SessionID, h.Offset, h.Data = wire.StepBegin, rec.EnvironmentID, rec.SessionID, 0, nil
	p.expect, p.offset, p.end = wire.OutcomeReady, 0, 0
	m.prepState().byXfer[p.id] = p
	m.send(p.conn, p.id, h)
	m.setTimer(timerID(timerTransfer, p.id), m.now.Add(transferExchangeTimeout))
}

// sendNext sends the next chunk, or the commit once every byte was
// confirmed.
func (m *Machine) sendNext(p *envPrep) {
	body := p.steps[p.cur].Body
	if p.offset < int64(len(body)) {
		p.end = min(p.offset+wire.ChunkBytesMax, int64(len(body)))
		p.expect = wire.OutcomeReceived
		m.send(p.conn, p.id, wire.RuntimePrepare{Step: wire.StepChunk, Offset: p.offset, Data: body[p.offset:p.end]})
		return
	}
	p.expect = wire.OutcomeCompleted
	m.send(p.conn, p.id, wire.RuntimePrepare{Step: wire.StepCommit})
}

// onTransferResult reads one runtime_prepare_result.
func (m *Machine) onTransferResult(c *conn, id string, r wire.RuntimePrepareResult) {
	p := m.prepState().byXfer[id]
	if p == nil || p.conn != c.id {
		m.latePoisonResult(c, id, r)
		return // no transfer of this connection: proves nothing more
	}
	if staleTransferResult(p, r) {
		return // a copy of an answer to an earlier step of this transfer
	}
	size := int64(len(p.steps[p.cur].Body))
	offset := int64(0)
	if p.expect == wire.OutcomeReceived {
		offset = p.end
	}
	if err := r.ValidateAgainst(p.expect, offset, size); err != nil {
		m.poison(p)
		m.endStep(p, PreparationUnknown, wire.TransferUnconfirmed, 0)
		return
	}
	switch r.Outcome {
	case wire.OutcomeReady:
		m.sendNext(p)
	case wire.OutcomeReceived:
		p.offset = p.end
		m.sendNext(p)
	case wire.OutcomeCompleted:
		m.endStep(p, PreparationCompleted, "", 0)
	case wire.OutcomeRejected:
		m.endStep(p, PreparationRejected, r.ErrorCode, 0)
	case wire.OutcomeFailed:
		m.endStep(p, PreparationFailed, r.ErrorCode, r.ExitCode)
	default:
		m.endStep(p, PreparationUnknown, r.ErrorCode, 0)
	}
}

// endStep records the current step's end and starts the next step, or
// ends the preparation.
func (m *Machine) endStep(p *envPrep, state PreparationState, code string, exit int) {
	ps := m.prepState()
	delete(ps.byXfer, p.id)
	m.cancelTimer(timerID(timerTransfer, p.id))
	st := &p.rec.Steps[p.cur]
	st.State, st.ErrorCode, st.ExitCode = state, code, exit
	if state == PreparationCompleted && p.cur+1 < len(p.steps) {
		p.cur++
		m.beginStep(p)
		return
	}
	p.rec.State = state
	m.putPrep(p.rec)
	delete(ps.running, p.conn)
}

// transferUnknown ends a transfer without a usable result.
func (m *Machine) transferUnknown(id string) {
	if p := m.prepState().byXfer[id]; p != nil {
		m.poison(p)
		m.endStep(p, PreparationUnknown, wire.TransferUnconfirmed, 0)
	}
}

// preparationConnLost makes the connection's running transfer unknown;
// nothing is replayed on a later connection.
func (m *Machine) preparationConnLost(c *conn) {
	if m.envPreps == nil {
		return
	}
	delete(m.envPreps.poisoned, c.id)
	for id, conn := range m.envPreps.poisonedBy { //tidy:sorted deletes only
		if conn == c.id {
			delete(m.envPreps.poisonedBy, id)
		}
	}
	delete(m.envPreps.bySession, c.id)
	if p := m.envPreps.running[c.id]; p != nil {
		m.endStep(p, PreparationUnknown, wire.TransferUnconfirmed, 0)
	}
}

// restartPreparations: a preparation running when Core stopped has an
// unknown step; its record says so before anything else runs.
func (m *Machine) restartPreparations() {
	ps := m.prepState()
	ids := make([]string, 0, len(ps.recs))
	for id := range ps.recs {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return compareSeq(ps.recs[a].Seq, ps.recs[b].Seq) })
	for _, id := range ids {
		rec := ps.recs[id]
		if rec.State.Terminal() {
			continue
		}
		for i := range rec.Steps {
			if rec.Steps[i].State == PreparationRunning {
				rec.Steps[i].State, rec.Steps[i].ErrorCode = PreparationUnknown, wire.TransferUnconfirmed
			}
		}
		rec.State = PreparationUnknown
		m.putPrep(rec)
	}
}

// checkPreparations asserts the preparation invariants and returns the
// number of transfers in flight (each holds one exchange timer).
func (m *Machine) checkPreparations() int {
	if m.envPreps == nil {
		return 0
	}
	for id, p := range m.envPreps.byXfer {
		if !(m.envPreps.running[p.conn] == p && p.id == id && m.conns[p.conn] != nil) {
			panicf("transfer %s is not its connection's running preparation", id)
		}
		if !(p.rec.State == PreparationRunning && p.rec.Steps[p.cur].State == PreparationRunning) {
			panicf("transfer %s of a preparation not running", id)
		}
	}
	if !(len(m.envPreps.byXfer) == len(m.envPreps.running)) {
		panicf("%d transfers for %d running preparations", len(m.envPreps.byXfer), len(m.envPreps.running))
	}
	return len(m.envPreps.byXfer)
}

// poison keeps other transfers off p's connection: the Runtime may still
// hold p's transfer open there.
func (m *Machine) poison(p *envPrep) {
	ps := m.prepState()
	ps.poisoned[p.conn] = true
	ps.poisonedBy[p.id] = p.conn
}

// latePoisonResult: a terminal result of the transfer that poisoned its
// connection, arriving there after Core gave up on it, proves the
// Runtime ended that transfer: the connection takes transfers again (its
// preparation stays unknown; nothing is replayed).
func (m *Machine) latePoisonResult(c *conn, id string, r wire.RuntimePrepareResult) {
	ps := m.prepState()
	if conn, ok := ps.poisonedBy[id]; !ok || conn != c.id {
		return
	}
	switch r.Outcome {
	case wire.OutcomeReady, wire.OutcomeReceived:
		return
	}
	delete(ps.poisonedBy, id)
	delete(ps.poisoned, c.id)
}

// staleTransferResult reports whether r repeats an answer Core already
// read for an earlier step of p's transfer: ready once a chunk or the
// commit is awaited, or received for an offset already confirmed. Such a
// copy (a duplicate or replay on the wire) answers nothing new and is
// ignored; any other unexpected result fails the shared validator.
func staleTransferResult(p *envPrep, r wire.RuntimePrepareResult) bool {
	if r.ErrorCode != "" || r.ExitCode != 0 || r.SizeBytes != 0 {
		return false
	}
	switch r.Outcome {
	case wire.OutcomeReady:
		return p.expect != wire.OutcomeReady
	case wire.OutcomeReceived:
		return p.expect != wire.OutcomeReady && r.Offset > 0 && r.Offset <= p.offset
	}
	return false
}

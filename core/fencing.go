package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Suspension fencing (wire-reference §3.12). An operator quiesces the
// Runtime of an Environment before its Sandbox Provider suspends it and
// resumes it afterwards. Each suspension attempt has a durable record
// whose ID is the suspend_id that fences it; every request on the wire
// gets a fresh Envelope ID (<suspend_id>.q<n> / .r<n>), minted from the
// record's durable attempt count.
//
// Core sends environment_quiesce / environment_resume only with both IDs,
// keeps at most 2 requests in flight per connection,
// and reads a reply only when its type matches the request, it arrives on
// the request's connection with the request's Envelope ID, both IDs are
// echoed exactly and accepted:true carries no code. Any other reply proves
// nothing. A reply that never comes (within 30 s, a lost
// connection or a Core restart) leaves the outcome unknown: a quiesce
// becomes quiesce_unknown, which only a resume with rollback clears; a
// resume becomes resume_unknown, retried with rollback. Core never resumes
// on its own, and a resumed suspension is terminal, so a restart never
// resumes twice. While a device has an unresolved suspension, device
// selection skips it.

// SuspensionState is a suspension record's durable state.
type SuspensionState string

const (
	SuspensionQuiescing      SuspensionState = "quiescing"       // quiesce sent, reply awaited
	SuspensionQuiesceUnknown SuspensionState = "quiesce_unknown" // no reply: the Runtime may be fenced
	SuspensionQuiesced       SuspensionState = "quiesced"        // accepted: the Runtime is fenced
	SuspensionRefused        SuspensionState = "refused"         // quiesce refused; terminal
	SuspensionResuming       SuspensionState = "resuming"        // resume sent, reply awaited
	SuspensionResumeUnknown  SuspensionState = "resume_unknown"  // no reply to a resume
	SuspensionResumed        SuspensionState = "resumed"         // resume accepted; terminal
)

// Terminal reports whether the suspension is over.
func (s SuspensionState) Terminal() bool { return s == SuspensionRefused || s == SuspensionResumed }

// SuspensionRecord is one durable suspension attempt.
type SuspensionRecord struct {
	ID            string // the suspend_id
	Seq           uint64
	EnvironmentID string
	Device        string
	State         SuspensionState
	Attempts      int    // requests sent (quiesce and resume), for Envelope IDs
	Rollback      bool   // the last resume carried rollback
	ErrorCode     string // the last refusal's code
}

// SuspensionStore is the durable suspension table. A Store implementing
// it lets Core fence Environments; without it the calls are refused with
// ErrFencingUnavailable.
type SuspensionStore interface {
	PutSuspension(SuspensionRecord)
	Suspensions() []SuspensionRecord // in Seq order
}

// Fencing limits.
const (
	suspensionsInFlightMax = 2
	suspensionReplyTimeout = 30 * time.Second
	timerFenceReply        = "fence-reply"
)

// Fencing API errors; none changes durable state.
var (
	ErrFencingUnavailable  = errors.New("core: the store keeps no suspension records")
	ErrDeviceNotConnected  = errors.New("core: device not connected")
	ErrSuspensionsInFlight = errors.New("core: suspension requests in flight at the limit")
	ErrSuspensionConflict  = errors.New("core: an unresolved suspension holds the environment")
	ErrUnknownSuspension   = errors.New("core: unknown suspension")
	ErrSuspensionTerminal  = errors.New("core: suspension already ended")
	ErrSuspensionPending   = errors.New("core: suspension request awaiting its reply")
)

// QuiesceEnvironment quiesces the Runtime of device for EnvironmentID.
// Result: SuspendRef.
type QuiesceEnvironment struct {
	Call          CallID
	Device        string
	EnvironmentID string
}

// ResumeEnvironment resumes a suspension. Rollback asks for a no-op resume
// when the Runtime is not quiesced; it is implied after an unknown outcome.
// Result: SuspendRef.
type ResumeEnvironment struct {
	Call      CallID
	SuspendID string
	Rollback  bool
}

// ReadSuspension reads a suspension record. Result: *SuspensionRecord.
type ReadSuspension struct {
	Call      CallID
	SuspendID string
}

func (QuiesceEnvironment) isEvent() {}
func (ResumeEnvironment) isEvent()  {}
func (ReadSuspension) isEvent()     {}

func (e QuiesceEnvironment) Describe() string {
	return fmt.Sprintf("api quiesce call=%s device=%s env=%s", e.Call, e.Device, e.EnvironmentID)
}
func (e ResumeEnvironment) Describe() string {
	return fmt.Sprintf("api resume call=%s suspend=%s rollback=%t", e.Call, e.SuspendID, e.Rollback)
}
func (e ReadSuspension) Describe() string {
	return fmt.Sprintf("api read-suspension call=%s suspend=%s", e.Call, e.SuspendID)
}

// fenceReq is one request awaiting its reply (volatile).
type fenceReq struct {
	suspend string
	conn    ConnID
	quiesce bool
	prior   SuspensionState // state a refused resume returns to
	q       wire.EnvironmentQuiesce
	r       wire.EnvironmentResume
}

// fencing is the machine's volatile suspension state.
type fencing struct {
	recs map[string]*SuspensionRecord // by suspend_id, loaded from the store
	reqs map[string]*fenceReq         // by Envelope ID
}

func (m *Machine) fenceStore() (SuspensionStore, bool) {
	s, ok := m.st.(SuspensionStore)
	return s, ok
}

// fenceState returns the loaded suspension records, loading them once.
func (m *Machine) fenceState() *fencing {
	if m.fence != nil {
		return m.fence
	}
	m.fence = &fencing{recs: map[string]*SuspensionRecord{}, reqs: map[string]*fenceReq{}}
	if st, ok := m.fenceStore(); ok {
		for _, r := range st.Suspensions() {
			rec := r
			m.fence.recs[r.ID] = &rec
		}
	}
	return m.fence
}

func (m *Machine) putSuspension(rec *SuspensionRecord) {
	st, ok := m.fenceStore()
	assert.That(ok, "suspension %s without a suspension store", rec.ID)
	st.PutSuspension(*rec)
}

// onFencingAPI serves the three fencing calls.
func (m *Machine) onFencingAPI(ev Event) {
	switch e := ev.(type) {
	case QuiesceEnvironment:
		id, err := m.quiesceEnvironment(e)
		m.result(answer(e.Call, SuspendRef{Suspend: id}, err))
	case ResumeEnvironment:
		err := m.resumeEnvironment(e)
		m.result(answer(e.Call, SuspendRef{Suspend: e.SuspendID}, err))
	case ReadSuspension:
		rec, ok := m.fenceState().recs[e.SuspendID]
		if !ok {
			m.result(APIResult{Call: e.Call, Err: ErrUnknownSuspension})
			return
		}
		cp := *rec
		m.result(APIResult{Call: e.Call, Value: &cp})
	}
}

// runtimeConn returns the device's connection once it declared at least
// one Harness kind: a connection that declared none is not a Runtime Core
// sends requests to.
func (m *Machine) runtimeConn(device string) (*conn, error) {
	d := m.devices[device]
	if d == nil || d.conn == 0 || m.conns[d.conn] == nil {
		return nil, ErrDeviceNotConnected
	}
	c := m.conns[d.conn]
	if !c.known || len(c.kinds) == 0 {
		return nil, ErrDeviceNotConnected
	}
	return c, nil
}

// fenceConn returns the device's connection when a request may be sent on it.
func (m *Machine) fenceConn(device string) (*conn, error) {
	c, err := m.runtimeConn(device)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, r := range m.fenceState().reqs {
		if r.conn == c.id {
			n++
		}
	}
	if n >= suspensionsInFlightMax {
		return nil, ErrSuspensionsInFlight
	}
	return c, nil
}

func (m *Machine) quiesceEnvironment(e QuiesceEnvironment) (string, error) {
	if _, ok := m.fenceStore(); !ok {
		return "", ErrFencingUnavailable
	}
	if strings.TrimSpace(e.Device) == "" || strings.TrimSpace(e.EnvironmentID) == "" {
		return "", fmt.Errorf("%w: device and environment are required", ErrInvalidConfig)
	}
	f := m.fenceState()
	for _, r := range f.recs {
		if !r.State.Terminal() && r.EnvironmentID == e.EnvironmentID {
			return "", ErrSuspensionConflict
		}
	}
	c, err := m.fenceConn(e.Device)
	if err != nil {
		return "", err
	}
	seq := uint64(len(f.recs)) + 1
	rec := &SuspensionRecord{ID: fmt.Sprintf("sus-%d", seq), Seq: seq, EnvironmentID: e.EnvironmentID,
		Device: e.Device, State: SuspensionQuiescing}
	f.recs[rec.ID] = rec
	q := wire.EnvironmentQuiesce{EnvironmentID: rec.EnvironmentID, SuspendID: rec.ID}
	m.sendFence(c, rec, &fenceReq{suspend: rec.ID, conn: c.id, quiesce: true, q: q})
	return rec.ID, nil
}

func (m *Machine) resumeEnvironment(e ResumeEnvironment) error {
	if _, ok := m.fenceStore(); !ok {
		return ErrFencingUnavailable
	}
	f := m.fenceState()
	rec := f.recs[e.SuspendID]
	switch {
	case rec == nil:
		return ErrUnknownSuspension
	case rec.State.Terminal():
		return ErrSuspensionTerminal
	case rec.State == SuspensionQuiescing || rec.State == SuspensionResuming:
		return ErrSuspensionPending
	}
	c, err := m.fenceConn(rec.Device)
	if err != nil {
		return err
	}
	rollback := e.Rollback || rec.State == SuspensionQuiesceUnknown || rec.State == SuspensionResumeUnknown
	prior := rec.State
	rec.State, rec.Rollback = SuspensionResuming, rollback
	r := wire.EnvironmentResume{EnvironmentID: rec.EnvironmentID, SuspendID: rec.ID, Rollback: rollback}
	m.sendFence(c, rec, &fenceReq{suspend: rec.ID, conn: c.id, prior: prior, r: r})
	return nil
}

// sendFence records the attempt durably, then sends it and arms its
// reply timer.
func (m *Machine) sendFence(c *conn, rec *SuspensionRecord, req *fenceReq) {
	rec.Attempts++
	step := "r"
	var p wire.Payload = req.r
	if req.quiesce {
		step, p = "q", req.q
	}
	id := fmt.Sprintf("%s.%s%d", rec.ID, step, rec.Attempts)
	assert.That(wire.Validate(p) == nil, "fencing request %s without both IDs", id)
	m.putSuspension(rec)
	m.fenceState().reqs[id] = req
	m.send(c.id, id, p)
	m.setTimer(timerID(timerFenceReply, id), m.now.Add(suspensionReplyTimeout))
}

// onFenceReply reads environment_quiesced / environment_resumed.
func (m *Machine) onFenceReply(c *conn, id string, p wire.Payload) {
	f := m.fenceState()
	req := f.reqs[id]
	if req == nil || req.conn != c.id {
		return // unknown, stale or foreign: proves nothing
	}
	accepted, code, ok := false, "", false
	switch r := p.(type) {
	case wire.EnvironmentQuiesced:
		ok = req.quiesce && r.ValidateAgainst(req.q) == nil
		accepted, code = r.Accepted, r.ErrorCode
	case wire.EnvironmentResumed:
		ok = !req.quiesce && r.ValidateAgainst(req.r) == nil
		accepted, code = r.Accepted, r.ErrorCode
	}
	if !ok {
		return // wrong type or IDs not echoed: keep waiting
	}
	delete(f.reqs, id)
	m.cancelTimer(timerID(timerFenceReply, id))
	rec := f.recs[req.suspend]
	switch {
	case req.quiesce && accepted:
		rec.State, rec.ErrorCode = SuspensionQuiesced, ""
	case req.quiesce:
		rec.State, rec.ErrorCode = SuspensionRefused, code
	case accepted:
		rec.State, rec.ErrorCode = SuspensionResumed, ""
	default:
		rec.State, rec.ErrorCode = req.prior, code
	}
	m.putSuspension(rec)
}

// fenceUnknown ends a request without a reply: its outcome is unknown.
func (m *Machine) fenceUnknown(id string) {
	f := m.fenceState()
	req := f.reqs[id]
	if req == nil {
		return
	}
	delete(f.reqs, id)
	m.cancelTimer(timerID(timerFenceReply, id))
	rec := f.recs[req.suspend]
	rec.State = SuspensionResumeUnknown
	if req.quiesce {
		rec.State = SuspensionQuiesceUnknown
	}
	m.putSuspension(rec)
}

// fenceConnLost makes every request in flight on c unknown.
func (m *Machine) fenceConnLost(c *conn) {
	if m.fence == nil {
		return
	}
	var ids []string
	for id, r := range m.fence.reqs {
		if r.conn == c.id {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		m.fenceUnknown(id)
	}
}

// restartFencing: requests in flight when Core stopped have unknown
// outcomes; their records say so durably before anything else runs.
func (m *Machine) restartFencing() {
	f := m.fenceState()
	ids := make([]string, 0, len(f.recs))
	for id := range f.recs {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return compareSeq(f.recs[a].Seq, f.recs[b].Seq) })
	for _, id := range ids {
		rec := f.recs[id]
		switch rec.State {
		case SuspensionQuiescing:
			rec.State = SuspensionQuiesceUnknown
		case SuspensionResuming:
			rec.State = SuspensionResumeUnknown
		default:
			continue
		}
		m.putSuspension(rec)
	}
}

// deviceFenced reports whether device has an unresolved suspension; device
// selection skips it.
func (m *Machine) deviceFenced(device string) bool {
	if m.fence == nil {
		return false
	}
	for _, r := range m.fence.recs {
		if r.Device == device && !r.State.Terminal() {
			return true
		}
	}
	return false
}

// checkFencing asserts the fencing invariants and returns the number of
// requests in flight (each holds one reply timer).
func (m *Machine) checkFencing() int {
	if m.fence == nil {
		return 0
	}
	perConn := map[ConnID]int{}
	for id, req := range m.fence.reqs {
		rec := m.fence.recs[req.suspend]
		want := SuspensionResuming
		if req.quiesce {
			want = SuspensionQuiescing
		}
		if !(rec != nil && rec.State == want) {
			panicf("fencing request %s for a suspension not %s", id, want)
		}
		if !(m.conns[req.conn] != nil && m.armed(timerID(timerFenceReply, id))) {
			panicf("fencing request %s without its connection or reply timer", id)
		}
		perConn[req.conn]++
		if !(perConn[req.conn] <= suspensionsInFlightMax) {
			panicf("%s holds %d fencing requests", req.conn, perConn[req.conn])
		}
	}
	return len(m.fence.reqs)
}

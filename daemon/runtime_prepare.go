package daemon

import (
	"fmt"
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// Runtime preparation transfers (wire-reference §3.2). Core drives one
// transfer per connection, one frame in flight: begin → ready, each chunk
// → received with the new end offset, commit → completed with the total
// size; initialize and finalize carry no body (begin → ready, commit →
// completed). The machine checks the protocol (order, offsets, sizes, one
// frame in flight) and hands the bytes to the installer through native
// calls: StageChunk appends confirmed bytes to the transfer's staging,
// InstallTransfer verifies size and SHA-256 and installs (or runs the
// initialization), DiscardTransfer drops staging that will never be
// committed. `received` confirms staging only; `completed` confirms the
// operation, never a later Turn.
//
// A protocol violation rejects the step (invalid_request) and abandons the
// transfer; a digest or size mismatch rejects the commit
// (runtime_preparation_rejected) and nothing is installed; a failed stage
// or installation is failed (runtime_preparation_failed, with the setup
// command's exit code); an installation whose outcome the installer could
// not confirm is unknown (runtime_preparation_unconfirmed). A transfer
// belongs to its connection: a reconnect starts from nothing, and staging
// of a lost connection is discarded once no call on it is outstanding.
// While quiesced or shutting down, begin is refused resource_unavailable.
// A transfer whose commit has not arrived within Limits.PrepareExpiry
// (195 s, Core's whole exchange) of its begin is dropped and refused
// invalid_request at that instant: Core gave up on it by then and holds
// its connection closed to new transfers until the Runtime's terminal
// result for it arrives, so the Runtime never keeps one open forever.
// While an installation runs, a new executor's native Prepare waits for it
// (prepare_hold.go).
//
// Installed capabilities form the Runtime's snapshot, which lasts until
// the Environment is reclaimed: executor closes and reconnects keep it.

// StageChunk appends Data at Offset to Transfer's staging. Result:
// StageResult.
type StageChunk struct {
	Transfer string
	Offset   int64
	Data     []byte
}

// InstallTransfer verifies Transfer's staged bytes against Header's size
// and digest and installs them, or runs Header's initialization or
// finalization. Result: InstallResult.
type InstallTransfer struct {
	Transfer string
	Header   wire.RuntimePrepare
}

// DiscardTransfer drops Transfer's staging. Result: DiscardResult.
type DiscardTransfer struct{ Transfer string }

func (StageChunk) isOp()      {}
func (InstallTransfer) isOp() {}
func (DiscardTransfer) isOp() {}

func (o StageChunk) Describe() string {
	return fmt.Sprintf("stage-chunk transfer=%s offset=%d bytes=%d", o.Transfer, o.Offset, len(o.Data))
}
func (o InstallTransfer) Describe() string {
	return fmt.Sprintf("install transfer=%s action=%s size=%d", o.Transfer, o.Header.Action, o.Header.SizeBytes)
}
func (o DiscardTransfer) Describe() string { return "discard-transfer transfer=" + o.Transfer }

// StageResult: Err set means the bytes are not staged.
type StageResult struct{ Err string }

// InstallOutcome classifies an installation.
type InstallOutcome uint8

const (
	InstallCompleted InstallOutcome = iota + 1 // verified and installed (or ran with exit code 0)
	InstallMismatch                            // size or digest mismatch: nothing installed
	InstallFailed                              // definitely failed; nothing installed
	InstallUnknown                             // may or may not have been installed
)

var installOutcomeNames = [...]string{"invalid", "completed", "mismatch", "failed", "unknown"}

func (o InstallOutcome) String() string {
	if int(o) < len(installOutcomeNames) {
		return installOutcomeNames[o]
	}
	return "invalid"
}

// InstallResult reports InstallTransfer. ExitCode is the setup command's
// exit status (0..255) when Outcome is InstallFailed.
type InstallResult struct {
	Outcome  InstallOutcome
	ExitCode int
	Err      string
}

// DiscardResult reports DiscardTransfer.
type DiscardResult struct{ Err string }

func (StageResult) isResult()   {}
func (InstallResult) isResult() {}
func (DiscardResult) isResult() {}

func (r StageResult) Describe() string { return fmt.Sprintf("stage err=%q", r.Err) }
func (r InstallResult) Describe() string {
	return fmt.Sprintf("install outcome=%s exit=%d err=%q", r.Outcome, r.ExitCode, r.Err)
}
func (r DiscardResult) Describe() string { return fmt.Sprintf("discard err=%q", r.Err) }

// Installed is one capability of the installed snapshot.
type Installed struct {
	Action string // skill, plugin, file, initialize, finalize
	Name   string // skill or plugin name, file path, initialization action
}

// prepTransfer is the connection's runtime_prepare transfer.
type prepTransfer struct {
	id     string // Envelope ID
	op     string // installer identity: g<gen>/<id>
	gen    ConnID
	header wire.RuntimePrepare
	size   int64 // declared body size (0 without body)
	offset int64 // bytes staged and confirmed
	call   CallID
	chunk  int64 // length of the chunk being staged
	// installing: call is the InstallTransfer (prepare_hold.go)
	installing bool
}

// transfers is the machine's transfer state beyond the connection.
type transfers struct {
	orphans   map[string]*prepTransfer // lost with their connection, a call still outstanding
	installed []Installed
	held      []heldPrepare // native Prepares waiting for installations (prepare_hold.go)
}

// installedSnapshot returns the installed capabilities, in install order.
func (m *Machine) installedSnapshot() []Installed {
	return append([]Installed(nil), m.xfer.installed...)
}

// environmentPreparing reports whether a runtime preparation of env is
// in progress: the connection's transfer from its begin to its terminal
// result, or an installation a lost connection left outstanding. An
// execution_prepare bound to env is then refused resource_unavailable
// (wire-reference §3.3); "" (environment none) is never prepared.
func (m *Machine) environmentPreparing(env string) bool {
	if env == "" {
		return false
	}
	if t := m.conn.transfer; t != nil && t.header.EnvironmentID == env {
		return true
	}
	for _, t := range m.xfer.orphans { //tidy:sorted any-match only
		if t.installing && t.header.EnvironmentID == env {
			return true
		}
	}
	return false
}

func (m *Machine) transferActive() bool { return m.conn.transfer != nil || len(m.xfer.orphans) > 0 }

func hasBody(action string) bool {
	return action == wire.PrepareActionSkill || action == wire.PrepareActionPlugin || action == wire.PrepareActionFile
}

func (m *Machine) sendTransfer(gen ConnID, id string, r wire.RuntimePrepareResult) {
	m.send(gen, wire.Frame{ID: id, Payload: r}, m.cfg.Limits.ReceiptSendBudget)
}

func refused(code string) wire.RuntimePrepareResult {
	out := wire.RuntimePrepareResult{Outcome: wire.OutcomeRejected, ErrorCode: code}
	switch code {
	case wire.TransferFailed:
		out.Outcome = wire.OutcomeFailed
	case wire.TransferUnconfirmed:
		out.Outcome = wire.OutcomeUnknown
	}
	return out
}

func (m *Machine) onRuntimePrepare(id string, p wire.RuntimePrepare) {
	if id == "" {
		return // nothing to answer on
	}
	gen, t := m.conn.gen, m.conn.transfer
	if t != nil && t.id != id {
		t = nil // another transfer's step: the active one is untouched
	}
	violation := func() {
		if t != nil {
			m.abandonTransfer(t)
		}
		m.sendTransfer(gen, id, refused(wire.TransferInvalidRequest))
	}
	if p.Validate() != nil {
		violation()
		return
	}
	switch p.Step {
	case wire.StepBegin:
		m.beginTransfer(id, p)
	case wire.StepChunk:
		if t == nil || t.call != "" || !hasBody(t.header.Action) || p.Offset != t.offset ||
			p.Offset+int64(len(p.Data)) > t.size {
			violation()
			return
		}
		t.chunk = int64(len(p.Data))
		t.call = m.transferCall(callStage, t, StageChunk{Transfer: t.op, Offset: p.Offset, Data: p.Data})
	case wire.StepCommit:
		if t == nil || t.call != "" || t.offset != t.size {
			violation()
			return
		}
		m.cancelTimer(prepareTimer(t.gen, t.id))
		t.call = m.transferCall(callInstall, t, InstallTransfer{Transfer: t.op, Header: t.header})
		t.installing = true
	}
}

func (m *Machine) beginTransfer(id string, p wire.RuntimePrepare) {
	gen := m.conn.gen
	switch {
	case m.conn.transfer != nil:
		m.sendTransfer(gen, id, refused(wire.TransferCapacity))
		return
	case m.shutdown || m.quiesced():
		m.sendTransfer(gen, id, refused(wire.TransferResourceUnavail))
		return
	}
	t := &prepTransfer{id: id, op: "g" + strconv.FormatUint(uint64(gen), 10) + "/" + id, gen: gen, header: p}
	if hasBody(p.Action) {
		t.size = p.SizeBytes
	}
	m.conn.transfer = t
	m.setTimer(prepareTimer(gen, id), &timer{kind: timerPrepareExpiry, at: m.now.Add(m.cfg.Limits.PrepareExpiry),
		gen: gen, input: id})
	m.sendTransfer(gen, id, wire.RuntimePrepareResult{Outcome: wire.OutcomeReady})
}

func prepareTimer(gen ConnID, id string) TimerID {
	return TimerID("prepare/g" + strconv.FormatUint(uint64(gen), 10) + "/" + id)
}

// prepareExpired drops a transfer whose commit did not arrive within
// PrepareExpiry of its begin and refuses it invalid_request now, a chunk
// still staging or not (its staging is discarded when the call returns).
// Core has given up by then; the refusal is the terminal result that
// frees its connection for the next transfer.
func (m *Machine) prepareExpired(gen ConnID, id string) {
	t := m.conn.transfer
	if t == nil || t.gen != gen || t.id != id || t.installing {
		return
	}
	m.abandonTransfer(t)
	m.sendTransfer(gen, id, refused(wire.TransferInvalidRequest))
}

func (m *Machine) transferCall(kind callKind, t *prepTransfer, op Op) CallID {
	c := &call{kind: kind, staged: t.op}
	m.nativeCall(c, op)
	return c.id
}

// abandonTransfer ends t without completion; its staging is discarded
// now, or when its outstanding call returns.
func (m *Machine) abandonTransfer(t *prepTransfer) {
	if m.conn.transfer == t {
		m.conn.transfer = nil
	}
	m.cancelTimer(prepareTimer(t.gen, t.id))
	if t.call != "" {
		if m.xfer.orphans == nil {
			m.xfer.orphans = map[string]*prepTransfer{}
		}
		m.xfer.orphans[t.op] = t
		return
	}
	if hasBody(t.header.Action) {
		m.transferCall(callDiscard, t, DiscardTransfer{Transfer: t.op})
	}
}

// lookupTransfer finds the transfer a call belongs to: the connection's
// own or an orphan.
func (m *Machine) lookupTransfer(c *call) (*prepTransfer, bool) {
	if t := m.conn.transfer; t != nil && t.op == c.staged && t.call == c.id {
		return t, false
	}
	if t := m.xfer.orphans[c.staged]; t != nil && t.call == c.id {
		return t, true
	}
	return nil, false
}

func (m *Machine) stageDone(c *call, r StageResult) {
	t, orphan := m.lookupTransfer(c)
	if t == nil {
		return
	}
	t.call = ""
	if orphan {
		delete(m.xfer.orphans, t.op)
		m.transferCall(callDiscard, t, DiscardTransfer{Transfer: t.op})
		return
	}
	if r.Err != "" {
		m.abandonTransfer(t)
		m.sendTransfer(t.gen, t.id, refused(wire.TransferFailed))
		return
	}
	t.offset += t.chunk
	t.chunk = 0
	m.sendTransfer(t.gen, t.id, wire.RuntimePrepareResult{Outcome: wire.OutcomeReceived, Offset: t.offset})
}

func (m *Machine) installDone(c *call, r InstallResult) {
	t, orphan := m.lookupTransfer(c)
	if t == nil {
		return
	}
	t.call, t.installing = "", false
	if orphan {
		delete(m.xfer.orphans, t.op)
	} else {
		m.conn.transfer = nil
	}
	defer m.releaseHeld()
	var reply wire.RuntimePrepareResult
	switch r.Outcome {
	case InstallCompleted:
		m.xfer.installed = append(m.xfer.installed, installedOf(t.header))
		reply = wire.RuntimePrepareResult{Outcome: wire.OutcomeCompleted, SizeBytes: t.size}
	case InstallMismatch:
		reply = refused(wire.TransferRejected)
	case InstallFailed:
		reply = refused(wire.TransferFailed)
		if r.ExitCode > 0 && r.ExitCode <= 255 {
			reply.ExitCode = r.ExitCode
		}
	default:
		reply = refused(wire.TransferUnconfirmed)
	}
	if !orphan {
		m.sendTransfer(t.gen, t.id, reply)
	}
}

func installedOf(h wire.RuntimePrepare) Installed {
	in := Installed{Action: h.Action}
	switch {
	case h.Skill != nil:
		in.Name = h.Skill.Name
	case h.Plugin != nil:
		in.Name = h.Plugin.Name
	case h.File != nil:
		in.Name = h.File.Path
	case h.Initialization != nil:
		in.Name = h.Initialization.Action
	}
	return in
}

// transferConnLost abandons the connection's transfer: a reconnect never
// resumes or replays it.
func (m *Machine) transferConnLost() {
	if t := m.conn.transfer; t != nil {
		m.abandonTransfer(t)
	}
}

package daemon

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// WorkspaceConfig configures the workspace family (wire-reference
// §3.9–§3.11). Reads and exports are qualified per kind by its
// declaration (workspace_read_preparation, workspace_output_export);
// writes have no kind, so the daemon states whether its bound local
// workspace owner installs files.
type WorkspaceConfig struct {
	// Writes: workspace_write is served (otherwise write_unsupported).
	Writes bool
	// ReadsInFlightMax bounds dispatched reads per connection (default 4,
	// Core's own bound); more are refused with read_capacity.
	ReadsInFlightMax int
	// TransferExpiry bounds a write transfer from begin to commit
	// (default 195 s, Core's wait for the whole write); an expired
	// transfer never reaches the installer.
	TransferExpiry time.Duration
}

// Workspace defaults.
const (
	DefaultReadsInFlightMax = 4
	DefaultTransferExpiry   = 195 * time.Second
)

func (c *WorkspaceConfig) withDefaults() {
	fillInt(&c.ReadsInFlightMax, DefaultReadsInFlightMax)
	fillDur(&c.TransferExpiry, DefaultTransferExpiry)
}

func (c WorkspaceConfig) validate() error {
	if c.ReadsInFlightMax < 0 || c.TransferExpiry < 0 {
		return fmt.Errorf("%w: negative workspace limit", ErrInvalidConfig)
	}
	return nil
}

// Workspace codes the machine answers beyond the preparation table.
const (
	CodeReadOnlyPreparation = wire.PrepReadOnlyPreparation
	CodeCleanupUnconfirmed  = "cleanup_unconfirmed"
	CodeExportFailed        = "export_failed"
)

// workspace is the machine's workspace state: read-only profiles (they
// outlive connections until their close is confirmed), owners whose read
// was ambiguous, and the current connection's reads, write and export.
type workspace struct {
	readers   map[string]*reader
	seqReader uint64
	reads     map[string]*pendingRead // current connection, by operation ID
	write     *transfer               // current connection's write
	applying  map[string]int          // Environments with a native write outstanding
	export    *exportStream           // current connection's export
}

func newWorkspace() workspace {
	return workspace{readers: map[string]*reader{}, reads: map[string]*pendingRead{}, applying: map[string]int{}}
}

// reader is one read-only preparation profile's local resource. It counts
// as an active preparation until its close is confirmed.
type reader struct {
	id            string
	seq           uint64
	handle        string // admission on the current connection; "" once it ended
	gen           ConnID
	session       string
	env           string
	caps          wire.AgentKindCapabilities
	open          bool // the open succeeded (or left a resource)
	opening       bool // the native open is outstanding
	ops           int  // native reads and exports outstanding
	blocked       bool // an ambiguous read stopped later reads
	releasing     bool // execution_release asked: publish released on a confirmed close
	closeWanted   bool // close once ops drain
	closeCall     CallID
	closeFailed   bool
	closeAttempts int
}

func (m *Machine) mintReader() *reader {
	m.ws.seqReader++
	r := &reader{id: "rd-" + strconv.FormatUint(m.ws.seqReader, 10), seq: m.ws.seqReader}
	m.ws.readers[r.id] = r
	return r
}

func readerCloseRetryTimer(id string) TimerID { return TimerID("reader-close-retry/" + id) }
func transferTimer(gen ConnID, id string) TimerID {
	return TimerID("transfer/g" + strconv.FormatUint(uint64(gen), 10) + "/" + id)
}

// workspaceConnected resets the connection-local workspace state. Native
// reads, writes and exports of the old connection keep running; their
// answers are dropped (they are never sent on or replayed to a later
// connection), and a native write still outstanding keeps excluding
// execution of its Session.
func (m *Machine) workspaceConnected() {
	if t := m.ws.write; t != nil {
		m.cancelTimer(transferTimer(t.gen, t.id))
	}
	m.ws.reads = map[string]*pendingRead{}
	m.ws.write = nil
	m.ws.export = nil
}

// workspaceBusy reports whether a write or export in progress excludes
// execution in Environment env: a transfer being received, a native write
// being applied, or an export of its workspace.
func (m *Machine) workspaceBusy(env string) bool {
	if env == "" {
		return false
	}
	if m.ws.applying[env] > 0 {
		return true
	}
	if t := m.ws.write; t != nil && t.begin.EnvironmentID == env {
		return true
	}
	if e := m.ws.export; e != nil && e.env == env {
		return true
	}
	return false
}

// workspaceCall routes a native result of the workspace family.
func (m *Machine) workspaceCall(c *call, res Result) {
	switch c.kind {
	case callOpenWorkspace:
		m.openDone(c, resultAs[OpenWorkspaceResult](c, res))
	case callCloseWorkspace:
		m.readerCloseDone(c, resultAs[CloseResult](c, res))
	case callReadWorkspace:
		m.readDone(c, resultAs[ReadWorkspaceResult](c, res))
	case callWriteWorkspace:
		m.writeFileDone(c, resultAs[WriteWorkspaceResult](c, res))
	case callExportWorkspace:
		m.exportDone(c, resultAs[ExportWorkspaceResult](c, res))
	default:
		panicf("native result for call %s of unknown kind %d", c.id, c.kind)
	}
}

// workspaceTimer handles a timer of the workspace family.
func (m *Machine) workspaceTimer(t *timer) {
	switch t.kind {
	case timerReaderCloseRetry:
		if r := m.ws.readers[t.handle]; r != nil && r.closeCall == "" {
			m.issueReaderClose(r)
		}
	case timerTransfer:
		m.transferExpired(t.gen, t.input)
	case timerPrepareExpiry:
		m.prepareExpired(t.gen, t.input)
	default:
		panicf("timer of unknown kind %d", t.kind)
	}
}

// ownedReaders lists the readers still owned, sorted, for Owned.
func (m *Machine) ownedReaders() []Resource {
	var out []Resource
	for _, r := range m.sortedReaders() {
		state := "open"
		switch {
		case r.opening:
			state = "opening"
		case r.closeCall != "" || r.closeWanted:
			state = "closing"
		}
		if r.closeFailed {
			state += ",close-failed"
		}
		out = append(out, Resource{Kind: "reader", ID: r.id, State: state})
	}
	return out
}

func (m *Machine) sortedReaders() []*reader {
	out := make([]*reader, 0, len(m.ws.readers))
	for _, r := range m.ws.readers {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *reader) int { return int(a.seq) - int(b.seq) })
	return out
}

// checkWorkspace holds the workspace invariants.
func (m *Machine) checkWorkspace() {
	for _, r := range m.ws.readers {
		if !(r.ops >= 0) {
			panicf("reader %s with %d operations", r.id, r.ops)
		}
		if r.handle != "" {
			a := m.admissionOf(r.handle)
			if !(a != nil && a.reader == r.id && a.live()) {
				panicf("reader %s bound to handle %s that is not its live admission", r.id, r.handle)
			}
		}
		_, retry := m.timers[readerCloseRetryTimer(r.id)]
		if !(r.closeCall == "" || !retry) {
			panicf("reader %s has both a close call and a retry", r.id)
		}
	}
	if !(len(m.ws.reads) <= m.cfg.Workspace.ReadsInFlightMax) {
		panicf("reads in flight %d exceed %d", len(m.ws.reads), m.cfg.Workspace.ReadsInFlightMax)
	}
	for env, n := range m.ws.applying {
		if !(n > 0) {
			panicf("environment %s applying %d writes", env, n)
		}
	}
}

// environmentOf is the frozen Environment identity of a configuration.
func environmentOf(c wire.ExecutionConfiguration) string {
	if c.LocalEnvironment == nil {
		return ""
	}
	return c.LocalEnvironment.ID
}

// workspaceFrameRejected answers an undecodable workspace request that
// carries an ID with its family's invalid_request (a transfer of that ID
// is dropped); other types are not the workspace family's.
func (m *Machine) workspaceFrameRejected(typ, id string) {
	switch typ {
	case wire.TypeWorkspaceRead:
		if m.ws.reads[id] == nil {
			m.readRejected(id, wire.ReadInvalidRequest)
		}
	case wire.TypeWorkspaceWrite:
		if t := m.ws.write; t != nil && t.id == id {
			m.dropTransfer(t)
		}
		m.writeRefused(id, wire.WriteInvalidRequest)
	case wire.TypeWorkspaceExport:
		if x := m.ws.export; x != nil && x.id == id {
			m.endExport(x)
		}
		m.exportRefused(id, 0, wire.ReadInvalidRequest)
	}
}

package check

import (
	"archive/tar"
	"bytes"
	"cmp"
	"errors"
	"io"
	"maps"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Checks: workspace_export, workspace_export_cancel_budget (wire
// reference §3.11 step 4, §6.2) and workspace_export_stopped, judged at
// the begin plus Core's export wait (rules.go).
const (
	CheckWorkspaceExport    = "workspace_export"
	CheckExportCancelBudget = "workspace_export_cancel_budget"
	CheckExportStopped      = "workspace_export_stopped"
)

const (
	MarkExportCompleted        Mark = "workspace_export_completed"           // an export answered completed with its archive
	MarkExportCancelled        Mark = "workspace_export_cancelled"           // Core sent cancel for an export it stopped early
	MarkExportChunked          Mark = "workspace_export_chunked"             // a completed export spanned more than one chunk
	MarkExportConnBusyRefused  Mark = "workspace_export_conn_busy_refused"   // Core refused an export ExportRefusedConnBusy (workspace_one_per_conn)
	MarkExportCancelDropped    Mark = "workspace_export_cancel_dropped"      // an export cancel dropped unwritten, its 2 s budget spent behind a stalled link
	MarkExportCancelHeldInTime Mark = "workspace_export_cancel_held_in_time" // an export cancel held by a stalled link reached the daemon within its budget
)

// ExportRefusedConnBusy is the Code of an export Core refused because
// every admissible connection had its export in flight.
const ExportRefusedConnBusy = "conn_busy"

// WorkspaceExportOp is one export through Core's API.
type WorkspaceExportOp struct {
	Call, Return int64
	Session, Env string
	Outcome      string // completed, unavailable, refused, lost
	Code         string
	Archive      []byte
}

type nativeExport struct {
	at          int64
	reader, env string
	archive     []byte
	files       map[string]string
}

// exportWire is one export's exchange as the wire shows it.
type exportWire struct {
	received  int64 // chunk bytes delivered to Core
	sent      int64 // chunk bytes the daemon sent
	cancelled bool
	conn      uint64
	ended     bool // an answer ending it reached Core, or its connection ended
	// awaiting: Core asked (begin or next) and no chunk answered it yet;
	// completed: a completed Core accepts reached it (awaited, at the
	// bytes received, no data, no code): the export finished, not stopped
	awaiting, completed bool
	// the cancel Core sent: when, and its bytes' identity (0, nil: none)
	cancelAt  int64
	cancelRaw *byte
	answered  bool // a forged answer ending it reached Core
	waitEnd   int64
}

// judgeOneExportPerConn: Core begins export id on ev's connection; no
// other export may be in flight there (workspace_one_per_conn,
// workspace_wire.go).
func (l *Ledger) judgeOneExportPerConn(ev WireEvent, id string) {
	for _, k := range sortedKeys(l.ws.exportsOnWire) {
		if x := l.ws.exportsOnWire[k]; x.conn == ev.Conn && !x.ended && !x.answered && !x.cancelled && ev.At < x.waitEnd {
			l.violate(ev.At, CheckWorkspaceOnePerConn, "Core begins export %s on %s while its export %s is in flight there", id, connKey(ev.Conn), k)
			return
		}
	}
}

// ExportCancelBudget is the documents' bound on the export cancel's
// send (wire reference §6.2: "its cancel send | 2 s").
const ExportCancelBudget = 2 * time.Second

// exportDue judges export id once Core's export wait after its begin
// has passed.
func (l *Ledger) exportDue(id string, x *exportWire) {
	if !x.ended && !x.cancelled && !l.failover.zombieConn(x.conn) { // a zombie Core sends nothing
		l.violate(x.waitEnd, CheckExportStopped, "export %s is still open at %s, %s after Core began it, and Core sent no cancel: "+
			"its export wait has ended", id, vtime(x.waitEnd), DocumentedTimer(TimerWorkspaceExport))
	}
}

// exportsClosed ends the exports of a connection that ended (0: of
// every connection, Core died).
func (l *Ledger) exportsClosed(conn uint64) {
	for _, x := range l.ws.exportsOnWire { //tidy:sorted each entry is set alone
		if x.conn == conn || conn == 0 {
			x.ended = true
		}
	}
}

// WorkspaceExported records a native export.
func (l *Ledger) WorkspaceExported(at int64, device, reader, env string, archive []byte, files map[string]string) {
	l.ws.exports = append(l.ws.exports, nativeExport{at: at, reader: pairKey(device, reader), env: env,
		archive: bytes.Clone(archive), files: files})
}

// WorkspaceExportCalled records an export the workload made; a completed
// answer must be one native export's archive.
func (l *Ledger) WorkspaceExportCalled(op WorkspaceExportOp) {
	l.checkWorkspaceWait("export of session "+op.Session, op.Call, op.Return, op.Outcome, op.Code, TimerWorkspaceExport)
	if op.Outcome == "refused" && op.Code == ExportRefusedConnBusy {
		l.reach(MarkExportConnBusyRefused)
	}
	if op.Outcome != "completed" {
		return
	}
	files, err := untar(op.Archive)
	if err != nil {
		l.violate(op.Return, CheckWorkspaceExport, "export of session %s answered an archive that is no tar stream: %v", op.Session, err)
		return
	}
	for _, n := range l.ws.exports {
		if c, ok := l.ws.closed[n.reader]; n.env != op.Env || n.at < op.Call || n.at > op.Return ||
			!bytes.Equal(n.archive, op.Archive) || l.ws.opened[n.reader] != op.Session || !ok || c > op.Return {
			continue
		}
		if !maps.Equal(files, n.files) {
			l.violate(op.Return, CheckWorkspaceExport, "export of session %s: the archive does not hold the tree of its native export at %s",
				op.Session, vtime(n.at))
		}
		l.ws.exported = append(l.ws.exported, exportedTree{op: op, files: files})
		l.reach(MarkExportCompleted)
		if len(op.Archive) > wire.ChunkBytesMax {
			l.reach(MarkExportChunked)
		}
		return
	}
	l.violate(op.Return, CheckWorkspaceExport, "export of session %s answered %d bytes: no native export in [%s, %s] "+
		"produced them with its profile closed before the answer", op.Session, len(op.Archive), vtime(op.Call), vtime(op.Return))
}

// exportedTree is a completed export with the files its archive holds.
type exportedTree struct {
	op    WorkspaceExportOp
	files map[string]string
}

// untar reads a tar stream of regular files.
func untar(b []byte) (map[string]string, error) {
	out := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			return nil, errors.New("entry " + h.Name + " is not a regular file")
		}
		if _, dup := out[h.Name]; dup {
			return nil, errors.New("entry " + h.Name + " twice")
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out[h.Name] = string(body)
	}
}

// observeExport judges one export frame: chunks sent in order from 0,
// each next of Core at exactly the chunk bytes delivered to it, none after
// Core's cancel.
func (l *Ledger) observeExport(ev WireEvent) {
	id := ev.Frame.ID
	k := connFrameKey(ev.Conn, id) // a restarted Core numbers its exports afresh
	x := l.ws.exportsOnWire[k]
	switch p := ev.Frame.Payload.(type) {
	case wire.WorkspaceExport:
		switch {
		case ev.Kind != WireSent || ev.From != CoreNode:
		case p.Step == wire.StepBegin && x == nil:
			l.judgeOneExportPerConn(ev, id)
			x = &exportWire{conn: ev.Conn, awaiting: true, waitEnd: ev.At + int64(DocumentedTimer(TimerWorkspaceExport))}
			made(&l.ws.exportsOnWire)[k] = x
			l.arm(x.waitEnd, func() { l.exportDue(id, x) })
		case x == nil && p.Step == wire.StepCancel:
			l.violate(ev.At, CheckExportCancelBudget, "export %s: Core sent cancel on conn %s, where it began no such export", id, connKey(ev.Conn))
		case x == nil:
		case p.Step == wire.StepCancel && !x.cancelled:
			x.cancelled = true
			l.reach(MarkExportCancelled)
			if x.completed {
				l.violate(ev.At, CheckExportCancelBudget, "export %s: Core sent cancel after a completed it accepts reached it: it stopped nothing early", id)
			}
			if len(ev.Raw) > 0 {
				x.cancelAt, x.cancelRaw = ev.At, &ev.Raw[0]
			}
		case p.Step == wire.StepNext && x.cancelled:
			l.violate(ev.At, CheckWorkspaceExport, "export %s: Core sent next after its cancel", id)
		case p.Step == wire.StepNext && p.Offset != x.received:
			l.violate(ev.At, CheckWorkspaceExport, "export %s: Core asked for offset %d after receiving %d chunk bytes", id, p.Offset, x.received)
		case p.Step == wire.StepNext:
			x.awaiting = true
		}
		if x != nil && x.cancelRaw != nil && len(ev.Raw) > 0 && &ev.Raw[0] == x.cancelRaw && ev.To != CoreNode {
			l.exportCancelArrived(ev, x)
		}
	case wire.WorkspaceExportResult:
		switch {
		case x == nil || p.Outcome != wire.OutcomeChunk:
		case ev.Kind == WireSent && ev.To == CoreNode:
			if p.Offset != x.sent {
				l.violate(ev.At, CheckWorkspaceExport, "export %s: the daemon sent a chunk at offset %d after sending %d bytes", id, p.Offset, x.sent)
			}
			x.sent = p.Offset + int64(len(p.Data))
		case ev.Kind == WireDelivered && ev.To == CoreNode:
			x.received += int64(len(p.Data))
			x.awaiting = false
		}
		if x != nil && ev.Kind == WireDelivered && ev.To == CoreNode && p.Outcome != wire.OutcomeChunk {
			x.ended = true
			if p.Outcome == wire.OutcomeCompleted && x.awaiting && !x.cancelled && p.Offset == x.received && len(p.Data) == 0 && p.ErrorCode == "" {
				x.completed = true
			}
		}
	}
}

// exportCancelArrived judges what became of Core's cancel of export x:
// delivered to the daemon within its budget plus the connection's
// latency, or dropped by the sending end (never written).
func (l *Ledger) exportCancelArrived(ev WireEvent, x *exportWire) {
	switch ev.Kind {
	case WireDropped:
		l.reach(MarkExportCancelDropped)
	case WireDelivered:
		lat := cmp.Or(l.budget.conns[ev.Conn], &budgetConn{}).latency()
		if lat < 0 {
			return // its latency is not known
		}
		deadline := x.cancelAt + int64(ExportCancelBudget)
		if ev.At >= deadline+lat {
			l.violate(ev.At, CheckExportCancelBudget, "export %s: Core's cancel sent at %s reached the daemon at %s, past its %s best-effort budget plus the %s latency: "+
				"a cancel that cannot leave within its budget is dropped, not written late", ev.Frame.ID, vtime(x.cancelAt), vtime(ev.At), ExportCancelBudget, vtime(lat))
		}
		if ev.At > x.cancelAt+lat+int64(time.Second)/2 && ev.At < deadline+lat {
			l.reach(MarkExportCancelHeldInTime)
		}
	}
}

package core

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// ExportChunk hands one chunk of a streamed export (ExportWorkspace with
// Stream) to its caller: Data is the archive's bytes from Offset. The
// export pulls nothing more until the caller answers ExportChunkTaken.
// The chunks of one export are contiguous and in order; the archive is
// complete only when the call's APIResult says completed.
type ExportChunk struct {
	Call   CallID
	Offset int64
	Data   []byte
}

func (ExportChunk) isEffect() {}
func (e ExportChunk) Describe() string {
	return fmt.Sprintf("export-chunk call=%s offset=%d bytes=%d", e.Call, e.Offset, len(e.Data))
}

// ExportChunkTaken reports that the caller of a streamed export consumed
// its last ExportChunk, so the next one may be pulled. Abandon says the
// caller can take no more (its client went away), whether or not a chunk
// is held: the export is cancelled (best effort), its profile released,
// and it is answered unavailable with code abandoned. A Taken without
// Abandon for a call with no chunk held, or for a call that is no
// export in flight, is ignored; it produces no result of its own.
type ExportChunkTaken struct {
	Call    CallID
	Abandon bool
}

func (ExportChunkTaken) isEvent() {}
func (e ExportChunkTaken) Describe() string {
	return fmt.Sprintf("export-chunk-taken call=%s abandon=%t", e.Call, e.Abandon)
}

// wsExportAbandoned is the code of a streamed export its caller gave up.
const wsExportAbandoned = "abandoned"

// completed is the answer of an export whose profile was released.
func (x *wsExport) completed() WorkspaceResult {
	if x.stream {
		return WorkspaceResult{Outcome: WorkspaceCompleted, SizeBytes: x.received}
	}
	return WorkspaceResult{Outcome: WorkspaceCompleted, Archive: x.archive}
}

func (m *Machine) onExportChunkTaken(e ExportChunkTaken) {
	var r *wsRead
	for _, x := range m.ws.byOp { //tidy:sorted a call has at most one operation
		if x.call == e.Call && x.export != nil {
			r = x
		}
	}
	if r == nil || !r.export.held && !e.Abandon {
		return
	}
	r.export.held = false
	if e.Abandon {
		if r.sent && !r.export.done {
			m.sendExportCancel(r)
		}
		m.finishRead(r, WorkspaceResult{Outcome: WorkspaceUnavailable, Code: wsExportAbandoned})
		return
	}
	m.send(r.conn.id, r.opID, wire.WorkspaceExport{Step: wire.StepNext, Offset: r.export.received})
}

package check

import "github.com/turnstile-sim/turnstile/wire"

// Checks: workspace_result_fields, workspace_transfer_dropped,
// workspace_export_order (rules.go), from the frames reaching a daemon
// (Core's and forged ones alike: the daemon answers both) and the
// daemon's own answers on the same connection under the same ID.
const (
	CheckWorkspaceResultFields = "workspace_result_fields"
	CheckTransferDropped       = "workspace_transfer_dropped"
	CheckExportOrder           = "workspace_export_order"
)

const (
	// a native byte read answered outside its request's bounds (harness_workspace_read_out_of_bounds)
	MarkReadResultOutOfBounds Mark = "workspace_read_result_out_of_bounds"
	// a completed write receipt whose size_bytes is not its begin's, forged from the daemon, reached Core
	MarkWriteReceiptSizeForged Mark = "workspace_write_receipt_size_forged"
	// a next at another offset than the bytes sent was refused
	MarkExportStaleNextRefused Mark = "workspace_export_stale_next_refused"
)

type wsPayloadState struct {
	reads   map[string]wire.WorkspaceRead // conn\x00id → the read pending at the daemon
	begins  map[string]int64              // conn\x00id → a write begin's size_bytes
	chunkAt map[string]int64              // conn\x00id → the end of the last chunk delivered
	exports map[string]int64              // conn\x00id → export bytes the daemon sent
	dropped map[string]int64              // conn\x00id → when the daemon refused its write transfer
	stale   map[string]int64              // conn\x00id → the offset of a next that is not the bytes sent
}

func (l *Ledger) observeWorkspacePayloads(ev WireEvent) {
	if !ev.HasFrame() || ev.From == RogueNode || ev.To == RogueNode {
		return
	}
	s := &l.wsPayload
	k := pairKey(connKey(ev.Conn), ev.Frame.ID)
	switch {
	case ev.Kind == WireDelivered && ev.To != CoreNode:
		switch p := ev.Frame.Payload.(type) {
		case wire.WorkspaceRead:
			if _, pending := s.reads[k]; !pending && ev.Frame.ID != "" && p.Validate() == nil {
				made(&s.reads)[k] = p
			}
		case wire.WorkspaceWrite:
			switch p.Step {
			case wire.StepBegin:
				if _, ok := s.begins[k]; !ok {
					made(&s.begins)[k] = p.SizeBytes
				}
			case wire.StepChunk:
				made(&s.chunkAt)[k] = p.Offset + int64(len(p.Data))
			}
		case wire.WorkspaceExport:
			sent, ok := s.exports[k]
			switch {
			case p.Step == wire.StepBegin && !ok:
				made(&s.exports)[k] = 0
			case p.Step == wire.StepNext && ok && p.Offset != sent:
				made(&s.stale)[k] = p.Offset
			}
		}
	case ev.Kind == WireDelivered && ev.To == CoreNode && ev.Forged:
		r, ok := ev.Frame.Payload.(wire.WorkspaceWriteResult)
		if m := l.ws.commits[ev.Frame.ID]; ok && m != nil && r.Outcome == wire.OutcomeCompleted && r.SizeBytes != m.size {
			l.reach(MarkWriteReceiptSizeForged)
		}
	case ev.Kind == WireSent && ev.From != CoreNode && !ev.Forged:
		switch p := ev.Frame.Payload.(type) {
		case wire.WorkspaceReadResult:
			if req, ok := s.reads[k]; ok {
				delete(s.reads, k)
				l.judgeReadFields(ev, req, p)
			}
		case wire.WorkspaceWriteResult:
			l.judgeWriteFields(ev, k, p)
		case wire.WorkspaceExportResult:
			l.judgeExportFields(ev, k, p)
		}
	}
}

func (l *Ledger) judgeReadFields(ev WireEvent, req wire.WorkspaceRead, p wire.WorkspaceReadResult) {
	if p.Outcome != wire.OutcomeCompleted {
		return
	}
	what := ev.From + " answered read " + ev.Frame.ID
	if req.Operation == wire.ReadOperationDirectory {
		if p.Directory == nil {
			l.violate(ev.At, CheckWorkspaceResultFields, "%s completed without its listing", what)
			return
		}
		switch n := len(p.Directory.Entries); {
		case n > req.MaxEntries:
			l.violate(ev.At, CheckWorkspaceResultFields, "%s with %d entries, beyond its max_entries %d", what, n, req.MaxEntries)
		case p.Directory.Truncated && n != req.MaxEntries:
			l.violate(ev.At, CheckWorkspaceResultFields, "%s truncated with %d entries, fewer than its max_entries %d", what, n, req.MaxEntries)
		}
		return
	}
	switch n := len(p.Data); {
	case p.Directory != nil:
		l.violate(ev.At, CheckWorkspaceResultFields, "%s, a byte read, with a listing", what)
	case n > req.MaxBytes:
		l.violate(ev.At, CheckWorkspaceResultFields, "%s with %d bytes, beyond its max_bytes %d", what, n, req.MaxBytes)
	case p.Truncated && n != req.MaxBytes:
		l.violate(ev.At, CheckWorkspaceResultFields, "%s truncated with %d bytes, fewer than its max_bytes %d", what, n, req.MaxBytes)
	}
}

func (l *Ledger) judgeWriteFields(ev WireEvent, k string, p wire.WorkspaceWriteResult) {
	s := &l.wsPayload
	if at, ok := s.dropped[k]; ok && (p.Outcome == wire.OutcomeReceived || p.Outcome == wire.OutcomeCompleted) {
		l.violate(ev.At, CheckTransferDropped, "%s answered write %s %s after refusing its transfer at %s with no begin answered ready since",
			ev.From, ev.Frame.ID, p.Outcome, vtime(at))
	}
	switch p.Outcome {
	case wire.OutcomeReady:
		delete(s.dropped, k)
	case wire.OutcomeReceived:
		if end, ok := s.chunkAt[k]; ok && p.Offset != end {
			l.violate(ev.At, CheckWorkspaceResultFields, "%s acknowledged write %s received at offset %d; the chunk it answers ends at %d",
				ev.From, ev.Frame.ID, p.Offset, end)
		}
		delete(s.chunkAt, k)
	case wire.OutcomeCompleted, wire.OutcomeRejected, wire.OutcomeUnknown:
		if size, ok := s.begins[k]; ok && p.Outcome == wire.OutcomeCompleted && p.SizeBytes != size {
			l.violate(ev.At, CheckWorkspaceResultFields, "%s answered write %s completed with size_bytes %d; its begin declared %d",
				ev.From, ev.Frame.ID, p.SizeBytes, size)
		}
		if p.Outcome == wire.OutcomeRejected && p.ErrorCode == wire.WriteInvalidRequest {
			made(&s.dropped)[k] = ev.At
		}
		delete(s.begins, k)
		delete(s.chunkAt, k)
	}
}

func (l *Ledger) judgeExportFields(ev WireEvent, k string, p wire.WorkspaceExportResult) {
	s := &l.wsPayload
	sent, ok := s.exports[k]
	if !ok {
		return
	}
	if at, stale := s.stale[k]; stale {
		delete(s.stale, k)
		switch {
		case p.Outcome == wire.OutcomeChunk || p.Outcome == wire.OutcomeCompleted:
			l.violate(ev.At, CheckExportOrder, "%s answered a next of export %s at offset %d %s, though it had sent %d bytes of it",
				ev.From, ev.Frame.ID, at, p.Outcome, sent)
		case p.Outcome == wire.OutcomeRejected && p.ErrorCode == wire.ReadInvalidRequest:
			l.reach(MarkExportStaleNextRefused)
		}
	}
	switch p.Outcome {
	case wire.OutcomeChunk:
		if p.Offset != sent {
			l.violate(ev.At, CheckWorkspaceResultFields, "%s sent export %s a chunk at offset %d after sending %d bytes of it",
				ev.From, ev.Frame.ID, p.Offset, sent)
		}
		s.exports[k] = sent + int64(len(p.Data))
	case wire.OutcomeCompleted:
		if p.Offset != sent {
			l.violate(ev.At, CheckWorkspaceResultFields, "%s answered export %s completed at offset %d after sending %d bytes",
				ev.From, ev.Frame.ID, p.Offset, sent)
		}
		delete(s.exports, k)
	default:
		delete(s.exports, k)
	}
}

// WorkspaceReadOutOfBounds records a native byte read answering outside
// its request's bounds (ground truth): the daemon's answer to it is
// judged by workspace_result_fields.
func (l *Ledger) WorkspaceReadOutOfBounds(at int64, device string) {
	l.advance(at)
	l.reach(MarkReadResultOutOfBounds)
}

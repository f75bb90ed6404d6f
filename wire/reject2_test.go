package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestRejectResults(t *testing.T) {
	huge := strings.Repeat("c", WriteFrameBytesMax)
	runWireCases(t, []wireCase{
		{"failed wrong code", RuntimePrepareResult{Outcome: OutcomeFailed, ErrorCode: TransferUnconfirmed}, ErrInvalid, "runtime_prepare_result.error_code", nil},
		{"ready negative offset", RuntimePrepareResult{Outcome: OutcomeReady, Offset: -1}, ErrInvalid, "runtime_prepare_result.offset", nil},
		{"write begin size", WorkspaceWrite{Step: StepBegin, EnvironmentID: sampleEnvID, SessionID: sampleSessionID, Path: "a", SHA256: sampleDigest, SizeBytes: -1}, ErrInvalid, "workspace_write.size_bytes", nil},
		{"write begin data", WorkspaceWrite{Step: StepBegin, EnvironmentID: sampleEnvID, SessionID: sampleSessionID, Path: "a", SHA256: sampleDigest, Data: []byte("x")}, ErrInvalid, "workspace_write: begin carries no offset or data", nil},
		{"write unknown step", WorkspaceWrite{Step: "append"}, ErrInvalid, "workspace_write.step", nil},
		{"export begin environment", WorkspaceExport{Step: StepBegin, Handle: "h"}, ErrInvalid, "workspace_export.environment_id", nil},
		{"export unknown step", WorkspaceExport{Step: "rewind"}, ErrInvalid, "workspace_export.step", nil},
		{"export result offset", WorkspaceExportResult{Outcome: OutcomeCompleted, Offset: -1}, ErrInvalid, "workspace_export_result.offset", nil},
		{"export result offset over 528 MiB", WorkspaceExportResult{Outcome: OutcomeCompleted, Offset: ExportBytesMax + 1}, ErrInvalid, "workspace_export_result.offset", nil},
		{"export chunk with code", WorkspaceExportResult{Outcome: OutcomeChunk, Data: []byte("x"), ErrorCode: "export_failed"}, ErrInvalid, "workspace_export_result.error_code", nil},
		{"export chunk past 528 MiB", WorkspaceExportResult{Outcome: OutcomeChunk, Offset: ExportBytesMax - 1, Data: []byte("xy")}, ErrInvalid, "workspace_export_result.data", nil},
		{"export missing outcome", WorkspaceExportResult{}, ErrMissingField, "workspace_export_result.outcome", nil},
		{"export result over 96 KiB", WorkspaceExportResult{Outcome: OutcomeRejected, ErrorCode: huge}, ErrTooLarge, "workspace_export_result", nil},
	})
}

func TestRejectWorkspace(t *testing.T) {
	done := func(r WorkspaceReadResult) WorkspaceReadResult {
		r.CloseAcknowledged = r.Outcome == OutcomeCompleted
		return r
	}
	dir := &WorkspaceDirectoryResult{Entries: []DirectoryEntry{}}
	runWireCases(t, []wireCase{
		{"read path over 4096", WorkspaceRead{RunID: "r", EnvironmentID: "e", Path: strings.Repeat("p", WorkspacePathBytesMax+1), Operation: ReadOperationBytes, MaxBytes: 1}, ErrTooLarge, "workspace_read.path", nil},
		{"read path newline", WorkspaceRead{RunID: "r", EnvironmentID: "e", Path: "a\nb", Operation: ReadOperationBytes, MaxBytes: 1}, ErrInvalid, "workspace_read.path", nil},
		{"result data over 1 MiB", done(WorkspaceReadResult{Outcome: OutcomeCompleted, Data: make([]byte, ReadResultBytesMax+1)}), ErrTooLarge, "workspace_read_result.data", nil},
		{"completed with code", done(WorkspaceReadResult{Outcome: OutcomeCompleted, ErrorCode: ReadUnconfirmed}), ErrInvalid, "workspace_read_result.error_code", nil},
		{"directory with data", done(WorkspaceReadResult{Outcome: OutcomeCompleted, Directory: dir, Data: []byte("x")}), ErrInvalid, "workspace_read_result.data", nil},
		{"directory truncated", done(WorkspaceReadResult{Outcome: OutcomeCompleted, Directory: dir, Truncated: true}), ErrInvalid, "workspace_read_result.truncated", nil},
		{"rejected unknown code", WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: "nope"}, ErrInvalid, "workspace_read_result.error_code", nil},
		{"unknown outcome", WorkspaceReadResult{Outcome: "maybe"}, ErrInvalid, "workspace_read_result.outcome", nil},
		{"unknown without code", WorkspaceReadResult{Outcome: OutcomeUnknown}, ErrInvalid, "workspace_read_result.error_code", nil},
		{"rejected with data", WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: ReadNotDirectory, Data: []byte("x")}, ErrInvalid, "workspace_read_result.data", nil},
		{"rejected truncated", WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: ReadNotDirectory, Truncated: true}, ErrInvalid, "workspace_read_result.truncated", nil},
		{"rejected close_acknowledged", WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: ReadNotDirectory, CloseAcknowledged: true}, ErrInvalid, "workspace_read_result.close_acknowledged", nil},
		{"entry name not UTF-8", done(WorkspaceReadResult{Outcome: OutcomeCompleted, Directory: &WorkspaceDirectoryResult{
			Entries: []DirectoryEntry{{Name: "a\xffb", Kind: EntryOther}}}}), ErrInvalid, "entries[0].name", nil},
	})
	if err := dir.ValidateFor(0); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "workspace_read_result.directory") {
		t.Errorf("max_entries 0: %v", err)
	}
	if err := dir.ValidateFor(DirectoryEntriesMax + 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("max_entries 1025: %v", err)
	}
}

func TestRejectSuspensionAgainst(t *testing.T) {
	for _, tt := range []struct {
		name  string
		err   error
		want  error
		field string
	}{
		{"quiesced invalid", EnvironmentQuiesced{}.ValidateAgainst(EnvironmentQuiesce{}), ErrMissingField, "environment_quiesced.environment_id"},
		{"quiesced env echo", EnvironmentQuiesced{EnvironmentID: "a", SuspendID: "s"}.ValidateAgainst(EnvironmentQuiesce{EnvironmentID: "b", SuspendID: "s"}), ErrInvalid, "environment_quiesced.environment_id"},
		{"resumed invalid", EnvironmentResumed{EnvironmentID: "e"}.ValidateAgainst(EnvironmentResume{}), ErrMissingField, "environment_resumed.suspend_id"},
		{"resumed suspend echo", EnvironmentResumed{EnvironmentID: "e", SuspendID: "s"}.ValidateAgainst(EnvironmentResume{EnvironmentID: "e", SuspendID: "t"}), ErrInvalid, "environment_resumed.suspend_id"},
		{"export against invalid", WorkspaceExportResult{}.ValidateAgainst(0), ErrMissingField, "workspace_export_result.outcome"},
		{"read against invalid", WorkspaceReadResult{Outcome: "x"}.ValidateAgainst(WorkspaceRead{}), ErrInvalid, "workspace_read_result.outcome"},
	} {
		if !errors.Is(tt.err, tt.want) || !strings.Contains(tt.err.Error(), tt.field) {
			t.Errorf("%s: got %v, want %v naming %s", tt.name, tt.err, tt.want, tt.field)
		}
	}
}

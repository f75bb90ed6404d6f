package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateWorkspace(t *testing.T) {
	write := func(mut func(*WorkspaceWrite)) WorkspaceWrite {
		w := sampleFrames()[28].Payload.(WorkspaceWrite)
		mut(&w)
		return w
	}
	runValidatorCases(t, []validatorCase{
		{"read bytes", WorkspaceRead{RunID: "r", EnvironmentID: "e", Path: "a.txt", MaxBytes: 10}, nil, "", ""},
		{"read both ids", WorkspaceRead{Handle: "h", RunID: "r", EnvironmentID: "e", MaxBytes: 10}, ErrInvalid, "workspace_read.handle", ""},
		{"read no ids", WorkspaceRead{EnvironmentID: "e", MaxBytes: 10}, ErrInvalid, "workspace_read.handle", ""},
		{"read no env", WorkspaceRead{RunID: "r", MaxBytes: 10}, ErrMissingField, "workspace_read.environment_id", ""},
		{"read zero bytes", WorkspaceRead{RunID: "r", EnvironmentID: "e"}, ErrInvalid, "workspace_read.max_bytes", ""},
		{"read over 1 MiB", WorkspaceRead{RunID: "r", EnvironmentID: "e", MaxBytes: ReadResultBytesMax + 1}, ErrInvalid, "max_bytes", ""},
		{"read bytes with entries", WorkspaceRead{RunID: "r", EnvironmentID: "e", MaxBytes: 1, MaxEntries: 1}, ErrInvalid, "max_entries", ""},
		{"directory root", WorkspaceRead{Handle: "h", EnvironmentID: "e", Operation: ReadOperationDirectory, MaxEntries: 1024}, nil, "", ""},
		{"directory 1025", WorkspaceRead{Handle: "h", EnvironmentID: "e", Operation: ReadOperationDirectory, MaxEntries: 1025}, ErrInvalid, "max_entries", ""},
		{"directory with bytes", WorkspaceRead{Handle: "h", EnvironmentID: "e", Operation: ReadOperationDirectory, MaxEntries: 1, MaxBytes: 1}, ErrInvalid, "max_bytes", ""},
		{"read unknown op", WorkspaceRead{Handle: "h", EnvironmentID: "e", Operation: "stat", MaxBytes: 1}, ErrInvalid, "operation", ""},
		{"read over 8 KiB", WorkspaceRead{Handle: strings.Repeat("h", RequestBytesMax), EnvironmentID: "e", MaxBytes: 1}, ErrTooLarge, "workspace_read", ""},
		{"result rejected", WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: ReadNotFound}, nil, "", ""},
		{"result rejected with data", WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: ReadNotFound, Data: []byte("x")}, ErrInvalid, "data", ""},
		{"result unknown code", WorkspaceReadResult{Outcome: OutcomeUnknown, ErrorCode: ReadNotFound}, ErrInvalid, "error_code", ""},
		{"result completed no ack", WorkspaceReadResult{Outcome: OutcomeCompleted}, ErrMissingField, "close_acknowledged", ""},
		{"write begin", write(func(*WorkspaceWrite) {}), nil, "", ""},
		{"write absolute path", write(func(w *WorkspaceWrite) { w.Path = "/etc/passwd" }), ErrInvalid, "workspace_write.path", ""},
		{"write dot path", write(func(w *WorkspaceWrite) { w.Path = "." }), ErrInvalid, "workspace_write.path", ""},
		{"write dotdot", write(func(w *WorkspaceWrite) { w.Path = "a/../b" }), ErrInvalid, "workspace_write.path", ""},
		{"write backslash", write(func(w *WorkspaceWrite) { w.Path = `a\b` }), ErrInvalid, "workspace_write.path", ""},
		{"write long path", write(func(w *WorkspaceWrite) { w.Path = strings.Repeat("a", WorkspacePathBytesMax+1) }), ErrTooLarge, "workspace_write.path", ""},
		{"write bad digest", write(func(w *WorkspaceWrite) { w.SHA256 = "abc" }), ErrInvalid, "sha256", ""},
		{"write chunk", WorkspaceWrite{Step: StepChunk, Offset: 0, Data: []byte("x")}, nil, "", ""},
		{"write chunk with path", WorkspaceWrite{Step: StepChunk, Path: "a", Data: []byte("x")}, ErrInvalid, "workspace_write", ""},
		{"write commit data", WorkspaceWrite{Step: StepCommit, Data: []byte("x")}, ErrInvalid, "workspace_write", ""},
		{"export begin", WorkspaceExport{Step: StepBegin, Handle: "h", EnvironmentID: "e"}, nil, "", ""},
		{"export begin long handle", WorkspaceExport{Step: StepBegin, Handle: strings.Repeat("h", 129), EnvironmentID: "e"}, ErrInvalid, "workspace_export.handle", ""},
		{"export begin offset", WorkspaceExport{Step: StepBegin, Handle: "h", EnvironmentID: "e", Offset: 1}, ErrInvalid, "workspace_export.offset", ""},
		{"export next with handle", WorkspaceExport{Step: StepNext, Handle: "h"}, ErrInvalid, "workspace_export", ""},
		{"export next beyond", WorkspaceExport{Step: StepNext, Offset: ExportBytesMax + 1}, ErrInvalid, "workspace_export.offset", ""},
		{"export cancel offset", WorkspaceExport{Step: StepCancel, Offset: 1}, ErrInvalid, "workspace_export.offset", ""},
		{"export result completed", WorkspaceExportResult{Outcome: OutcomeCompleted, Offset: 10}, nil, "", ""},
		{"export result completed data", WorkspaceExportResult{Outcome: OutcomeCompleted, Data: []byte("x")}, ErrInvalid, "workspace_export_result", ""},
		{"export result empty chunk", WorkspaceExportResult{Outcome: OutcomeChunk}, ErrInvalid, "workspace_export_result.data", ""},
		{"export result failed", WorkspaceExportResult{Outcome: OutcomeFailed, ErrorCode: "export_failed"}, nil, "", ""},
		{"export result failed no code", WorkspaceExportResult{Outcome: OutcomeFailed}, ErrInvalid, "workspace_export_result", ""},
		{"quiesce no suspend", EnvironmentQuiesce{EnvironmentID: "e"}, ErrMissingField, "environment_quiesce.suspend_id", ""},
		{"resume no env", EnvironmentResume{SuspendID: "s"}, ErrMissingField, "environment_resume.environment_id", ""},
		{"quiesced accepted with code", EnvironmentQuiesced{EnvironmentID: "e", SuspendID: "s", Accepted: true, ErrorCode: "x"}, ErrInvalid, "environment_quiesced.error_code", ""},
		{"resumed refused", EnvironmentResumed{EnvironmentID: "e", SuspendID: "s", ErrorCode: "resource_busy"}, nil, "", ""},
	})
	if err := (WorkspaceExportResult{Outcome: OutcomeChunk, Offset: 5, Data: []byte("x")}).ValidateAgainst(4); err == nil {
		t.Error("export offset mismatch accepted")
	}
	q := EnvironmentQuiesce{EnvironmentID: "e", SuspendID: "s"}
	if err := (EnvironmentQuiesced{EnvironmentID: "e", SuspendID: "s2", Accepted: true}).ValidateAgainst(q); err == nil || !strings.Contains(err.Error(), "suspend_id") {
		t.Errorf("echo: %v", err)
	}
	if err := (EnvironmentResumed{EnvironmentID: "e", SuspendID: "s", Accepted: true}).ValidateAgainst(EnvironmentResume(q)); err != nil {
		t.Error(err)
	}
}

func TestReadResultAgainstRequest(t *testing.T) {
	byteReq := WorkspaceRead{RunID: "r", EnvironmentID: "e", Path: "a", MaxBytes: 3}
	dirReq := WorkspaceRead{Handle: "h", EnvironmentID: "e", Operation: ReadOperationDirectory, MaxEntries: 2}
	size := ptr(int64(1))
	entries := func(e ...DirectoryEntry) *WorkspaceDirectoryResult {
		return &WorkspaceDirectoryResult{Entries: e}
	}
	for _, tt := range []struct {
		name  string
		r     WorkspaceReadResult
		req   WorkspaceRead
		want  error // nil = valid
		field string
	}{
		{"bytes", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Data: []byte("ab")}, byteReq, nil, ""},
		{"bytes truncated at limit", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Data: []byte("abc"), Truncated: true}, byteReq, nil, ""},
		{"bytes truncated early", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Data: []byte("ab"), Truncated: true}, byteReq, ErrInvalid, "truncated"},
		{"bytes over limit", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Data: []byte("abcd")}, byteReq, ErrTooLarge, "data"},
		{"bytes with directory", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true,
			Directory: &WorkspaceDirectoryResult{Entries: []DirectoryEntry{}}}, byteReq, ErrInvalid, "directory: not allowed on a byte read"},
		{"not_directory on byte read", WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: ReadNotDirectory}, byteReq, ErrInvalid, "error_code"},
		{"dir", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: entries(
			DirectoryEntry{Name: "a", Kind: EntryFile, SizeBytes: size}, DirectoryEntry{Name: "b", Kind: EntrySymlink})}, dirReq, nil, ""},
		{"dir missing", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true}, dirReq, ErrMissingField, "directory"},
		{"dir too many", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: entries(
			DirectoryEntry{Name: "a", Kind: EntryOther}, DirectoryEntry{Name: "b", Kind: EntryOther}, DirectoryEntry{Name: "c", Kind: EntryOther})}, dirReq, ErrTooLarge, "directory.entries"},
		{"dir duplicate", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: entries(
			DirectoryEntry{Name: "a", Kind: EntryOther}, DirectoryEntry{Name: "a", Kind: EntryOther})}, dirReq, ErrInvalid, "directory.entries[1].name"},
		{"dir slash", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: entries(
			DirectoryEntry{Name: "a/b", Kind: EntryOther})}, dirReq, ErrInvalid, "directory.entries[0].name"},
		{"dir dotdot", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: entries(
			DirectoryEntry{Name: "..", Kind: EntryOther})}, dirReq, ErrInvalid, "directory.entries[0].name"},
		{"dir long name", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: entries(
			DirectoryEntry{Name: strings.Repeat("n", DirectoryNameBytes+1), Kind: EntryOther})}, dirReq, ErrTooLarge, "directory.entries[0].name"},
		{"dir file without size", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: entries(
			DirectoryEntry{Name: "a", Kind: EntryFile})}, dirReq, ErrInvalid, "directory.entries[0].size_bytes"},
		{"dir directory with size", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: entries(
			DirectoryEntry{Name: "a", Kind: EntryDirectory, SizeBytes: size})}, dirReq, ErrInvalid, "directory.entries[0].size_bytes"},
		{"dir unknown kind", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: entries(
			DirectoryEntry{Name: "a", Kind: "socket"})}, dirReq, ErrInvalid, "directory.entries[0].kind"},
		{"dir nil entries", WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: &WorkspaceDirectoryResult{}}, dirReq, ErrMissingField, "directory.entries"},
		{"dir not_directory", WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: ReadNotDirectory}, dirReq, nil, ""},
		{"dir rejected with directory", WorkspaceReadResult{Outcome: OutcomeRejected, ErrorCode: ReadNotDirectory, Directory: entries()}, dirReq, ErrInvalid, "directory"},
	} {
		err := tt.r.ValidateAgainst(tt.req)
		if (tt.want == nil) != (err == nil) || (err != nil && (!errors.Is(err, tt.want) ||
			!strings.Contains(err.Error(), "workspace_read_result."+tt.field))) {
			t.Errorf("%s: got %v, want %v naming %s", tt.name, err, tt.want, tt.field)
		}
	}
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

package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func beginWith(mut func(*RuntimePrepare)) RuntimePrepare {
	p := sampleFrames()[1].Payload.(RuntimePrepare)
	mut(&p)
	return p
}

func TestValidateRuntimePrepare(t *testing.T) {
	init := func(in Initialization) func(*RuntimePrepare) {
		return func(p *RuntimePrepare) {
			p.Action, p.Skill, p.SizeBytes, p.SHA256, p.Initialization = PrepareActionInitialize, nil, 0, "", &in
		}
	}
	runValidatorCases(t, []validatorCase{
		{"skill", beginWith(func(*RuntimePrepare) {}), nil, "", ""},
		{"upper-case uuid", beginWith(func(p *RuntimePrepare) { p.EnvironmentID = strings.ToUpper(p.EnvironmentID) }), ErrInvalid, "runtime_prepare.environment_id", ""},
		{"nil uuid", beginWith(func(p *RuntimePrepare) { p.SessionID = "00000000-0000-0000-0000-000000000000" }), ErrInvalid, "runtime_prepare.session_id", ""},
		{"two metadata objects", beginWith(func(p *RuntimePrepare) { p.Plugin = p.Skill }), ErrInvalid, "exactly one", ""},
		{"action mismatch", beginWith(func(p *RuntimePrepare) { p.Action = PrepareActionPlugin }), ErrMissingField, "runtime_prepare.plugin", ""},
		{"unknown action", beginWith(func(p *RuntimePrepare) { p.Action = "exec" }), ErrInvalid, "runtime_prepare.action", ""},
		{"skill reference type", beginWith(func(p *RuntimePrepare) { p.Skill = &PackageMeta{Type: "reference", Name: "a", Description: "d"} }), ErrInvalid, "skill.type", ""},
		{"skill empty description", beginWith(func(p *RuntimePrepare) { p.Skill = &PackageMeta{Type: "inline", Name: "a"} }), ErrMissingField, "skill.description", ""},
		{"skill bad name", beginWith(func(p *RuntimePrepare) { p.Skill = &PackageMeta{Type: "inline", Name: "Bad Name", Description: "d"} }), ErrInvalid, "skill.name", ""},
		{"skill slot", beginWith(func(p *RuntimePrepare) { p.Slot = 1 }), ErrInvalid, "runtime_prepare.slot", ""},
		{"upper digest", beginWith(func(p *RuntimePrepare) { p.SHA256 = strings.ToUpper(sampleDigest) }), ErrInvalid, "runtime_prepare.sha256", ""},
		{"zero size", beginWith(func(p *RuntimePrepare) { p.SizeBytes = 0 }), ErrInvalid, "runtime_prepare.size_bytes", ""},
		{"over 50 MiB", beginWith(func(p *RuntimePrepare) { p.SizeBytes = TransferBytesMax + 1 }), ErrInvalid, "size_bytes", ""},
		{"begin with data", beginWith(func(p *RuntimePrepare) { p.Data = []byte("x") }), ErrInvalid, "runtime_prepare", ""},
		{"plugin slot 49", beginWith(func(p *RuntimePrepare) { p.Action, p.Plugin, p.Skill, p.Slot = PrepareActionPlugin, p.Skill, nil, 49 }), nil, "", ""},
		{"plugin slot 50", beginWith(func(p *RuntimePrepare) { p.Action, p.Plugin, p.Skill, p.Slot = PrepareActionPlugin, p.Skill, nil, 50 }), ErrInvalid, "runtime_prepare.slot", ""},
		{"empty file", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.File, p.SizeBytes = PrepareActionFile, nil, &PrepareFile{Path: "/workspace/a.txt"}, 0
		}), nil, "", ""},
		{"file at root", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.File = PrepareActionFile, nil, &PrepareFile{Path: "/workspace"}
		}), ErrInvalid, "file.path", ""},
		{"file unclean", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.File = PrepareActionFile, nil, &PrepareFile{Path: "/workspace/a/../../etc"}
		}), ErrInvalid, "file.path", ""},
		{"configure", beginWith(init(Initialization{Action: InitConfigure, Env: map[string]string{"A": "1"}})), nil, "", ""},
		{"configure bad key", beginWith(init(Initialization{Action: InitConfigure, Env: map[string]string{"A=B": "1"}})), ErrInvalid, "initialization.env", ""},
		{"configure with command", beginWith(init(Initialization{Action: InitConfigure, Command: "x"})), ErrInvalid, "initialization", ""},
		{"npm", beginWith(init(Initialization{Action: InitNPM, Network: NetworkEnabled, Packages: []string{"left-pad"}})), nil, "", ""},
		{"npm flag package", beginWith(init(Initialization{Action: InitNPM, Network: NetworkEnabled, Packages: []string{"--global"}})), ErrInvalid, "initialization.packages", ""},
		{"npm no network", beginWith(init(Initialization{Action: InitNPM, Packages: []string{"a"}})), ErrMissingField, "initialization.network", ""},
		{"python no packages", beginWith(init(Initialization{Action: InitPython, Network: NetworkDisabled})), ErrInvalid, "initialization.packages", ""},
		{"setup", beginWith(init(Initialization{Action: InitSetup, Network: NetworkDisabled, Command: "make", Cwd: "/workspace"})), nil, "", ""},
		{"setup empty env present", beginWith(init(Initialization{Action: InitSetup, Network: NetworkDisabled, Command: "make", Env: map[string]string{}})), ErrInvalid, "initialization", ""},
		{"setup bad network", beginWith(init(Initialization{Action: InitSetup, Network: "open", Command: "make"})), ErrInvalid, "initialization.network", ""},
		{"exec action", beginWith(init(Initialization{Action: "exec"})), ErrInvalid, "initialization.action", ""},
		{"initialize with digest", beginWith(func(p *RuntimePrepare) {
			init(Initialization{Action: InitConfigure})(p)
			p.SHA256 = sampleDigest
		}), ErrInvalid, "size_bytes", ""},
		{"finalize", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.SizeBytes, p.SHA256 = PrepareActionFinalize, nil, 0, ""
			p.Sources = json.RawMessage(`{"directories":["skills","plugins/x"]}`)
		}), nil, "", ""},
		{"finalize escape", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.SizeBytes, p.SHA256 = PrepareActionFinalize, nil, 0, ""
			p.Sources = json.RawMessage(`{"directories":["../etc"]}`)
		}), ErrInvalid, "sources.directories[0]", ""},
		{"finalize duplicate", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.SizeBytes, p.SHA256 = PrepareActionFinalize, nil, 0, ""
			p.Sources = json.RawMessage(`{"directories":["a","a"]}`)
		}), ErrInvalid, "sources.directories[1]", ""},
		{"chunk", RuntimePrepare{Step: StepChunk, Offset: 10, Data: []byte("abc")}, nil, "", ""},
		{"chunk empty", RuntimePrepare{Step: StepChunk}, ErrInvalid, "runtime_prepare.data", ""},
		{"chunk too big", RuntimePrepare{Step: StepChunk, Data: make([]byte, ChunkBytesMax+1)}, ErrInvalid, "runtime_prepare.data", ""},
		{"chunk past 50 MiB", RuntimePrepare{Step: StepChunk, Offset: TransferBytesMax - 1, Data: []byte("ab")}, ErrTooLarge, "runtime_prepare.data", ""},
		{"chunk with header", RuntimePrepare{Step: StepChunk, Action: "skill", Data: []byte("a")}, ErrInvalid, "runtime_prepare", ""},
		{"commit", RuntimePrepare{Step: StepCommit}, nil, "", ""},
		{"commit with offset", RuntimePrepare{Step: StepCommit, Offset: 3}, ErrInvalid, "runtime_prepare", ""},
		{"unknown step", RuntimePrepare{Step: "abort"}, ErrInvalid, "runtime_prepare.step", ""},
	})
}

func TestStepResults(t *testing.T) {
	type tc struct {
		name     string
		r        RuntimePrepareResult
		expected string
		offset   int64
		total    int64
		ok       bool
		field    string
	}
	for _, tt := range []tc{
		{"ready", RuntimePrepareResult{Outcome: OutcomeReady}, OutcomeReady, 0, 10, true, ""},
		{"received", RuntimePrepareResult{Outcome: OutcomeReceived, Offset: 4}, OutcomeReceived, 4, 10, true, ""},
		{"received wrong offset", RuntimePrepareResult{Outcome: OutcomeReceived, Offset: 3}, OutcomeReceived, 4, 10, false, "offset"},
		{"received with size", RuntimePrepareResult{Outcome: OutcomeReceived, Offset: 4, SizeBytes: 4}, OutcomeReceived, 4, 10, false, "size_bytes"},
		{"completed", RuntimePrepareResult{Outcome: OutcomeCompleted, SizeBytes: 10}, OutcomeCompleted, 0, 10, true, ""},
		{"completed wrong size", RuntimePrepareResult{Outcome: OutcomeCompleted, SizeBytes: 9}, OutcomeCompleted, 0, 10, false, "size_bytes"},
		{"unexpected outcome", RuntimePrepareResult{Outcome: OutcomeCompleted, SizeBytes: 10}, OutcomeReady, 0, 10, false, "outcome"},
		{"rejected", RuntimePrepareResult{Outcome: OutcomeRejected, ErrorCode: TransferCapacity}, OutcomeReady, 0, 10, true, ""},
		{"rejected bad code", RuntimePrepareResult{Outcome: OutcomeRejected, ErrorCode: TransferFailed}, OutcomeReady, 0, 10, false, "error_code"},
		{"rejected offset", RuntimePrepareResult{Outcome: OutcomeRejected, ErrorCode: TransferCapacity, Offset: 1}, OutcomeReady, 0, 10, false, "offset"},
		{"failed exit", RuntimePrepareResult{Outcome: OutcomeFailed, ErrorCode: TransferFailed, ExitCode: 2}, OutcomeCompleted, 0, 10, true, ""},
		{"exit without failure", RuntimePrepareResult{Outcome: OutcomeCompleted, SizeBytes: 10, ExitCode: 2}, OutcomeCompleted, 0, 10, false, "exit_code"},
		{"exit 256", RuntimePrepareResult{Outcome: OutcomeFailed, ErrorCode: TransferFailed, ExitCode: 256}, OutcomeCompleted, 0, 10, false, "exit_code"},
		{"unknown", RuntimePrepareResult{Outcome: OutcomeUnknown, ErrorCode: TransferUnconfirmed}, OutcomeReady, 0, 10, true, ""},
		{"code on ready", RuntimePrepareResult{Outcome: OutcomeReady, ErrorCode: TransferCapacity}, OutcomeReady, 0, 10, false, "error_code"},
		{"bogus outcome", RuntimePrepareResult{Outcome: "maybe"}, OutcomeReady, 0, 10, false, "outcome"},
	} {
		err := tt.r.ValidateAgainst(tt.expected, tt.offset, tt.total)
		if tt.ok != (err == nil) || (err != nil && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "runtime_prepare_result."+tt.field))) {
			t.Errorf("%s: got %v", tt.name, err)
		}
	}
	for _, tt := range []struct {
		name  string
		r     WorkspaceWriteResult
		field string // "" = valid
	}{
		{"received", WorkspaceWriteResult{Outcome: OutcomeReceived, Offset: 5}, ""},
		{"reason with write_rejected", WorkspaceWriteResult{Outcome: OutcomeRejected, ErrorCode: WriteRejected, Reason: "future_reason"}, ""},
		{"reason with other code", WorkspaceWriteResult{Outcome: OutcomeRejected, ErrorCode: WriteCapacity, Reason: WriteReasonUnsafeDestination}, "reason"},
		{"failed does not exist", WorkspaceWriteResult{Outcome: OutcomeFailed, ErrorCode: "write_failed"}, "outcome"},
		{"unknown", WorkspaceWriteResult{Outcome: OutcomeUnknown, ErrorCode: WriteUnconfirmed}, ""},
		{"unknown wrong code", WorkspaceWriteResult{Outcome: OutcomeUnknown, ErrorCode: WriteRejected}, "error_code"},
		{"wrong offset", WorkspaceWriteResult{Outcome: OutcomeReceived, Offset: 4}, "offset"},
		{"negative offset", WorkspaceWriteResult{Outcome: OutcomeReceived, Offset: -1}, "offset"},
	} {
		err := tt.r.ValidateAgainst(OutcomeReceived, 5, 5)
		if (tt.field == "") != (err == nil) || (err != nil && (!errors.Is(err, ErrInvalid) ||
			!strings.Contains(err.Error(), "workspace_write_result."+tt.field))) {
			t.Errorf("write result %s: %v", tt.name, err)
		}
	}
	if err := (RuntimePrepareResult{Outcome: OutcomeReady}).ValidateAgainst(OutcomeRejected, 0, 0); !errors.Is(err, ErrInvalid) ||
		!strings.Contains(err.Error(), "runtime_prepare_result.outcome") {
		t.Errorf("expected outcome rejected: %v", err)
	}
}

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

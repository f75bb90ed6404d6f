package wire

import (
	"errors"
	"strings"
	"testing"
)

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

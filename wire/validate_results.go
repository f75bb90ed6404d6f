package wire

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// validateSources checks the finalize source selection. Its nested member
// names are unconfirmed, so only a `directories` array is checked: at most
// 50 strings, normalised, no `..` escape, no duplicates.
func validateSources(raw json.RawMessage, f string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return invalid(f, "must be an object")
	}
	d, ok := m["directories"]
	if !ok {
		return nil
	}
	var dirs []string
	if err := json.Unmarshal(d, &dirs); err != nil || dirs == nil {
		return invalid(f+".directories", "must be an array of strings")
	}
	if len(dirs) > FinalizeDirectoriesMax {
		return tooLarge(f+".directories", len(dirs), FinalizeDirectoriesMax)
	}
	for i, dir := range dirs {
		df := fmt.Sprintf("%s.directories[%d]", f, i)
		if dir == "" || path.Clean(dir) != dir || dir == ".." || strings.HasPrefix(dir, "../") ||
			strings.Contains(dir, "/../") || strings.HasSuffix(dir, "/..") {
			return invalid(df, "not a normalised directory")
		}
		for _, o := range dirs[:i] {
			if o == dir {
				return invalid(df, "duplicate directory")
			}
		}
	}
	return nil
}

// stepResult is the common shape of transfer receipts.
type stepResult struct {
	f               string
	outcome         string
	offset, size    int64
	code            string
	rejected        []string
	failed, unknown string // "" when the outcome does not exist
}

func (r stepResult) validate() error {
	switch r.outcome {
	case OutcomeRejected, OutcomeFailed, OutcomeUnknown:
		if r.offset != 0 || r.size != 0 {
			return invalid(r.f+".offset", "a %s result carries no offset or size", r.outcome)
		}
	}
	switch r.outcome {
	case OutcomeRejected:
		if !oneOf(r.code, r.rejected...) {
			return invalid(r.f+".error_code", "unknown rejection code")
		}
	case OutcomeFailed, OutcomeUnknown:
		want := r.failed
		if r.outcome == OutcomeUnknown {
			want = r.unknown
		}
		if want == "" {
			return invalid(r.f+".outcome", "unknown outcome")
		}
		if r.code != want {
			return invalid(r.f+".error_code", "%s needs %s", r.outcome, want)
		}
	case OutcomeReady, OutcomeReceived, OutcomeCompleted:
		if r.code != "" {
			return invalid(r.f+".error_code", "not allowed on %s", r.outcome)
		}
		if r.offset < 0 || r.size < 0 {
			return invalid(r.f+".offset", "negative")
		}
	default:
		return invalid(r.f+".outcome", "unknown outcome")
	}
	return nil
}

func (r stepResult) against(expected string, offset, total int64) error {
	if err := r.validate(); err != nil {
		return err
	}
	switch r.outcome {
	case OutcomeRejected, OutcomeFailed, OutcomeUnknown:
		return nil
	}
	switch {
	case r.outcome != expected:
		return invalid(r.f+".outcome", "want %s", expected)
	case r.offset != offset:
		return invalid(r.f+".offset", "want %d", offset)
	}
	switch expected {
	case OutcomeCompleted:
		if r.size != total {
			return invalid(r.f+".size_bytes", "want %d", total)
		}
	case OutcomeReady, OutcomeReceived:
		if r.size != 0 {
			return invalid(r.f+".size_bytes", "must be 0 on %s", expected)
		}
	default:
		return invalid(r.f+".outcome", "unexpected expected outcome")
	}
	return nil
}

func (r RuntimePrepareResult) step() stepResult {
	return stepResult{f: "runtime_prepare_result", outcome: r.Outcome, offset: r.Offset, size: r.SizeBytes,
		code: r.ErrorCode, rejected: TransferRejectedCodes, failed: TransferFailed, unknown: TransferUnconfirmed}
}

// Validate checks the context-free rules of runtime_prepare_result.
func (r RuntimePrepareResult) Validate() error {
	if r.ExitCode < 0 || r.ExitCode > 255 {
		return invalid("runtime_prepare_result.exit_code", "outside 0..255")
	}
	if r.ExitCode != 0 && r.Outcome != OutcomeFailed {
		return invalid("runtime_prepare_result.exit_code", "non-zero only when failed")
	}
	return r.step().validate()
}

// ValidateAgainst checks a receipt against the step it answers: the
// expected outcome (ready, received or completed), the expected offset
// (chunk receipts: the new end) and the total size (completed only). A
// rejected, failed or unknown result with its code is always valid.
func (r RuntimePrepareResult) ValidateAgainst(expected string, offset, total int64) error {
	if err := r.Validate(); err != nil {
		return err
	}
	return r.step().against(expected, offset, total)
}

// Validate checks one workspace_write step (wire-reference §3.10).
func (w WorkspaceWrite) Validate() error {
	const f = "workspace_write"
	switch w.Step {
	case StepBegin:
		if err := firstErr(canonicalUUID(w.EnvironmentID, f+".environment_id"),
			canonicalUUID(w.SessionID, f+".session_id"), validRelativePath(w.Path, f+".path")); err != nil {
			return err
		}
		switch {
		case !lowerHexDigest(w.SHA256):
			return invalid(f+".sha256", "must be 64 lower-case hex digits")
		case w.SizeBytes < 0 || w.SizeBytes > TransferBytesMax:
			return invalid(f+".size_bytes", "outside 0..%d", TransferBytesMax)
		case w.Offset != 0 || len(w.Data) != 0:
			return invalid(f, "begin carries no offset or data")
		}
	case StepChunk, StepCommit:
		if w.EnvironmentID != "" || w.SessionID != "" || w.Path != "" || w.SizeBytes != 0 || w.SHA256 != "" {
			return invalid(f, "%s carries no begin members", w.Step)
		}
		if err := validateChunkOrCommit(f, w.Step, w.Offset, len(w.Data)); err != nil {
			return err
		}
	default:
		return invalid(f+".step", "unknown step")
	}
	if n := encodedLen(w); n > WriteFrameBytesMax {
		return tooLarge(f, n, WriteFrameBytesMax)
	}
	return nil
}

func (r WorkspaceWriteResult) step() stepResult {
	return stepResult{f: "workspace_write_result", outcome: r.Outcome, offset: r.Offset, size: r.SizeBytes,
		code: r.ErrorCode, rejected: WriteRejectedCodes, unknown: WriteUnconfirmed}
}

// Validate checks the context-free rules of workspace_write_result: reason
// only with rejected write_rejected (any value, unknown ones included).
func (r WorkspaceWriteResult) Validate() error {
	if r.Reason != "" && (r.Outcome != OutcomeRejected || r.ErrorCode != WriteRejected) {
		return invalid("workspace_write_result.reason", "only with rejected write_rejected")
	}
	return r.step().validate()
}

// ValidateAgainst checks a receipt against the expected outcome, offset
// and total size, like RuntimePrepareResult.ValidateAgainst.
func (r WorkspaceWriteResult) ValidateAgainst(expected string, offset, total int64) error {
	if err := r.Validate(); err != nil {
		return err
	}
	return r.step().against(expected, offset, total)
}

// Validate checks a workspace_export step (wire-reference §3.11).
func (e WorkspaceExport) Validate() error {
	const f = "workspace_export"
	if e.Step == StepBegin {
		switch {
		case e.Offset != 0:
			return invalid(f+".offset", "begin starts at 0")
		case e.Handle == "" || len(e.Handle) > ExportIDBytesMax:
			return invalid(f+".handle", "needs 1..%d bytes", ExportIDBytesMax)
		case e.EnvironmentID == "" || len(e.EnvironmentID) > ExportIDBytesMax:
			return invalid(f+".environment_id", "needs 1..%d bytes", ExportIDBytesMax)
		}
		return nil
	}
	if e.Handle != "" || e.EnvironmentID != "" {
		return invalid(f, "only begin carries handle and environment_id")
	}
	switch e.Step {
	case StepNext:
		if e.Offset < 0 || e.Offset > ExportBytesMax {
			return invalid(f+".offset", "outside 0..%d", ExportBytesMax)
		}
	case StepCancel:
		if e.Offset != 0 {
			return invalid(f+".offset", "cancel carries no offset")
		}
	default:
		return invalid(f+".step", "unknown step")
	}
	return nil
}

// Validate checks workspace_export_result: completed carries no data and no
// code; chunk carries 1..64 KiB without code within 528 MiB; a refusal
// (any other outcome) carries a code and no data; encoded at most 96 KiB.
func (r WorkspaceExportResult) Validate() error {
	const f = "workspace_export_result"
	if r.Offset < 0 || r.Offset > ExportBytesMax {
		return invalid(f+".offset", "outside 0..%d", ExportBytesMax)
	}
	switch r.Outcome {
	case OutcomeCompleted:
		if len(r.Data) != 0 || r.ErrorCode != "" {
			return invalid(f, "completed carries no data or code")
		}
	case OutcomeChunk:
		switch {
		case r.ErrorCode != "":
			return invalid(f+".error_code", "not allowed on chunk")
		case len(r.Data) < 1 || len(r.Data) > ChunkBytesMax:
			return invalid(f+".data", "chunk needs 1..%d bytes", ChunkBytesMax)
		case int64(len(r.Data)) > ExportBytesMax-r.Offset:
			return invalid(f+".data", "export exceeds %d bytes", ExportBytesMax)
		}
	case "":
		return missing(f + ".outcome")
	default:
		if r.ErrorCode == "" || len(r.Data) != 0 {
			return invalid(f, "a refusal carries a code and no data")
		}
	}
	if n := encodedLen(r); n > WriteFrameBytesMax {
		return tooLarge(f, n, WriteFrameBytesMax)
	}
	return nil
}

// ValidateAgainst also requires a chunk or completed result to report the
// bytes received so far as its offset. Refusals end the export.
func (r WorkspaceExportResult) ValidateAgainst(received int64) error {
	if err := r.Validate(); err != nil {
		return err
	}
	if (r.Outcome == OutcomeChunk || r.Outcome == OutcomeCompleted) && r.Offset != received {
		return invalid("workspace_export_result.offset", "want %d", received)
	}
	return nil
}

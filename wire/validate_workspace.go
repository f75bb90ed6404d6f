package wire

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

func encodedLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// Validate checks workspace_read: exactly one of handle/run_id; an
// environment ID; a byte read has 1 ≤ max_bytes ≤ 1 MiB and no max_entries;
// a directory read has max_bytes 0 and 1 ≤ max_entries ≤ 1024; the encoded
// request is at most 8 KiB.
func (r WorkspaceRead) Validate() error {
	const f = "workspace_read"
	switch {
	case (r.Handle == "") == (r.RunID == ""):
		return invalid(f+".handle", "exactly one of handle and run_id")
	case r.EnvironmentID == "":
		return missing(f + ".environment_id")
	case len(r.Path) > WorkspacePathBytesMax:
		return tooLarge(f+".path", len(r.Path), WorkspacePathBytesMax)
	case strings.ContainsAny(r.Path, "\x00\r\n"):
		return invalid(f+".path", "control character")
	}
	switch r.Operation {
	case ReadOperationBytes:
		if r.MaxBytes < ReadBytesMin || r.MaxBytes > ReadResultBytesMax {
			return invalid(f+".max_bytes", "byte read needs 1..%d", ReadResultBytesMax)
		}
		if r.MaxEntries != 0 {
			return invalid(f+".max_entries", "only for directory reads")
		}
	case ReadOperationDirectory:
		if r.MaxBytes != 0 {
			return invalid(f+".max_bytes", "must be 0 for directory reads")
		}
		if r.MaxEntries < DirectoryEntriesMin || r.MaxEntries > DirectoryEntriesMax {
			return invalid(f+".max_entries", "directory read needs 1..%d", DirectoryEntriesMax)
		}
	default:
		return invalid(f+".operation", "unknown operation")
	}
	if n := encodedLen(r); n > RequestBytesMax {
		return tooLarge(f, n, RequestBytesMax)
	}
	return nil
}

// Validate checks the rules of workspace_read_result that need no request.
func (r WorkspaceReadResult) Validate() error {
	const f = "workspace_read_result"
	if len(r.Data) > ReadResultBytesMax {
		return tooLarge(f+".data", len(r.Data), ReadResultBytesMax)
	}
	switch r.Outcome {
	case OutcomeCompleted:
		if !r.CloseAcknowledged {
			return missing(f + ".close_acknowledged")
		}
		if r.ErrorCode != "" {
			return invalid(f+".error_code", "not allowed on completed")
		}
		if r.Directory != nil {
			if len(r.Data) > 0 {
				return invalid(f+".data", "a directory result carries no data")
			}
			if r.Truncated {
				return invalid(f+".truncated", "a directory result is never truncated")
			}
			return r.Directory.ValidateFor(DirectoryEntriesMax)
		}
		return nil
	case OutcomeRejected:
		if !oneOf(r.ErrorCode, ReadRejectedCodes...) && r.ErrorCode != ReadNotDirectory {
			return invalid(f+".error_code", "unknown rejection code")
		}
	case OutcomeUnknown:
		if r.ErrorCode != ReadUnconfirmed {
			return invalid(f+".error_code", "unknown needs read_unconfirmed")
		}
	default:
		return invalid(f+".outcome", "unknown outcome")
	}
	switch {
	case len(r.Data) > 0:
		return invalid(f+".data", "only on completed")
	case r.Truncated:
		return invalid(f+".truncated", "only on completed")
	case r.CloseAcknowledged:
		return invalid(f+".close_acknowledged", "only on completed")
	case r.Directory != nil:
		return invalid(f+".directory", "only on completed")
	}
	return nil
}

// ValidateAgainst checks a result against the request it answers
// (wire-reference §3.9, byte and directory rules).
func (r WorkspaceReadResult) ValidateAgainst(req WorkspaceRead) error {
	const f = "workspace_read_result"
	if err := r.Validate(); err != nil {
		return err
	}
	dir := req.Operation == ReadOperationDirectory
	if r.Outcome == OutcomeRejected && r.ErrorCode == ReadNotDirectory && !dir {
		return invalid(f+".error_code", "not_directory only answers directory reads")
	}
	if r.Outcome != OutcomeCompleted {
		return nil
	}
	if !dir {
		switch {
		case r.Directory != nil:
			return invalid(f+".directory", "not allowed on a byte read")
		case len(r.Data) > req.MaxBytes:
			return tooLarge(f+".data", len(r.Data), req.MaxBytes)
		case r.Truncated && len(r.Data) != req.MaxBytes:
			return invalid(f+".truncated", "only when data reaches max_bytes")
		}
		return nil
	}
	if r.Directory == nil {
		return missing(f + ".directory")
	}
	return r.Directory.ValidateFor(req.MaxEntries)
}

// ValidateFor checks a listing for a request of maxEntries (1..1024):
// entries non-null and at most maxEntries; names non-empty, not . or ..,
// at most 255 bytes, valid UTF-8, free of / \ NUL CR LF and unique; a file
// has a non-negative size, other kinds a null size.
func (d WorkspaceDirectoryResult) ValidateFor(maxEntries int) error {
	const f = "workspace_read_result.directory"
	if maxEntries < DirectoryEntriesMin || maxEntries > DirectoryEntriesMax {
		return invalid(f, "max_entries outside 1..%d", DirectoryEntriesMax)
	}
	if d.Entries == nil {
		return missing(f + ".entries")
	}
	if len(d.Entries) > maxEntries {
		return tooLarge(f+".entries", len(d.Entries), maxEntries)
	}
	seen := make(map[string]struct{}, len(d.Entries))
	for i, e := range d.Entries {
		ef := fmt.Sprintf("%s.entries[%d]", f, i)
		if err := validateEntryName(e.Name, ef+".name"); err != nil {
			return err
		}
		if _, dup := seen[e.Name]; dup {
			return invalid(ef+".name", "duplicate name")
		}
		seen[e.Name] = struct{}{}
		switch e.Kind {
		case EntryFile:
			if e.SizeBytes == nil || *e.SizeBytes < 0 {
				return invalid(ef+".size_bytes", "a file needs a non-negative size")
			}
		case EntryDirectory, EntrySymlink, EntryOther:
			if e.SizeBytes != nil {
				return invalid(ef+".size_bytes", "must be null for kind %s", e.Kind)
			}
		default:
			return invalid(ef+".kind", "unknown kind")
		}
	}
	return nil
}

func validateEntryName(name, f string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return invalid(f, "empty or dot name")
	case len(name) > DirectoryNameBytes:
		return tooLarge(f, len(name), DirectoryNameBytes)
	case !utf8.ValidString(name):
		return invalid(f, "not UTF-8")
	case strings.ContainsAny(name, "/\\\x00\r\n"):
		return invalid(f, "forbidden character")
	}
	return nil
}

// validRelativePath applies the workspace_write path rule: at most 4096
// bytes, a valid io/fs path other than ".", no backslash, NUL, CR or LF.
func validRelativePath(p, f string) error {
	switch {
	case len(p) > WorkspacePathBytesMax:
		return tooLarge(f, len(p), WorkspacePathBytesMax)
	case p == "." || !fs.ValidPath(p):
		return invalid(f, "not a clean relative path")
	case strings.ContainsAny(p, "\\\x00\r\n"):
		return invalid(f, "forbidden character")
	}
	return nil
}

// Validate checks a suspension request: both IDs present.
func (q EnvironmentQuiesce) Validate() error {
	return validateSuspension("environment_quiesce", q.EnvironmentID, q.SuspendID)
}

// Validate checks a suspension request: both IDs present.
func (q EnvironmentResume) Validate() error {
	return validateSuspension("environment_resume", q.EnvironmentID, q.SuspendID)
}

func validateSuspension(f, env, suspend string) error {
	if env == "" {
		return missing(f + ".environment_id")
	}
	if suspend == "" {
		return missing(f + ".suspend_id")
	}
	return nil
}

func validateSuspensionReply(f, env, suspend string, accepted bool, code string) error {
	if err := validateSuspension(f, env, suspend); err != nil {
		return err
	}
	if accepted && code != "" {
		return invalid(f+".error_code", "an accepted reply carries no code")
	}
	return nil
}

// Validate checks environment_quiesced: IDs present; accepted carries no code.
func (r EnvironmentQuiesced) Validate() error {
	return validateSuspensionReply("environment_quiesced", r.EnvironmentID, r.SuspendID, r.Accepted, r.ErrorCode)
}

// ValidateAgainst also requires both IDs echoed exactly.
func (r EnvironmentQuiesced) ValidateAgainst(req EnvironmentQuiesce) error {
	if err := r.Validate(); err != nil {
		return err
	}
	return echoed("environment_quiesced", r.EnvironmentID, r.SuspendID, req.EnvironmentID, req.SuspendID)
}

// Validate checks environment_resumed: IDs present; accepted carries no code.
func (r EnvironmentResumed) Validate() error {
	return validateSuspensionReply("environment_resumed", r.EnvironmentID, r.SuspendID, r.Accepted, r.ErrorCode)
}

// ValidateAgainst also requires both IDs echoed exactly.
func (r EnvironmentResumed) ValidateAgainst(req EnvironmentResume) error {
	if err := r.Validate(); err != nil {
		return err
	}
	return echoed("environment_resumed", r.EnvironmentID, r.SuspendID, req.EnvironmentID, req.SuspendID)
}

func echoed(f, env, suspend, wantEnv, wantSuspend string) error {
	if env != wantEnv {
		return invalid(f+".environment_id", "not echoed exactly")
	}
	if suspend != wantSuspend {
		return invalid(f+".suspend_id", "not echoed exactly")
	}
	return nil
}

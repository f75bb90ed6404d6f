package api

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/wire"
)

// Workspace error codes.
const (
	CodeNoWorkspace              = "no_workspace"
	CodeInvalidWorkspaceRequest  = "invalid_workspace_request"
	CodeWorkspaceBusy            = "workspace_busy"
	CodeWorkspaceMutationPending = "workspace_mutation_pending"
	CodeIdempotencyUnsupported   = "idempotency_unsupported"
)

// WorkspaceAnswer is every workspace answer. Outcome is completed,
// rejected (the Runtime refused safely: nothing read or changed),
// unavailable (not completed, no data: an incomplete read, an unconfirmed
// cleanup, no device, a lost connection or a timeout), or, for a write
// only, unknown (it may have been applied; later writes of the Session
// are refused until it is settled).
type WorkspaceAnswer struct {
	Outcome          string                `json:"outcome"`
	Code             string                `json:"code,omitempty"`
	ContentBase64    *string               `json:"content_base64,omitempty"`
	Truncated        bool                  `json:"truncated,omitempty"`
	Entries          []wire.DirectoryEntry `json:"entries,omitempty"`
	EntriesTruncated bool                  `json:"entries_truncated,omitempty"`
	SizeBytes        int64                 `json:"size_bytes,omitempty"`
	MutationID       string                `json:"mutation_id,omitempty"`
}

// workspaceStatus is the HTTP status of an outcome.
func workspaceStatus(r *core.WorkspaceResult) int {
	switch r.Outcome {
	case core.WorkspaceCompleted:
		return http.StatusOK
	case core.WorkspaceRejected:
		if r.Code == wire.ReadNotFound || r.Code == wire.ReadNotDirectory {
			return http.StatusNotFound
		}
		return http.StatusConflict
	case core.WorkspaceUnknown:
		return http.StatusAccepted
	}
	return http.StatusServiceUnavailable
}

func workspaceAnswer(res core.APIResult) (int, any) {
	r := res.Value.(*core.WorkspaceResult)
	a := WorkspaceAnswer{Outcome: r.Outcome, Code: r.Code, Truncated: r.Truncated, EntriesTruncated: r.EntriesTruncated,
		SizeBytes: r.SizeBytes, MutationID: r.Mutation}
	if r.Outcome == core.WorkspaceCompleted && r.Entries == nil && r.SizeBytes == 0 && r.Mutation == "" {
		s := base64.StdEncoding.EncodeToString(r.Data)
		a.ContentBase64 = &s
	}
	if r.Entries != nil {
		a.Entries = r.Entries
	}
	return workspaceStatus(r), a
}

// intParam reads a positive integer query parameter, def when absent.
func intParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, &badRequest{code: CodeInvalidWorkspaceRequest, detail: name + " must be a positive integer"}
	}
	return n, nil
}

// call runs one workspace event and writes its answer.
func (a *API) workspaceCall(w http.ResponseWriter, r *http.Request, ev func(core.CallID) core.Event) {
	if r.Header.Get("Idempotency-Key") != "" {
		fail(w, http.StatusBadRequest, CodeIdempotencyUnsupported,
			"workspace operations are never replayed; Idempotency-Key is not accepted here")
		return
	}
	rep, err := a.s.Call(r.Context(), server.Request{Event: ev})
	if err != nil {
		a.failErr(w, err)
		return
	}
	if _, ok := rep.Result.Value.(*core.WorkspaceResult); !ok {
		a.failErr(w, errOr(rep.Result.Err))
		return
	}
	st, v := workspaceAnswer(rep.Result)
	writeJSON(w, st, v)
}

func errOr(err error) error {
	if err != nil {
		return err
	}
	return errors.New("api: workspace call answered without a result")
}

// readFile: GET /core/v1/sessions/{session}/workspace/file?path=&max_bytes=
func (a *API) readFile(w http.ResponseWriter, r *http.Request) {
	n, err := intParam(r, "max_bytes", wire.ReadResultBytesMax)
	if err != nil {
		a.failErr(w, err)
		return
	}
	sid, path := r.PathValue("session"), r.URL.Query().Get("path")
	a.workspaceCall(w, r, func(c core.CallID) core.Event {
		return core.ReadWorkspace{Call: c, Session: sid, Path: path, MaxBytes: n}
	})
}

// listDirectory: GET /core/v1/sessions/{session}/workspace/directory?path=&max_entries=
func (a *API) listDirectory(w http.ResponseWriter, r *http.Request) {
	n, err := intParam(r, "max_entries", wire.DirectoryEntriesMax)
	if err != nil {
		a.failErr(w, err)
		return
	}
	sid, path := r.PathValue("session"), r.URL.Query().Get("path")
	a.workspaceCall(w, r, func(c core.CallID) core.Event {
		return core.ReadWorkspace{Call: c, Session: sid, Path: path, Directory: true, MaxEntries: n}
	})
}

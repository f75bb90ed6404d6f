package api

import (
	"context"
	"net/http"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
)

// ExportOutcomeTrailer is the HTTP trailer a streamed export ends with
// when it completed: "completed". A stream that does not end with it is
// not a complete archive (see exportWorkspace).
const ExportOutcomeTrailer = "Workspace-Export-Outcome"

// exportWorkspace: GET /core/v1/sessions/{session}/workspace/export.
//
// The archive is streamed: each chunk Core pulls from the Runtime is
// written (and flushed) to the client before the next is pulled, so the
// handler holds at most one chunk (64 KiB) whatever the archive's size.
// An export that ends before its first chunk is answered as a
// WorkspaceAnswer (JSON, no data). Once the tar stream has begun
// (200, application/x-tar, chunked), the response ends in one of two
// ways: it completed — the Runtime sent the whole archive and confirmed
// the release of its read-only profile — and the body ends cleanly with
// the trailer Workspace-Export-Outcome: completed; or it did not, and the
// connection is cut without the chunked terminator, so the client's read
// of the body fails (an unexpected EOF) and no trailer arrives. A client
// that got a clean end without the trailer did not get a complete export.
func (a *API) exportWorkspace(w http.ResponseWriter, r *http.Request) {
	sid := r.PathValue("session")
	st, err := a.s.StreamCall(r.Context(), func(c core.CallID) core.Event {
		return core.ExportWorkspace{Call: c, Session: sid, Stream: true}
	})
	if err != nil {
		a.failErr(w, err)
		return
	}
	x := exportWriter{w: w, st: st}
	for {
		select {
		case data := <-st.Chunks:
			if !x.chunk(data) {
				_ = st.Taken(context.Background(), true)
				x.awaitEnd(a.s)
				return
			}
			if st.Taken(context.Background(), false) != nil {
				panic(http.ErrAbortHandler) // Core stopped mid-stream
			}
		case res := <-st.Result:
			x.end(a, res)
			return
		case <-r.Context().Done():
			_ = st.Taken(context.Background(), true)
			x.awaitEnd(a.s)
			return
		case <-a.s.Done():
			x.end(a, core.APIResult{Err: server.ErrStopped})
			return
		}
	}
}

// exportWriter writes one streamed export's response.
type exportWriter struct {
	w       http.ResponseWriter
	st      *server.Stream
	started bool // the tar stream's header was written
}

// chunk writes and flushes one chunk; false when the client is gone.
func (x *exportWriter) chunk(data []byte) bool {
	if !x.started {
		h := x.w.Header()
		h.Set("Content-Type", "application/x-tar")
		h.Set("Trailer", ExportOutcomeTrailer)
		x.w.WriteHeader(http.StatusOK)
		x.started = true
	}
	if _, err := x.w.Write(data); err != nil {
		return false
	}
	return http.NewResponseController(x.w).Flush() == nil
}

// end answers the call's result: the trailer of a completed stream, a cut
// connection for a stream that did not complete, or a JSON answer when
// nothing was streamed yet.
func (x *exportWriter) end(a *API, res core.APIResult) {
	ws, _ := res.Value.(*core.WorkspaceResult)
	completed := ws != nil && ws.Outcome == core.WorkspaceCompleted
	switch {
	case completed && !x.started:
		// an archive of no bytes (no chunk was sent)
		x.w.Header().Set("Content-Type", "application/x-tar")
		x.w.Header().Set("Trailer", ExportOutcomeTrailer)
		x.w.WriteHeader(http.StatusOK)
		x.w.Header().Set(ExportOutcomeTrailer, core.WorkspaceCompleted)
	case completed:
		x.w.Header().Set(ExportOutcomeTrailer, core.WorkspaceCompleted)
	case x.started:
		panic(http.ErrAbortHandler) // cut: the client's read fails
	case res.Err != nil || ws == nil:
		a.failErr(x.w, errOr(res.Err))
	default:
		writeJSON(x.w, workspaceStatus(ws), WorkspaceAnswer{Outcome: ws.Outcome, Code: ws.Code})
	}
}

// awaitEnd waits for the result of an abandoned export (the machine ends
// it at once) and cuts the response if the stream had begun.
func (x *exportWriter) awaitEnd(s *server.Server) {
	select {
	case <-x.st.Result:
	case <-s.Done():
	}
	if x.started {
		panic(http.ErrAbortHandler)
	}
}

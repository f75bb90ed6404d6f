package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
)

// SSE event names besides the run event types (delta, done, ...).
const (
	EventEnd              = "end"               // the Turn is terminal and its stream complete
	EventObservationError = "observation_error" // observation was lost; says nothing of the native outcome
)

// observationCode names an observation error.
func observationCode(err error) string {
	switch {
	case errors.Is(err, core.ErrDisconnected):
		return "disconnected"
	case errors.Is(err, core.ErrSubscriberOverflow):
		return "subscriber_overflow"
	case errors.Is(err, core.ErrEventLimit):
		return "event_limit"
	case errors.Is(err, server.ErrStopped):
		return "core_stopped"
	}
	return "observation_lost"
}

// events streams a Turn's persisted run events as Server-Sent Events: each
// carries its persisted sequence as the id; Last-Event-ID resumes after
// it. The stream ends with `end` (terminal, complete) or
// `observation_error` (observation lost), never with a fabricated done.
func (a *API) events(w http.ResponseWriter, r *http.Request) {
	after := uint64(0)
	if v := strings.TrimSpace(r.Header.Get("Last-Event-ID")); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			fail(w, http.StatusBadRequest, CodeBadLastEventID, "Last-Event-ID must be a persisted event sequence")
			return
		}
		after = n
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		fail(w, http.StatusInternalServerError, CodeInternal, "streaming unsupported")
		return
	}
	sub, err := a.s.Subscribe(r.Context(), r.PathValue("turn"))
	if err != nil {
		a.failErr(w, err)
		return
	}
	defer sub.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	for {
		o, err := sub.Next(r.Context())
		if err != nil {
			return // the client went away
		}
		if o.Closed {
			writeClose(w, o)
			fl.Flush()
			return
		}
		if o.Event.Seq <= after {
			continue
		}
		data, err := json.Marshal(o.Event.Payload)
		if err != nil {
			data = []byte(`{}`)
		}
		fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", o.Event.Seq, o.Event.Type, data)
		fl.Flush()
	}
}

func writeClose(w http.ResponseWriter, o core.Observation) {
	if o.Err == nil {
		fmt.Fprintf(w, "event: %s\ndata: {\"turn_id\":%q}\n\n", EventEnd, o.Turn)
		return
	}
	b, _ := json.Marshal(map[string]string{"turn_id": o.Turn, "error": observationCode(o.Err), "detail": o.Err.Error()})
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", EventObservationError, b)
}

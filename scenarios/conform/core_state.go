package conform

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// api makes a scenario's public API call: the first submit creates the
// Session (kind contract, model "model", no execution environment).
func (r *coreRun) api(st scenarios.Step) {
	switch st.Action {
	case "submit-turn":
		if r.session == "" {
			kind := st.Args["kind"]
			if kind == "" {
				kind = "contract"
			}
			body, _ := json.Marshal(map[string]any{"agent": map[string]string{"kind": kind, "model": "model"}, "environment": map[string]string{"type": "none"}})
			id, ok := r.post("/api/v1/sessions", string(body), "session_id")
			if !ok {
				return
			}
			r.session = id
		}
		if id, ok := r.post("/api/v1/sessions/"+url.PathEscape(r.session)+"/turns", jsonText(st.Args["text"]), "turn_id"); ok {
			r.turns = append(r.turns, id)
		}
	case "steer":
		if id, ok := r.turnArg(st.Args); ok {
			r.post("/api/v1/turns/"+url.PathEscape(id)+"/inputs", jsonText(st.Args["text"]), "")
		}
	case "cancel":
		if id, ok := r.turnArg(st.Args); ok {
			r.post("/api/v1/turns/"+url.PathEscape(id)+"/cancel", "", "")
		}
	case "answer-permission", "answer-choice", "function-result":
		r.answer(st)
	case "quiesce", "resume":
		r.fence(st)
	case "read-directory", "read-file", "write-file", "export":
		r.workspace(st)
	}
}

func (r *coreRun) turnArg(args map[string]string) (string, bool) {
	n := len(r.turns)
	if s, ok := args["turn"]; ok {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > len(r.turns) {
			r.failf("turn=%s: %d Turns submitted", s, len(r.turns))
			return "", false
		}
		n = v
	}
	if n == 0 {
		r.failf("no Turn submitted yet")
		return "", false
	}
	return r.turns[n-1], true
}

// turnJSON is the part of the public API's Turn the assertions read.
type turnJSON struct {
	State       string `json:"state"`
	Attempt     *int   `json:"attempt"`
	ErrorCode   string `json:"error_code"`
	EngineError *struct {
		Code       string `json:"code"`
		HTTPStatus int    `json:"http_status"`
	} `json:"engine_error"`
	Usage *struct {
		Tokens *struct {
			InputTokens  int64 `json:"input_tokens"`
			OutputTokens int64 `json:"output_tokens"`
			TotalTokens  int64 `json:"total_tokens"`
		} `json:"tokens"`
	} `json:"usage"`
	Content     *string `json:"content"`
	InputCursor *int    `json:"input_cursor"`
	Inputs      []struct {
		State string `json:"state"`
	} `json:"inputs"`
}

// coreState reads the Turn through the public API and compares what it
// shows; a member the answer lacks is reported as not checked. A Core's
// API may show a frame's effect a moment after the frame arrived, so a
// difference is read again until -frame-timeout before it fails.
func (r *coreRun) coreState(args map[string]string) {
	id, ok := r.turnArg(args)
	if !ok {
		return
	}
	deadline := time.Now().Add(r.o.FrameTimeout)
	for {
		have, err := r.turnFields(id)
		if err != "" {
			r.failf("%s", err)
			return
		}
		diffs, unshown := compareTurn(id, args, have)
		if len(diffs) == 0 || time.Now().After(deadline) {
			for _, u := range unshown {
				r.notf("%s", u)
			}
			for _, d := range diffs {
				r.failf("%s", d)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// turnFields reads the members core-state asserts from the public API's Turn.
func (r *coreRun) turnFields(id string) (map[string]string, string) {
	st, b, err := r.apiCall(http.MethodGet, "/api/v1/turns/"+url.PathEscape(id), "")
	var t turnJSON
	if err != nil || st != http.StatusOK || json.Unmarshal(b, &t) != nil {
		return nil, fmt.Sprintf("Turn %s: not readable (%d %v %s)", id, st, err, b)
	}
	have := map[string]string{"state": t.State, "code": t.ErrorCode, "engine_code": "", "engine_status": "0", "usage": "-"}
	if t.EngineError != nil {
		have["engine_code"], have["engine_status"] = t.EngineError.Code, strconv.Itoa(t.EngineError.HTTPStatus)
	}
	if t.Usage != nil && t.Usage.Tokens != nil {
		u := t.Usage.Tokens
		have["usage"] = fmt.Sprintf("%d/%d/%d", u.InputTokens, u.OutputTokens, u.TotalTokens)
	}
	if t.Content != nil {
		have["content"] = *t.Content
	}
	if t.Attempt != nil {
		have["attempt"] = strconv.Itoa(*t.Attempt)
	}
	if t.InputCursor != nil {
		have["cursor"] = strconv.Itoa(*t.InputCursor)
	}
	if t.Inputs != nil {
		var states []string
		for _, in := range t.Inputs {
			states = append(states, in.State)
		}
		have["inputs"] = strings.Join(states, ",")
	}
	return have, ""
}

// compareTurn lists the differences and the members the Turn does not show.
func compareTurn(id string, args, have map[string]string) (diffs, unshown []string) {
	for _, k := range []string{"state", "cursor", "code", "engine_code", "engine_status", "content", "attempt", "inputs", "usage"} {
		want, listed := args[k]
		if !listed {
			continue
		}
		got, shown := have[k]
		switch {
		case !shown:
			unshown = append(unshown, fmt.Sprintf("core-state %s=%s: the public API's Turn does not show it", k, want))
		case got != want:
			diffs = append(diffs, fmt.Sprintf("Turn %s: %s=%q, want %q", id, k, got, want))
		}
	}
	return diffs, unshown
}

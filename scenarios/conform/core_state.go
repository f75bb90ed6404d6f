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

// api makes a scenario's API call: the first submit creates the Session
// through the Agents API (harness contract, model "model", no
// environment); submit-turn, steer and cancel are its input events.
func (r *coreRun) API(st scenarios.Step) {
	switch st.Action {
	case "submit-turn":
		if r.session == "" {
			kind := st.Args["kind"]
			if kind == "" {
				kind = "contract"
			}
			if !r.createSession(kind, map[string]string{"type": "none"}) {
				return
			}
		}
		if rc, ok := r.send(message(st.Args["text"])); ok {
			if rc.Action != "turn_started" {
				r.failf("submit-turn: the message %s Turn %s (the Session's Turn was still running)", rc.Action, rc.TurnID)
				return
			}
			r.turns = append(r.turns, rc.TurnID)
		}
	case "steer":
		if id, ok := r.turnArg(st.Args); ok {
			if rc, ok := r.send(message(st.Args["text"])); ok && (rc.Action != "steered" || rc.TurnID != id) {
				r.failf("steer: the message %s Turn %s, want it steered into %s", rc.Action, rc.TurnID, id)
			}
		}
	case "cancel":
		if id, ok := r.turnArg(st.Args); ok {
			if rc, ok := r.send(`{"type":"agent.session.input.cancel"}`); ok && rc.TurnID != id {
				r.failf("cancel: the cancel reached Turn %s, want %s", rc.TurnID, id)
			}
		}
	case "answer-permission", "answer-choice", "function-result":
		r.answer(st)
	case "quiesce", "resume":
		r.fence(st)
	case "read-directory", "read-file", "write-file", "export":
		r.workspace(st)
	}
}

// createSession creates the scenario's Session through the Agents API on
// environment env.
func (r *coreRun) createSession(kind string, env any) bool {
	body, _ := json.Marshal(map[string]any{"agent": map[string]any{"model": "model", "x_agents_core": map[string]string{"harness": kind}},
		"environment": env})
	id, ok := r.post("/v1/agents/sessions", string(body), "id")
	if ok {
		r.session = id
	}
	return ok
}

// message is a message input event of text.
func message(text string) string {
	b, _ := json.Marshal(map[string]string{"type": "agent.session.input.message", "input": text})
	return string(b)
}

func (r *coreRun) eventsPath() string {
	return "/v1/agents/sessions/" + url.PathEscape(r.session) + "/events"
}

// receipt is what an input event did.
type receipt struct {
	Action     string `json:"action"`
	TurnID     string `json:"turn_id"`
	DeliveryID string `json:"delivery_id"`
}

// send posts one input event to the Session; it must be accepted.
func (r *coreRun) send(event string) (receipt, bool) {
	if r.session == "" {
		r.failf("no Session: submit a Turn first")
		return receipt{}, false
	}
	path := r.eventsPath()
	st, b, err := r.apiCall(http.MethodPost, path, `{"events":[`+event+`]}`)
	var out struct {
		Receipts []receipt `json:"receipts"`
	}
	switch {
	case err != nil:
		r.failf("POST %s: %v", path, err)
	case st != http.StatusOK:
		r.failf("POST %s %s refused: %d %s", path, event, st, b)
	case json.Unmarshal(b, &out) != nil || len(out.Receipts) != 1:
		r.failf("POST %s: answer %s has no receipt", path, b)
	default:
		return out.Receipts[0], true
	}
	return receipt{}, false
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

// turnJSON is the part of Core's view of a Turn (GET /core/v1/turns/{turn})
// the assertions read.
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

// coreState reads Core's view of the Turn and compares what it
// shows; a member the answer lacks is reported as not checked. A Core's
// API may show a frame's effect a moment after the frame arrived, so a
// difference is read again until -frame-timeout before it fails.
func (r *coreRun) CoreState(args map[string]string) {
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

// turnFields reads the members core-state asserts from Core's view of the
// Turn.
func (r *coreRun) turnFields(id string) (map[string]string, string) {
	st, b, err := r.apiCall(http.MethodGet, "/core/v1/turns/"+url.PathEscape(id), "")
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
			unshown = append(unshown, fmt.Sprintf("core-state %s=%s: Core's view of the Turn does not show it", k, want))
		case got != want:
			diffs = append(diffs, fmt.Sprintf("Turn %s: %s=%q, want %q", id, k, got, want))
		}
	}
	return diffs, unshown
}

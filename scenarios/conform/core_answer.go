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
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
)

// answerCall is the HTTP call of an answer step on Turn turn: a
// permission answer as the Agents API's approval result and a function
// result as its tool result (input events of the Session), a user-choice
// answer on the operator route with the step's body.
func (r *coreRun) answerCall(st scenarios.Step, turn string) (path, body string, err error) {
	switch st.Action {
	case "answer-permission":
		var b coreapi.PermissionBody
		if err := strictJSON(st.Input, &b); err != nil || b.Approved == nil {
			return "", "", fmt.Errorf("answer-permission: body %s: want {\"approved\":bool} (%v)", st.Input, err)
		}
		if b.Message != "" || b.UpdatedInput != nil {
			return "", "", fmt.Errorf("answer-permission: body %s: the Agents API's approval result carries no message or updated_input", st.Input)
		}
		decision := "deny"
		if *b.Approved {
			decision = "approve"
		}
		ev, _ := json.Marshal(map[string]any{"type": "agent.session.input.mcp_approval_request_result", "request_id": st.Args["interaction"],
			"response": map[string]string{"type": "mcp_tool_call", "decision": decision}})
		return r.eventsPath(), `{"events":[` + string(ev) + `]}`, nil
	case "function-result":
		var b coreapi.FunctionResultBody
		if err := strictJSON(st.Input, &b); err != nil || b.Success == nil || b.Content == nil {
			return "", "", fmt.Errorf("function-result: body %s: want {\"success\":bool,\"content\":[…]} (%v)", st.Input, err)
		}
		ev, _ := json.Marshal(map[string]any{"type": "agent.session.input.tool_result", "turn_id": turn, "call_id": st.Args["call"],
			"success": *b.Success, "output": b.Content})
		return r.eventsPath(), `{"events":[` + string(ev) + `]}`, nil
	}
	return "/core/v1/turns/" + url.PathEscape(turn) + "/user-choices/" + url.PathEscape(st.Args["interaction"]), st.Input, nil
}

func strictJSON(s string, v any) error {
	d := json.NewDecoder(strings.NewReader(s))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// answer makes an answer call; refused= names the error code the API
// must answer with.
func (r *coreRun) answer(st scenarios.Step) {
	id, ok := r.turnArg(st.Args)
	if !ok {
		return
	}
	path, body, err := r.answerCall(st, id)
	if err != nil {
		r.failf("%v", err)
		return
	}
	status, b, err := r.apiCall(http.MethodPost, path, body)
	if err != nil {
		r.failf("POST %s: %v", path, err)
		return
	}
	code := errorCode(b)
	want := st.Args["refused"]
	switch {
	case want == "" && status/100 != 2:
		r.failf("POST %s refused: %d %s", path, status, b)
	case want != "" && status/100 == 2:
		r.failf("POST %s: accepted (%d %s), want it refused %s", path, status, b, want)
	case want != "" && code != want:
		r.failf("POST %s: refused %q (%d %s), want %s", path, code, status, b, want)
	}
}

// coreInteraction reads the Turn's interactions in Core's view of it;
// a difference is read again until -frame-timeout before it fails.
func (r *coreRun) CoreInteraction(args map[string]string) {
	id, ok := r.turnArg(args)
	if !ok {
		return
	}
	deadline := time.Now().Add(r.o.FrameTimeout)
	for {
		all, ids, shown, err := r.interactions(id)
		switch {
		case err != "":
			r.failf("%s", err)
			return
		case !shown:
			r.notf("core-interaction id=%s: Core's view of the Turn does not show interactions", args["id"])
			return
		}
		_, errs := scenarios.CheckInteraction(args, all, ids)
		if len(errs) == 0 || time.Now().After(deadline) {
			for _, e := range errs {
				r.failf("Turn %s: %v", id, e)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// interactions reads a Turn's interactions as Core's view shows them.
func (r *coreRun) interactions(id string) (all []map[string]string, ids []string, shown bool, failure string) {
	st, b, err := r.apiCall(http.MethodGet, "/core/v1/turns/"+url.PathEscape(id), "")
	var t struct {
		Interactions *[]struct {
			ID        string `json:"id"`
			Kind      string `json:"kind"`
			Status    string `json:"status"`
			ErrorCode string `json:"error_code"`
			Attempts  int    `json:"attempts"`
		} `json:"interactions"`
	}
	if err != nil || st != http.StatusOK || json.Unmarshal(b, &t) != nil {
		return nil, nil, false, fmt.Sprintf("Turn %s: not readable (%d %v %s)", id, st, err, b)
	}
	if t.Interactions == nil {
		return nil, nil, false, ""
	}
	for _, v := range *t.Interactions {
		all = append(all, map[string]string{"kind": v.Kind, "status": v.Status, "code": v.ErrorCode, "attempts": strconv.Itoa(v.Attempts)})
		ids = append(ids, v.ID)
	}
	return all, ids, true, ""
}

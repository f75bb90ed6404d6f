package conform

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
)

// answerRoute is the public API route of an answer call on a Turn.
func answerRoute(st scenarios.Step, turn string) string {
	t := "/api/v1/turns/" + url.PathEscape(turn)
	switch st.Action {
	case "answer-permission":
		return t + "/permissions/" + url.PathEscape(st.Args["interaction"])
	case "answer-choice":
		return t + "/user-choices/" + url.PathEscape(st.Args["interaction"])
	}
	return t + "/function-calls/" + url.PathEscape(st.Args["call"]) + "/result"
}

// answer posts an answer call's body; refused= names the error code the
// API must answer with.
func (r *coreRun) answer(st scenarios.Step) {
	id, ok := r.turnArg(st.Args)
	if !ok {
		return
	}
	path := answerRoute(st, id)
	status, b, err := r.apiCall(http.MethodPost, path, st.Input)
	if err != nil {
		r.failf("POST %s: %v", path, err)
		return
	}
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(b, &e)
	want := st.Args["refused"]
	switch {
	case want == "" && status/100 != 2:
		r.failf("POST %s refused: %d %s", path, status, b)
	case want != "" && status/100 == 2:
		r.failf("POST %s: accepted (%d %s), want it refused %s", path, status, b, want)
	case want != "" && e.Error != want:
		r.failf("POST %s: refused %q (%d %s), want %s", path, e.Error, status, b, want)
	}
}

// coreInteraction reads the Turn's interactions through the public API;
// a difference is read again until -frame-timeout before it fails.
func (r *coreRun) coreInteraction(args map[string]string) {
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
			r.notf("core-interaction id=%s: the public API's Turn does not show interactions", args["id"])
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

// interactions reads a Turn's interactions as the public API shows them.
func (r *coreRun) interactions(id string) (all []map[string]string, ids []string, shown bool, failure string) {
	st, b, err := r.apiCall(http.MethodGet, "/api/v1/turns/"+url.PathEscape(id), "")
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

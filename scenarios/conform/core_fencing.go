package conform

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
)

// Suspension fencing routes of the public API (wire-reference §3.12).
const suspensionsPath = "/core/v1/suspensions"

// fence quiesces the scripted Runtime's device for the step's
// Environment (POST /core/v1/suspensions) or resumes the latest
// suspension (POST …/{suspend}/resume); refused= names the error code
// the API must answer with.
func (r *coreRun) fence(st scenarios.Step) {
	var path, body string
	switch st.Action {
	case "quiesce":
		b, _ := json.Marshal(map[string]string{"device_id": r.t.Device, "environment_id": st.Args["environment"]})
		path, body = suspensionsPath, string(b)
	case "resume":
		if r.suspend == "" {
			r.failf("api resume: nothing was quiesced")
			return
		}
		b, _ := json.Marshal(map[string]bool{"rollback": st.Args["rollback"] == "true"})
		path, body = suspensionsPath+"/"+url.PathEscape(r.suspend)+"/resume", string(b)
	}
	status, b, err := r.apiCall(http.MethodPost, path, body)
	if err != nil {
		r.failf("POST %s: %v", path, err)
		return
	}
	if !r.checkRefusal(st, path, status, b) || status/100 != 2 || st.Action != "quiesce" {
		return
	}
	var sent struct {
		SuspendID string `json:"suspend_id"`
	}
	if json.Unmarshal(b, &sent) != nil || sent.SuspendID == "" {
		r.failf("POST %s: answer %s has no suspend_id", path, b)
		return
	}
	r.suspend = sent.SuspendID
}

// checkRefusal compares an API answer with the step's refused=: without
// it the call must succeed, with it the call must be refused with that
// error code.
func (r *coreRun) checkRefusal(st scenarios.Step, path string, status int, b []byte) bool {
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
	default:
		return true
	}
	return false
}

// coreSuspension reads the latest suspension (GET
// /core/v1/suspensions/{suspend}) and compares the listed members; a
// difference is read again until -frame-timeout before it fails.
func (r *coreRun) CoreSuspension(args map[string]string) {
	if r.suspend == "" {
		r.failf("core-suspension: nothing was quiesced")
		return
	}
	path := suspensionsPath + "/" + url.PathEscape(r.suspend)
	deadline := time.Now().Add(r.o.FrameTimeout)
	for {
		status, b, err := r.apiCall(http.MethodGet, path, "")
		var s struct {
			State     string `json:"state"`
			ErrorCode string `json:"error_code"`
			Rollback  bool   `json:"rollback"`
			Attempts  int    `json:"attempts"`
		}
		if err != nil || status != http.StatusOK || json.Unmarshal(b, &s) != nil {
			r.failf("GET %s: not readable (%d %v %s)", path, status, err, b)
			return
		}
		have := map[string]string{"state": s.State, "code": s.ErrorCode,
			"rollback": strconv.FormatBool(s.Rollback), "attempts": strconv.Itoa(s.Attempts)}
		var diffs []string
		for _, k := range []string{"state", "code", "rollback", "attempts"} {
			if want, listed := args[k]; listed && have[k] != want {
				diffs = append(diffs, "suspension "+r.suspend+": "+k+"="+strconv.Quote(have[k])+", want "+strconv.Quote(want))
			}
		}
		if len(diffs) == 0 || time.Now().After(deadline) {
			for _, d := range diffs {
				r.failf("%s", d)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// preparationsPath lists Core's Environment preparations (operator
// route), in start order.
const preparationsPath = "/core/v1/preparations"

// corePreparation checks Core's latest Environment preparation of the
// scenario's Session (of any Session before one exists), as the
// operator route lists it.
func (r *coreRun) CorePreparation(args map[string]string) {
	status, b, err := r.apiCall(http.MethodGet, preparationsPath, "")
	var list struct {
		Preparations []struct {
			ID        string `json:"id"`
			State     string `json:"state"`
			SessionID string `json:"session_id"`
			Steps     []struct {
				State     string `json:"state"`
				ErrorCode string `json:"error_code"`
			} `json:"steps"`
		} `json:"preparations"`
	}
	if err != nil || status != http.StatusOK || json.Unmarshal(b, &list) != nil {
		r.failf("GET %s: not readable (%d %v %s)", preparationsPath, status, err, b)
		return
	}
	for i := len(list.Preparations) - 1; i >= 0; i-- {
		p := list.Preparations[i]
		if r.session != "" && p.SessionID != r.session {
			continue
		}
		var states []string
		code := ""
		for _, s := range p.Steps {
			states = append(states, s.State)
			if code == "" {
				code = s.ErrorCode
			}
		}
		_, errs := coreapi.CheckPreparationFields(args, p.ID, p.State, states, code)
		for _, e := range errs {
			r.failf("%v", e)
		}
		return
	}
	r.failf("core-preparation: Core has no Environment preparation")
}

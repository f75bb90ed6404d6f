package conform

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
	"github.com/turnstile-sim/turnstile/wire"
)

// wsAnswer is a workspace call's HTTP answer, once it came.
type wsAnswer struct {
	status int
	body   []byte
	err    error
	tar    bool // the answer is the export's tar stream
	file   bool // the answer is an Environment file write's
}

// fileOutcomes maps the Agents API's refusals of a file write onto the
// workspace outcomes.
var fileOutcomes = map[string]string{"workspace_rejected": "rejected", "workspace_unknown": "unknown", "workspace_unavailable": "unavailable"}

// fileFields reads a file write's answer: completed, or the outcome its
// refusal names with the Runtime's code (in parentheses in the message).
func fileFields(a *wsAnswer) (map[string]string, bool) {
	if a.err != nil {
		return nil, false
	}
	if a.status == http.StatusOK {
		return map[string]string{"outcome": "completed", "code": "", "entries": "", "data": "", "truncated": "false"}, true
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
			Code    string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(a.body, &e) != nil || fileOutcomes[e.Error.Code] == "" {
		return nil, false
	}
	code := ""
	if i := strings.LastIndex(e.Error.Message, " ("); i >= 0 && strings.HasSuffix(e.Error.Message, ")") {
		code = e.Error.Message[i+2 : len(e.Error.Message)-1]
	}
	return map[string]string{"outcome": fileOutcomes[e.Error.Code], "code": code, "entries": "", "data": "", "truncated": "false"}, true
}

// workspace makes a workspace call: a read or the export on Core's
// operator routes (GET /core/v1/sessions/{session}/workspace/directory?
// path=&max_entries=, …/workspace/file?path=&max_bytes=, …/export), a
// write as a file of the Session's Environment (POST
// /v1/agents/environments/{environment}/files). The first creates the
// Session through the Agents API on an inline self_hosted environment
// (Core chooses its ID, which the scenario's frames bind). Core answers
// once the Runtime's work settled, so the request waits on its own
// goroutine and core-workspace reads its answer.
func (r *coreRun) workspace(st scenarios.Step) {
	if r.session == "" && !r.createSession("contract", map[string]string{"type": "self_hosted", "workspace_directory": "/workspace"}) {
		return
	}
	if st.Action == "write-file" {
		r.writeFile(st)
		return
	}
	q := url.Values{"path": {st.Args["path"]}}
	route := "/workspace/file"
	if st.Action == "export" {
		route, q = "/workspace/export", url.Values{}
	}
	if st.Action == "read-directory" {
		route = "/workspace/directory"
		if v := st.Args["max_entries"]; v != "" {
			q.Set("max_entries", v)
		}
	} else if v := st.Args["max_bytes"]; v != "" {
		q.Set("max_bytes", v)
	}
	path := "/core/v1/sessions/" + url.PathEscape(r.session) + route + "?" + q.Encode()
	done := make(chan wsAnswer, 1)
	r.ws, r.wsDone = done, nil
	export := st.Action == "export"
	go func() {
		st, b, err := r.apiCallWait(http.MethodGet, path, "", wsCallWait)
		done <- wsAnswer{status: st, body: b, err: err, tar: export && st == http.StatusOK}
	}()
}

// writeFile puts the step's content at its path as a file of the
// Session's Environment, waiting on its own goroutine like the reads.
func (r *coreRun) writeFile(st scenarios.Step) {
	_, b, err := r.apiCall(http.MethodGet, "/v1/agents/sessions/"+url.PathEscape(r.session), "")
	var sess struct {
		Environment struct {
			ID string `json:"id"`
		} `json:"environment"`
	}
	if err != nil || json.Unmarshal(b, &sess) != nil || sess.Environment.ID == "" {
		r.failf("write-file: the Session's Environment: %v %s", err, b)
		return
	}
	body, _ := json.Marshal(map[string]string{"type": "inline", "path": "/workspace/" + st.Args["path"],
		"data": base64.StdEncoding.EncodeToString([]byte(st.Input))})
	path := "/v1/agents/environments/" + url.PathEscape(sess.Environment.ID) + "/files"
	done := make(chan wsAnswer, 1)
	r.ws, r.wsDone = done, nil
	go func() {
		st, b, err := r.apiCallWait(http.MethodPost, path, string(body), wsCallWait)
		done <- wsAnswer{status: st, body: b, err: err, file: true}
	}()
}

// wsCallWait bounds a workspace call's answer: Core's own waits are at
// most 195 s (a write), 17 s for a read.
const wsCallWait = 200 * time.Second

// coreWorkspace checks the latest workspace call's answer: outcome=pending
// while none came (the answer must not come within -quiet); otherwise it
// waits up to -frame-timeout for it.
func (r *coreRun) CoreWorkspace(args map[string]string) {
	if r.ws == nil && r.wsDone == nil {
		r.failf("core-workspace: no workspace call was made")
		return
	}
	if r.ws != nil {
		wait := r.o.FrameTimeout
		if args["outcome"] == "pending" {
			wait = r.o.Quiet
		}
		select {
		case a := <-r.ws:
			r.wsDone, r.ws = &a, nil
		case <-time.After(wait):
		}
	}
	have := coreapi.Pending
	if a := r.wsDone; a != nil {
		var ok bool
		if have, ok = r.workspaceFields(a); !ok {
			return
		}
	}
	_, errs := coreapi.CheckWorkspace(args, have)
	for _, err := range errs {
		r.failf("%v", err)
	}
}

// workspaceFields reads a workspace answer as
// core-workspace compares it.
func (r *coreRun) workspaceFields(a *wsAnswer) (map[string]string, bool) {
	var v struct {
		Outcome          string                `json:"outcome"`
		Code             string                `json:"code"`
		ContentBase64    *string               `json:"content_base64"`
		Truncated        bool                  `json:"truncated"`
		Entries          []wire.DirectoryEntry `json:"entries"`
		EntriesTruncated bool                  `json:"entries_truncated"`
	}
	if a.file {
		have, ok := fileFields(a)
		if !ok {
			r.failf("core-workspace: the file write answered %d %v: %s", a.status, a.err, a.body)
		}
		return have, ok
	}
	if a.err == nil && a.status == http.StatusOK && a.tar {
		return map[string]string{"outcome": "completed", "archive": strconv.Itoa(len(a.body))}, true
	}
	if a.err != nil || json.Unmarshal(a.body, &v) != nil || v.Outcome == "" {
		r.failf("core-workspace: the workspace call answered %d %v: %s", a.status, a.err, a.body)
		return nil, false
	}
	data := ""
	if v.ContentBase64 != nil {
		b, err := base64.StdEncoding.DecodeString(*v.ContentBase64)
		if err != nil {
			r.failf("core-workspace: content_base64 is not base64: %v", err)
			return nil, false
		}
		data = string(b)
	}
	return map[string]string{"outcome": v.Outcome, "code": v.Code, "entries": coreapi.Entries(v.Entries), "data": data,
		"truncated": strconv.FormatBool(v.Truncated || v.EntriesTruncated)}, true
}

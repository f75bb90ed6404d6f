package conform

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
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
}

// workspace makes a workspace call through the public API (GET
// /api/v1/sessions/{session}/workspace/directory?path=&max_entries= or
// …/workspace/file?path=&max_bytes=); the first creates the Session, on
// a self-hosted Environment with the step's ID. Core answers once the
// Runtime's work settled, so the request waits on its own goroutine and
// core-workspace reads its answer.
func (r *coreRun) workspace(st scenarios.Step) {
	if r.session == "" {
		body, _ := json.Marshal(map[string]any{"agent": map[string]string{"kind": "contract", "model": "model"},
			"environment": map[string]string{"type": "self_hosted", "id": st.Args["environment"]}})
		id, ok := r.post("/api/v1/sessions", string(body), "session_id")
		if !ok {
			return
		}
		r.session = id
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
	path := "/api/v1/sessions/" + url.PathEscape(r.session) + route + "?" + q.Encode()
	done := make(chan wsAnswer, 1)
	r.ws, r.wsDone = done, nil
	export := st.Action == "export"
	go func() {
		st, b, err := r.apiCallWait(http.MethodGet, path, "", wsCallWait)
		done <- wsAnswer{st, b, err, export && st == http.StatusOK}
	}()
}

// writeFile puts the step's content at its path (PUT
// /api/v1/sessions/{session}/workspace/file), waiting on its own
// goroutine like the reads.
func (r *coreRun) writeFile(st scenarios.Step) {
	body, _ := json.Marshal(map[string]string{"path": st.Args["path"],
		"content_base64": base64.StdEncoding.EncodeToString([]byte(st.Input))})
	path := "/api/v1/sessions/" + url.PathEscape(r.session) + "/workspace/file"
	done := make(chan wsAnswer, 1)
	r.ws, r.wsDone = done, nil
	go func() {
		st, b, err := r.apiCallWait(http.MethodPut, path, string(body), wsCallWait)
		done <- wsAnswer{st, b, err, false}
	}()
}

// wsCallWait bounds a workspace call's answer: Core's own waits are at
// most 195 s (a write), 17 s for a read.
const wsCallWait = 200 * time.Second

// coreWorkspace checks the latest workspace call's answer: outcome=pending
// while none came (the answer must not come within -quiet); otherwise it
// waits up to -frame-timeout for it.
func (r *coreRun) coreWorkspace(args map[string]string) {
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

// workspaceFields reads the public API's workspace answer as
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

package conform

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
)

// CoreTarget is the Core under test.
type CoreTarget struct {
	// URL is Core's base URL (the gateway's /api/v1/agent-daemon/...).
	URL string
	// Device and Credential are a device registered on that Core.
	Device, Credential string
	// APIURL (default URL), APIKey (the Agents API, /v1) and APIToken
	// (the operator routes, /core/v1) reach Core's HTTP API; without
	// either, the scenarios with api steps are skipped.
	APIURL, APIKey, APIToken string
	// HTTP is the client (nil: a client without timeouts of its own).
	HTTP *http.Client
	// Prepare plays api prepare-environment, returning the preparation's
	// ID (a Core in process; nil skips those scenarios).
	Prepare func(scenarios.Step) (string, error)
}

// RunCore plays the scripted Runtime of every scenario against Core.
func RunCore(ctx context.Context, t CoreTarget, all []*scenarios.Scenario, o Options) (Report, error) {
	if t.URL == "" || t.Device == "" || t.Credential == "" {
		return Report{}, fmt.Errorf("conform core: a Core URL, a device and its credential are required")
	}
	if t.APIURL == "" {
		t.APIURL = t.URL
	}
	if t.HTTP == nil {
		t.HTTP = &http.Client{}
	}
	t.URL, t.APIURL = strings.TrimRight(t.URL, "/"), strings.TrimRight(t.APIURL, "/")
	o = o.withDefaults()
	return o.each(ctx, scenarios.Core, all, func(sc *scenarios.Scenario) Result { return newCoreRun(o, t, sc).run() })
}

// coreRun is one scenario against Core: a CoreDriver whose coreapi.API
// is Core's HTTP API.
type coreRun struct {
	failures
	*coreapi.Steps
	*runtimePeer
	o      Options
	t      CoreTarget
	sc     *scenarios.Scenario
	ws     chan wsAnswer // the latest workspace call, not yet answered
	wsDone *wsAnswer     // its answer
}

// newCoreRun returns the run of sc.
func newCoreRun(o Options, t CoreTarget, sc *scenarios.Scenario) *coreRun {
	r := &coreRun{o: o, t: t, sc: sc}
	r.Steps = coreapi.NewSteps(&r.Log, r)
	r.runtimePeer = newRuntimePeer(&r.Log, t, o)
	r.Retry, r.NotChecked = o.FrameTimeout, r.notf
	if o.Settle != nil {
		r.Retry = 0
	}
	return r
}

func (r *coreRun) run() Result {
	start := time.Now()
	if why := r.o.skipReason(r.sc, scenarios.Core); why != "" {
		return Result{Name: r.sc.Name, Status: Skip, Reason: why}
	}
	if r.t.APIKey == "" && uses(r.sc, scenarios.KindAPI) {
		return Result{Name: r.sc.Name, Status: Skip, Credential: CredentialAPIKey,
			Reason: "needs the Agents API: its api steps create Sessions and send their input events (-api-key-file)"}
	}
	if r.t.APIToken == "" && uses(r.sc, scenarios.KindAPI) {
		return Result{Name: r.sc.Name, Status: Skip, Credential: CredentialOperatorToken,
			Reason: "needs the operator routes: its steps read Core's view of a Turn (-operator-token-file)"}
	}
	if r.t.Prepare == nil && slices.ContainsFunc(r.sc.Flat(), func(st scenarios.Step) bool { return st.Action == "prepare-environment" }) {
		return Result{Name: r.sc.Name, Status: Skip, Reason: "needs the preparation API: the public HTTP API prepares only a Session's Environment definition, with the IDs and digests Core derives itself, so the runtime_prepare headers of its api prepare-environment step cannot be sent verbatim"}
	}
	defer r.close()
	rep := scenarios.Play(r.sc, r)
	return r.result(r.sc.Name, time.Since(start), rep.Failures)
}

// close cancels the Session's unfinished Turn, so that none is left for
// the next scenario, closes every connection, and waits (up to
// -frame-timeout) until Core no longer counts the device connected: Core
// notices a close when it next reads the socket, and a scenario that
// checks that no connection was registered must not see the last one's.
func (r *coreRun) close() {
	if session, turns := r.Session(); session != "" && turns {
		_, _, _ = r.apiCall(http.MethodPost, r.eventsPath(), `{"events":[{"type":"agent.session.input.cancel"}]}`, r.o.FrameTimeout)
	}
	r.runtimePeer.Close()
	if r.t.APIToken == "" {
		return
	}
	for deadline := time.Now().Add(r.o.FrameTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if connected, err := r.deviceConnected(); err != nil || !connected {
			return
		}
	}
}

// CreateSession creates the Session through the Agents API (an inline
// self_hosted environment for a workspace call: Core chooses its ID).
func (r *coreRun) CreateSession(kind, environment string, multiAgent bool) (string, error) {
	env := map[string]string{"type": "none"}
	if environment != "" {
		env = map[string]string{"type": "self_hosted", "workspace_directory": "/workspace"}
	}
	agent := map[string]any{"model": "model", "x_agents_core": map[string]string{"harness": kind}}
	if multiAgent {
		agent["multi_agent"] = map[string]bool{"enabled": true}
	}
	body, _ := json.Marshal(map[string]any{"agent": agent, "environment": env})
	b, err := r.post("/v1/agents/sessions", string(body))
	var v struct {
		ID string `json:"id"`
	}
	if err == nil && (json.Unmarshal(b, &v) != nil || v.ID == "") {
		err = fmt.Errorf("POST /v1/agents/sessions: answer %s has no id", b)
	}
	return v.ID, err
}

// send posts one input event to the Session; it must be accepted.
func (r *coreRun) send(event string) (api.Receipt, error) {
	path := r.eventsPath()
	b, err := r.post(path, `{"events":[`+event+`]}`)
	var out api.EventsReceipt
	if err == nil && (json.Unmarshal(b, &out) != nil || len(out.Receipts) != 1) {
		err = fmt.Errorf("POST %s: answer %s has no receipt", path, b)
	}
	if err != nil {
		return api.Receipt{}, err
	}
	return out.Receipts[0], nil
}

func (r *coreRun) eventsPath() string {
	session, _ := r.Session()
	return "/v1/agents/sessions/" + url.PathEscape(session) + "/events"
}

// message is a message input event of text.
func message(text string) string {
	b, _ := json.Marshal(map[string]string{"type": "agent.session.input.message", "input": text})
	return string(b)
}

func (r *coreRun) Submit(_, text string) (string, error) {
	rc, err := r.send(message(text))
	if err == nil && rc.Action != "turn_started" {
		err = fmt.Errorf("submit-turn: the message %s Turn %s (the Session's Turn was still running)", rc.Action, rc.TurnID)
	}
	return rc.TurnID, err
}

func (r *coreRun) Steer(_, turn, text string) error {
	rc, err := r.send(message(text))
	if err == nil && (rc.Action != "steered" || rc.TurnID != turn) {
		err = fmt.Errorf("steer: the message %s Turn %s, want it steered into %s", rc.Action, rc.TurnID, turn)
	}
	return err
}

func (r *coreRun) Cancel(_, turn string) error {
	rc, err := r.send(`{"type":"agent.session.input.cancel"}`)
	if err == nil && rc.TurnID != turn {
		err = fmt.Errorf("cancel: the cancel reached Turn %s, want %s", rc.TurnID, turn)
	}
	return err
}

// Answer posts the answer as README.md's api answer-* rows say.
func (r *coreRun) Answer(st scenarios.Step, _, turn string, body any) error {
	var ev any
	switch b := body.(type) {
	case coreapi.PermissionBody:
		if b.Message != "" || b.UpdatedInput != nil {
			return fmt.Errorf("answer-permission: body %s: the Agents API's approval result carries no message or updated_input", st.Input)
		}
		decision := "deny"
		if *b.Approved {
			decision = "approve"
		}
		ev = map[string]any{"type": "agent.session.input.mcp_approval_request_result", "request_id": st.Args["interaction"],
			"response": map[string]string{"type": "mcp_tool_call", "decision": decision}}
	case coreapi.FunctionResultBody:
		ev = map[string]any{"type": "agent.session.input.tool_result", "turn_id": turn, "call_id": st.Args["call"],
			"success": *b.Success, "output": b.Content}
	default:
		_, err := r.post("/core/v1/turns/"+url.PathEscape(turn)+"/user-choices/"+url.PathEscape(st.Args["interaction"]), st.Input)
		return err
	}
	b, _ := json.Marshal(ev)
	_, err := r.post(r.eventsPath(), `{"events":[`+string(b)+`]}`)
	return err
}

// suspensionsPath is the suspension routes' (wire-reference §3.12).
const suspensionsPath = "/core/v1/suspensions"

func (r *coreRun) Quiesce(environment string) (string, error) {
	body, _ := json.Marshal(map[string]string{"device_id": r.t.Device, "environment_id": environment})
	b, err := r.post(suspensionsPath, string(body))
	var v struct {
		SuspendID string `json:"suspend_id"`
	}
	if err == nil && (json.Unmarshal(b, &v) != nil || v.SuspendID == "") {
		err = fmt.Errorf("POST %s: answer %s has no suspend_id", suspensionsPath, b)
	}
	return v.SuspendID, err
}

func (r *coreRun) Resume(suspend string, rollback bool) error {
	body, _ := json.Marshal(map[string]bool{"rollback": rollback})
	_, err := r.post(suspensionsPath+"/"+url.PathEscape(suspend)+"/resume", string(body))
	return err
}

// Prepare is CoreTarget.Prepare (without it the scenario is skipped).
func (r *coreRun) Prepare(st scenarios.Step) (string, error) {
	defer r.after()
	return r.t.Prepare(st)
}

// read GETs path and decodes its JSON answer into each of vs.
func (r *coreRun) read(path string, vs ...any) error {
	st, b, err := r.apiCall(http.MethodGet, path, "", r.o.FrameTimeout)
	for _, v := range vs {
		if err != nil || st != http.StatusOK || json.Unmarshal(b, v) != nil {
			return fmt.Errorf("GET %s: not readable (%d %v %s)", path, st, err, b)
		}
	}
	return nil
}

// Turn reads Core's view of the Turn.
func (r *coreRun) Turn(id string) (api.TurnJSON, []string, error) {
	var t api.TurnJSON
	var shown map[string]json.RawMessage
	if err := r.read("/core/v1/turns/"+url.PathEscape(id), &t, &shown); err != nil {
		return t, nil, err
	}
	var unshown []string
	for _, k := range []string{"content", "attempt", "input_cursor", "inputs", "interactions", "subagents"} {
		if _, ok := shown[k]; !ok {
			unshown = append(unshown, k)
		}
	}
	return t, unshown, nil
}

func (r *coreRun) Suspension(id string) (api.SuspensionJSON, error) {
	var s api.SuspensionJSON
	err := r.read(suspensionsPath+"/"+url.PathEscape(id), &s)
	return s, err
}

// Preparation is the latest preparation GET /core/v1/preparations lists
// of the Session (of any, before one exists).
func (r *coreRun) Preparation(_, session string) (api.PreparationJSON, error) {
	var list struct {
		Preparations []api.PreparationRecordJSON `json:"preparations"`
	}
	if err := r.read("/core/v1/preparations", &list); err != nil {
		return api.PreparationJSON{}, err
	}
	for _, p := range slices.Backward(list.Preparations) {
		if session == "" || p.SessionID == session {
			return p.PreparationJSON, nil
		}
	}
	return api.PreparationJSON{}, coreapi.ErrNoPreparation
}

// wsAnswer is a workspace call's HTTP answer, once it came.
type wsAnswer struct {
	status int
	body   []byte
	err    error
	tar    bool // the answer is the export's tar stream
	file   bool // the answer is an Environment file write's
}

// wsCallWait bounds a workspace call's answer: Core's own waits are at
// most 195 s (a write), 17 s for a read.
const wsCallWait = 200 * time.Second

// StartWorkspace makes a workspace call on the route README.md names;
// Core answers once the Runtime's work settled, so the request waits on
// its own goroutine.
func (r *coreRun) StartWorkspace(st scenarios.Step, session string) error {
	method, path, body := http.MethodGet, "", ""
	switch st.Action {
	case "write-file":
		var sess struct {
			Environment struct {
				ID string `json:"id"`
			} `json:"environment"`
		}
		if err := r.read("/v1/agents/sessions/"+url.PathEscape(session), &sess); err != nil || sess.Environment.ID == "" {
			return fmt.Errorf("write-file: the Session's Environment: %v", err)
		}
		b, _ := json.Marshal(map[string]string{"type": "inline", "path": "/workspace/" + st.Args["path"],
			"data": base64.StdEncoding.EncodeToString([]byte(st.Input))})
		method, body = http.MethodPost, string(b)
		path = "/v1/agents/environments/" + url.PathEscape(sess.Environment.ID) + "/files"
	case "export":
		path = "/core/v1/sessions/" + url.PathEscape(session) + "/workspace/export?"
	default: // read-directory takes max_entries, read-file max_bytes
		q := url.Values{"path": {st.Args["path"]}}
		for _, k := range []string{"max_entries", "max_bytes"} {
			if v := st.Args[k]; v != "" {
				q.Set(k, v)
			}
		}
		path = "/core/v1/sessions/" + url.PathEscape(session) + "/workspace/" + strings.TrimPrefix(st.Action, "read-") + "?" + q.Encode()
	}
	done := make(chan wsAnswer, 1)
	r.ws, r.wsDone = done, nil
	go func() {
		status, b, err := r.apiCall(method, path, body, wsCallWait)
		done <- wsAnswer{status: status, body: b, err: err, tar: st.Action == "export" && status == http.StatusOK, file: st.Action == "write-file"}
	}()
	return nil
}

// WorkspaceAnswer waits up to -frame-timeout for the latest workspace
// call's answer, or -quiet when the step expects none.
func (r *coreRun) WorkspaceAnswer(pending bool) (*core.WorkspaceResult, bool, error) {
	if r.ws == nil && r.wsDone == nil {
		return nil, false, nil
	}
	if r.ws != nil {
		wait := r.o.FrameTimeout
		if pending {
			wait = r.o.Quiet
		}
		if r.settle != nil { // in a bubble: settled, the answer came or not
			r.settle()
			select {
			case a := <-r.ws:
				r.wsDone, r.ws = &a, nil
			default:
			}
		} else {
			select {
			case a := <-r.ws:
				r.wsDone, r.ws = &a, nil
			case <-time.After(wait):
			}
		}
	}
	a := r.wsDone
	switch {
	case a == nil:
		return nil, true, nil
	case a.file:
		w, err := fileAnswer(a)
		return w, true, err
	case a.err == nil && a.tar:
		return &core.WorkspaceResult{Outcome: core.WorkspaceCompleted, Archive: a.body}, true, nil
	}
	var v api.WorkspaceAnswer
	if a.err == nil && a.status >= 400 && a.status < 500 && errorCode(a.body) != "" {
		return nil, true, &coreapi.Refused{Code: errorCode(a.body), Call: "the workspace call", Err: fmt.Errorf("%d %s", a.status, a.body)}
	}
	if a.err != nil || json.Unmarshal(a.body, &v) != nil || v.Outcome == "" {
		return nil, true, fmt.Errorf("the workspace call answered %d %v: %s", a.status, a.err, a.body)
	}
	w := &core.WorkspaceResult{Outcome: v.Outcome, Code: v.Code, Entries: v.Entries, Truncated: v.Truncated || v.EntriesTruncated}
	if v.ContentBase64 != nil {
		b, err := base64.StdEncoding.DecodeString(*v.ContentBase64)
		if err != nil {
			return nil, true, fmt.Errorf("content_base64 is not base64: %v", err)
		}
		w.Data = b
	}
	return w, true, nil
}

// fileOutcomes maps the refusals of a file write onto outcomes.
var fileOutcomes = map[string]string{"workspace_rejected": "rejected", "workspace_unknown": "unknown", "workspace_unavailable": "unavailable"}

// fileAnswer reads a file write's answer: completed, or the outcome its
// refusal names with the Runtime's code (in parentheses in the message).
func fileAnswer(a *wsAnswer) (*core.WorkspaceResult, error) {
	var e api.V1Error
	switch {
	case a.err == nil && a.status == http.StatusOK:
		return &core.WorkspaceResult{Outcome: core.WorkspaceCompleted}, nil
	case a.err != nil || json.Unmarshal(a.body, &e) != nil || e.Error.Code == nil || fileOutcomes[*e.Error.Code] == "":
		return nil, fmt.Errorf("the file write answered %d %v: %s", a.status, a.err, a.body)
	}
	m, code := e.Error.Message, ""
	if i := strings.LastIndex(m, " ("); i >= 0 && strings.HasSuffix(m, ")") {
		code = m[i+2 : len(m)-1]
	}
	return &core.WorkspaceResult{Outcome: fileOutcomes[*e.Error.Code], Code: code}, nil
}

// VersionRefused: Core must refuse the upgrade before registering
// anything, as its device list shows.
func (r *coreRun) VersionRefused(args map[string]string) {
	v, ok := r.RefusedUpgrade(args)
	if !ok {
		return
	}
	if r.t.APIToken == "" {
		r.notf("version %q: that no device registered (needs the public API)", v)
		return
	}
	connected, err := r.deviceConnected()
	if err != nil {
		r.notf("version %q: that no device registered (%v)", v, err)
	} else if connected {
		r.Failf("version %q: device %s is connected after the refused upgrade", v, r.t.Device)
	}
}

// deviceConnected reads whether Core lists the device connected.
func (r *coreRun) deviceConnected() (bool, error) {
	var page struct {
		Devices []api.DeviceJSON `json:"devices"`
	}
	if err := r.read("/core/v1/devices", &page); err != nil {
		return false, err
	}
	return slices.ContainsFunc(page.Devices, func(d api.DeviceJSON) bool { return d.ID == r.t.Device && d.Connected }), nil
}

// apiCall makes one request of Core's HTTP API within wait: a /v1 path
// with the API key, any other with the operator token.
func (r *coreRun) apiCall(method, path, body string, wait time.Duration) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.t.APIURL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	secret := r.t.APIToken
	if strings.HasPrefix(path, "/v1/") {
		secret = r.t.APIKey
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.t.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// post makes an API call; a refusal is a *coreapi.Refused.
func (r *coreRun) post(path, body string) ([]byte, error) {
	st, b, err := r.apiCall(http.MethodPost, path, body, r.o.FrameTimeout)
	r.after()
	switch {
	case err != nil:
		return nil, fmt.Errorf("POST %s: %v", path, err)
	case st/100 != 2:
		return b, &coreapi.Refused{Code: errorCode(b), Call: "POST " + path, Err: fmt.Errorf("%d %s", st, b)}
	}
	return b, nil
}

// errorCode is an error answer's {"error":{"code"}} or {"error":<code>}.
func errorCode(b []byte) string {
	var v1 struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &v1) == nil && v1.Error.Code != "" {
		return v1.Error.Code
	}
	var op struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(b, &op)
	return op.Error
}

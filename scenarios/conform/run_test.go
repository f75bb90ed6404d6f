package conform

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/turnstile-sim/turnstile/scenarios"
)

// TestRunCoreWithoutTheAPI: without an API key, or without an operator
// token, the scenarios with api steps are skipped, naming the credential.
func TestRunCoreWithoutTheAPI(t *testing.T) {
	sc := parseIncluding(t, "api submit-turn text=hi\n----\n")
	for _, c := range []struct {
		target     CoreTarget
		reason     string
		credential string
	}{
		{CoreTarget{URL: "http://127.0.0.1:1", Device: "d", Credential: "c", APIToken: "tok"}, "needs the Agents API", CredentialAPIKey},
		{CoreTarget{URL: "http://127.0.0.1:1", Device: "d", Credential: "c", APIKey: "key"}, "needs the operator routes", CredentialOperatorToken},
	} {
		rep, err := RunCore(context.Background(), c.target, []*scenarios.Scenario{sc}, Options{})
		if err != nil || len(rep.Results) != 1 || rep.Results[0].Status != Skip || !strings.Contains(rep.Results[0].Reason, c.reason) ||
			rep.Results[0].Credential != c.credential {
			t.Fatalf("%+v %v", rep, err)
		}
	}
	if _, err := RunCore(context.Background(), CoreTarget{URL: "http://127.0.0.1:1"}, nil, Options{}); err == nil {
		t.Fatal("a Core target without a device was accepted")
	}
}

// TestRunRuntimeNeedsControl: a Runtime that opens no control channel has
// a scenario with harness steps skipped, and one that never connects
// fails; -run selects.
func TestRunRuntimeNeedsControl(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	harness := parseIncluding(t, "harness fail-setup\n----\n")
	harness.Name = "harness"
	connect := parseIncluding(t, "connect\n----\n")
	connect.Name = "connect"
	other := parseIncluding(t, "connect\n----\n")
	other.Name = "other"
	o := Options{FrameTimeout: 300 * time.Millisecond, Run: regexp.MustCompile("^(harness|connect)$")}
	rep, err := RunRuntime(context.Background(), RuntimeTarget{Command: []string{"sleep", "60"}, Listener: l, Grace: time.Second},
		[]*scenarios.Scenario{harness, connect, other}, o)
	if err != nil || len(rep.Results) != 2 {
		t.Fatalf("%+v %v", rep, err)
	}
	if r := rep.Results[0]; r.Status != Skip || !strings.Contains(r.Reason, "needs harness control") {
		t.Errorf("harness: %+v", r)
	}
	if r := rep.Results[1]; r.Status != Fail || !strings.Contains(r.Reason, "the Runtime did not connect within 300ms") {
		t.Errorf("connect: %+v", r)
	}
	if _, err := RunRuntime(context.Background(), RuntimeTarget{}, nil, o); err == nil {
		t.Fatal("a Runtime target without a listener was accepted")
	}
}

// controlServer serves a control hub; dial opens a channel to it as a
// Runtime does.
func controlServer(t *testing.T) (hub *controlHub, dial func() *websocket.Conn) {
	hub = newControlHub()
	srv := httptest.NewServer(&front{hub: hub})
	t.Cleanup(srv.Close)
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + scenarios.ControlPath
	return hub, func() *websocket.Conn {
		c, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// TestControlHubTakesOnlyNewChannels: a channel opened before since is an
// earlier Runtime's and is not taken; a later one is.
func TestControlHubTakesOnlyNewChannels(t *testing.T) {
	hub, dial := controlServer(t)
	first := dial()
	defer first.CloseNow()
	if hub.wait(time.Minute, time.Time{}, nil) == nil {
		t.Fatal("the first channel was not taken")
	}
	since := time.Now()
	if c := hub.wait(10*time.Millisecond, since, nil); c != nil {
		t.Fatal("a channel opened before since was taken")
	}
	second := dial()
	defer second.CloseNow()
	c := hub.wait(time.Minute, since, nil)
	if c == nil || !c.at.After(since) {
		t.Fatal("the new channel was not taken")
	}
	go func() { // the Runtime's side: answer one command
		_, b, err := second.Read(context.Background())
		if err == nil && strings.Contains(string(b), `"action":"release"`) {
			second.Write(context.Background(), websocket.MessageText, []byte(`{"seq":1,"error":"harness release: no native call is hanging"}`))
		}
	}()
	rep, err := c.do(scenarios.ControlCommand{Action: "release"}, time.Minute)
	if err != nil || rep.Error != "harness release: no native call is hanging" {
		t.Fatalf("%+v %v", rep, err)
	}
}

// TestControlCommandGoesOnTheNewestChannel: a scenario holding a channel
// that closed (an earlier Runtime's, dialled late) sends its command on
// the channel the Runtime opened next, which answers it.
func TestControlCommandGoesOnTheNewestChannel(t *testing.T) {
	hub, dial := controlServer(t)
	first := dial()
	r := &rtRun{o: Options{FrameTimeout: time.Minute}.withDefaults(), fr: &front{hub: hub}}
	if r.ctl = hub.wait(time.Minute, time.Time{}, nil); r.ctl == nil {
		t.Fatal("the first channel was not taken")
	}
	first.CloseNow() // the earlier Runtime exits
	<-r.ctl.done
	second := dial()
	defer second.CloseNow()
	go func() { // the Runtime's side: answer one command
		_, b, err := second.Read(context.Background())
		if err == nil && strings.Contains(string(b), `"action":"emit"`) {
			second.Write(context.Background(), websocket.MessageText, []byte(`{"seq":1}`))
		}
	}()
	rep, err := r.controlDo(scenarios.ControlCommand{Action: "emit"})
	if err != nil || rep.Error != "" || rep.Seq != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	if r.ctl == nil || r.ctl.closed() {
		t.Fatal("the scenario kept the closed channel")
	}
}

// TestCoreStateFromTheAPI: core-state compares what Core's view of the
// Turn shows, fails on a difference and reports a member it lacks as not
// checked, as core-interaction does when the view shows no interactions.
func TestCoreStateFromTheAPI(t *testing.T) {
	// One Session and Turn t-1, running, whose view shows no input cursor.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method + " " + r.URL.Path {
		case "POST /v1/agents/sessions":
			w.Write([]byte(`{"id":"s-1"}`))
		case "POST /v1/agents/sessions/s-1/events":
			w.Write([]byte(`{"receipts":[{"action":"turn_started","turn_id":"t-1"}]}`))
		case "GET /core/v1/turns/t-1":
			w.Write([]byte(`{"state":"running","content":"hi","usage":{"tokens":{"input_tokens":1,"output_tokens":2,"total_tokens":3}}}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	r := newCoreRun(Options{FrameTimeout: 100 * time.Millisecond}.withDefaults(),
		CoreTarget{Device: "dev", APIURL: srv.URL, APIKey: "key", APIToken: "tok", HTTP: srv.Client()}, nil)
	r.API(scenarios.Step{Kind: scenarios.KindAPI, Action: "submit-turn", Args: map[string]string{"text": "hi"}})
	r.CoreState(map[string]string{"turn": "1", "state": "running", "content": "hi", "usage": "1/2/3", "cursor": "0"})
	if len(logged(&r.failures)) != 0 || len(r.notChecked) != 1 || !strings.Contains(r.notChecked[0], "core-state cursor=0: Core's view of the Turn does not show it") {
		t.Fatalf("errors %q, not checked %q", logged(&r.failures), r.notChecked)
	}
	r.CoreState(map[string]string{"turn": "1", "state": "failed"})
	if len(logged(&r.failures)) != 1 || !strings.Contains(logged(&r.failures)[0], `state="running", want "failed"`) {
		t.Fatalf("errors %q", logged(&r.failures))
	}
	r.CoreInteraction(map[string]string{"id": "p1", "status": "applied"})
	if len(r.notChecked) != 2 || !strings.Contains(r.notChecked[1], "core-interaction id=p1: Core's view of the Turn does not show interactions") {
		t.Fatalf("not checked %q", r.notChecked)
	}
}

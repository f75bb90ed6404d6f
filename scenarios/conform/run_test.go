package conform

import (
	"context"
	"net"
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
	sc := parse(t, "api submit-turn text=hi\n----\n")
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
	harness := parse(t, "harness fail-setup\n----\n")
	harness.Name = "harness"
	connect := parse(t, "connect\n----\n")
	connect.Name = "connect"
	other := parse(t, "connect\n----\n")
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

// TestControlHubTakesOnlyNewChannels: a channel opened before since is an
// earlier Runtime's and is not taken; a later one is.
func TestControlHubTakesOnlyNewChannels(t *testing.T) {
	hub := newControlHub()
	srv := httptest.NewServer(&front{hub: hub})
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + scenarios.ControlPath
	first, _, err := websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.CloseNow()
	if hub.wait(time.Minute, time.Time{}) == nil {
		t.Fatal("the first channel was not taken")
	}
	since := time.Now()
	if c := hub.wait(10*time.Millisecond, since); c != nil {
		t.Fatal("a channel opened before since was taken")
	}
	second, _, err := websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.CloseNow()
	c := hub.wait(time.Minute, since)
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

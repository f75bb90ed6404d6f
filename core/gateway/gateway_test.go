package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestBootstrapAndWebSocketHappyPath(t *testing.T) {
	e := newEnv(t, gateway.Options{HeartbeatSeconds: 7, WorkspaceID: "ws-1"}, "d1")
	ctx := context.Background()
	boot, err := scripted.DoBootstrap(ctx, e.ts.Client(), e.ts.URL, "d1", credential("d1"))
	if err != nil {
		t.Fatal(err)
	}
	want := scripted.Bootstrap{DeviceID: "d1", WorkspaceID: "ws-1", WSURL: e.wsURL(), HeartbeatSeconds: 7, ProtocolVersion: wire.Version}
	if boot != want {
		t.Fatalf("bootstrap = %+v, want %+v", boot, want)
	}
	rt := &scripted.Runtime{Deltas: 2}
	c, err := scripted.Dial(ctx, e.ts.Client(), boot.WSURL, "d1", credential("d1"), rt)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- c.Serve(ctx) }()
	tid := e.submit(e.session(), "hi")
	v := e.waitTurn(tid)
	if v.State != core.TurnCompleted || v.Content != "echo: hi" || v.Events != 3 {
		t.Fatalf("turn = %+v", v)
	}
	if n := rt.Starts()[v.RunID]; n != 1 {
		t.Fatalf("run started %d times", n)
	}
	status, body := e.do("GET", gateway.DeviceStatusPath+"?device_id=d1", bearerHeader(credential("d1")), "")
	var ds gateway.DeviceStatus
	if status != 200 || json.Unmarshal([]byte(body), &ds) != nil || !ds.Online || ds.DeviceID != "d1" {
		t.Fatalf("device-status %d %s", status, body)
	}
	c.WS.Close(websocket.StatusNormalClosure, "bye")
	<-served
}

func TestBootstrapHostHeaderNeverShapesWSURL(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	h := bearerHeader(credential("d1"))
	h.Set("Host", "evil.example")
	h.Set("X-Forwarded-Host", "evil.example")
	status, body := e.do("POST", gateway.BootstrapPath, h, `{"device_id":"d1"}`)
	if status != 200 || strings.Contains(body, "evil") {
		t.Fatalf("%d %s", status, body)
	}
}

func TestIncompatibleVersionsAre426WithoutRegistration(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	for _, v := range []string{"0.7.0", "0.8.99", "0.8.", wire.Version + "-dev", wire.Version + "+build", " " + wire.Version, wire.Version + " "} {
		status, body := e.do("GET", wsQuery("d1", v), bearerHeader(credential("d1")), "")
		if status != http.StatusUpgradeRequired || errorCode(t, body) != gateway.CodeIncompatibleVersion {
			t.Errorf("version %q: %d %s", v, status, body)
		}
		// 426 comes before authentication: a wrong credential changes nothing.
		status, _ = e.do("GET", wsQuery("d1", v), bearerHeader("wrong"), "")
		if status != http.StatusUpgradeRequired {
			t.Errorf("version %q with a wrong credential: %d", v, status)
		}
	}
	if d := e.registered(); len(d) != 0 {
		t.Fatalf("devices registered: %+v", d)
	}
}

func TestMissingVersionIs400MissingParams(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	for _, path := range []string{gateway.WSPath + "?device_id=d1", wsQuery("d1", ""), wsQuery("", wire.Version)} {
		status, body := e.do("GET", path, bearerHeader(credential("d1")), "")
		if status != http.StatusBadRequest || errorCode(t, body) != gateway.CodeMissingParams {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
	// No bearer on the upgrade is a missing parameter too, even with a bad version.
	status, body := e.do("GET", wsQuery("d1", "0.7.0"), nil, "")
	if status != http.StatusBadRequest || errorCode(t, body) != gateway.CodeMissingParams {
		t.Errorf("no bearer: %d %s", status, body)
	}
}

func TestUnauthorizedFormsNeverEchoTheCredential(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1", "revoked")
	if err := e.back.RevokeDevice("revoked", time.Now()); err != nil {
		t.Fatal(err)
	}
	wrong := "tsd_WRONG-guess-44b1"
	cases := []struct {
		name, device string
		header       http.Header
		code         string
	}{
		{"no header", "d1", nil, gateway.CodeMissingBearer},
		{"basic scheme", "d1", http.Header{"Authorization": {"Basic " + wrong}}, gateway.CodeMissingBearer},
		{"lower-case scheme", "d1", http.Header{"Authorization": {"bearer " + wrong}}, gateway.CodeMissingBearer},
		{"empty bearer", "d1", http.Header{"Authorization": {"Bearer   "}}, gateway.CodeMissingBearer},
		{"unknown device", "nobody", bearerHeader(wrong), gateway.CodeUnknownDevice},
		{"revoked device", "revoked", bearerHeader(credential("revoked")), gateway.CodeUnknownDevice},
		{"wrong credential", "d1", bearerHeader(wrong), gateway.CodeBadCredential},
		{"other device's credential", "d1", bearerHeader(credential("revoked")), gateway.CodeBadCredential},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := e.do("POST", gateway.BootstrapPath, c.header, `{"device_id":"`+c.device+`"}`)
			if status != http.StatusUnauthorized || errorCode(t, body) != c.code {
				t.Fatalf("bootstrap: %d %s, want 401 %s", status, body, c.code)
			}
			if strings.Contains(body, "SECRET") || strings.Contains(body, "WRONG") {
				t.Fatalf("body echoes the credential: %s", body)
			}
			if c.code == gateway.CodeMissingBearer {
				return // the upgrade reports a missing bearer as 400 missing_params
			}
			status, body = e.do("GET", wsQuery(c.device, wire.Version), c.header, "")
			if status != http.StatusUnauthorized || errorCode(t, body) != c.code {
				t.Fatalf("upgrade: %d %s, want 401 %s", status, body, c.code)
			}
			if strings.Contains(body, "SECRET") || strings.Contains(body, "WRONG") {
				t.Fatalf("body echoes the credential: %s", body)
			}
		})
	}
	if d := e.registered(); len(d) != 0 {
		t.Fatalf("devices registered: %+v", d)
	}
}

func TestCredentialInURLRefused(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	cred := credential("d1")
	for _, path := range []string{
		wsQuery("d1", wire.Version) + "&token=" + cred,
		wsQuery("d1", wire.Version) + "&access_token=" + cred,
		gateway.BootstrapPath + "?credential=" + cred,
		gateway.DeviceStatusPath + "?device_id=d1&Authorization=" + cred,
		wsQuery("d1", wire.Version) + "&trace=" + cred, // the credential's value under any name
	} {
		method := "GET"
		if strings.HasPrefix(path, gateway.BootstrapPath) {
			method = "POST"
		}
		status, body := e.do(method, path, bearerHeader(cred), `{"device_id":"d1"}`)
		if status != http.StatusBadRequest || errorCode(t, body) != gateway.CodeMissingParams || strings.Contains(body, "SECRET") {
			t.Errorf("%s: %d %s", path[:20], status, body)
		}
	}
	if d := e.registered(); len(d) != 0 {
		t.Fatalf("devices registered: %+v", d)
	}
}

func TestBootstrapBadInput(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	h := bearerHeader(credential("d1"))
	cases := []struct {
		method, body string
		status       int
		code         string
	}{
		{"GET", "", 405, gateway.CodeMethodNotAllowed},
		{"PUT", `{"device_id":"d1"}`, 405, gateway.CodeMethodNotAllowed},
		{"POST", `{"device_id":`, 400, gateway.CodeBadJSON},
		{"POST", `[]`, 400, gateway.CodeBadJSON},
		{"POST", strings.Repeat(" ", 70<<10) + `{}`, 413, gateway.CodeBodyTooLarge},
		{"POST", `{}`, 400, gateway.CodeMissingDeviceID},
		{"POST", `{"device_id":"  "}`, 400, gateway.CodeMissingDeviceID},
	}
	for _, c := range cases {
		status, body := e.do(c.method, gateway.BootstrapPath, h, c.body)
		if status != c.status || errorCode(t, body) != c.code {
			t.Errorf("%s %.20q: %d %s, want %d %s", c.method, c.body, status, body, c.status, c.code)
		}
	}
	status, body := e.do("POST", gateway.WSPath+"?device_id=d1&version="+wire.Version, h, "")
	if status != 405 || errorCode(t, body) != gateway.CodeMethodNotAllowed {
		t.Errorf("POST ws: %d %s", status, body)
	}
}

func TestOversizeFrameClosesTheConnection(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	c := e.dial("d1", &scripted.Runtime{})
	ctx := context.Background()
	// Just under the limit is read (and rejected by the codec, nothing more).
	if err := c.WS.Write(ctx, websocket.MessageText, []byte(`{"type":"delta","id":"r","payload":{"delta":"`+strings.Repeat("a", wire.FrameBytesMax-60)+`","sequence":1}}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.WS.Write(ctx, websocket.MessageText, make([]byte, wire.FrameBytesMax+1)); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.WS.Read(ctx)
	if st := websocket.CloseStatus(err); st != websocket.StatusMessageTooBig {
		t.Fatalf("close status %v (%v), want 1009", st, err)
	}
	waitDevices(t, e, func(d []core.DeviceView) bool { return len(d) == 1 && d[0].Conn == 0 })
}

func TestDeviceReplacementClosesTheOlderConnection(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	old := e.dial("d1", &scripted.Runtime{})
	waitDevices(t, e, func(d []core.DeviceView) bool { return len(d) == 1 && d[0].Known })
	first := e.devices()[0].Conn
	newer := e.dial("d1", &scripted.Runtime{})
	_, _, err := old.WS.Read(context.Background())
	if st := websocket.CloseStatus(err); st != websocket.StatusPolicyViolation {
		t.Fatalf("older connection: %v", err)
	}
	waitDevices(t, e, func(d []core.DeviceView) bool { return len(d) == 1 && d[0].Conn > first && d[0].Known })
	newer.WS.Close(websocket.StatusNormalClosure, "")
}

// waitDevices polls the machine's device views until ok holds; each poll
// is a round trip through the loop, nothing sleeps.
func waitDevices(t *testing.T, e *env, ok func([]core.DeviceView) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok(e.devices()) {
		if time.Now().After(deadline) {
			t.Fatalf("devices never matched: %+v", e.devices())
		}
		runtime.Gosched()
	}
}

// A Runtime of the documented era: build version, per-kind version, ts in
// seconds, a legacy claude_available and unknown kind members. Its first
// heartbeat must make the device known (only a valid heartbeat does), not
// be answered by a disconnect.
func TestDocumentedEraHeartbeatKeepsTheConnection(t *testing.T) {
	e := newEnv(t, gateway.Options{}, "d1")
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, e.wsURL()+"?device_id=d1&version="+wire.Version, &websocket.DialOptions{
		HTTPClient: e.ts.Client(), HTTPHeader: bearerHeader(credential("d1"))})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	caps, err := json.Marshal(scripted.Caps())
	if err != nil {
		t.Fatal(err)
	}
	hb := `{"type":"heartbeat","payload":{"ts":1760000000,"active_requests":0,"daemon_version":"1.4.2","claude_available":true,` +
		`"supported_agent_kinds":[{"kind":"contract","available":true,"version":"0.46.0","claude_available":false,"binary_path":"/usr/bin/x","capabilities":` +
		string(caps) + `}]}}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(hb)); err != nil {
		t.Fatal(err)
	}
	waitDevices(t, e, func(d []core.DeviceView) bool { return len(d) == 1 && d[0].Known && len(d[0].Kinds) == 1 })
	// The capability object stays strict: an unknown capability is an
	// invalid heartbeat and closes the connection.
	bad := strings.Replace(hb, `"streaming":true`, `"streaming":true,"claude_available":true`, 1)
	if err := ws.Write(ctx, websocket.MessageText, []byte(bad)); err != nil {
		t.Fatal(err)
	}
	_, _, err = ws.Read(ctx)
	if st := websocket.CloseStatus(err); st != websocket.StatusPolicyViolation {
		t.Fatalf("invalid heartbeat: %v", err)
	}
	waitDevices(t, e, func(d []core.DeviceView) bool { return len(d) == 1 && d[0].Conn == 0 })
}

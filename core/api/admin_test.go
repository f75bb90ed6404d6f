package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/core/gateway"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/server"
)

// devicesJSON reads GET /core/v1/devices.
func (e *env) devicesJSON() []api.DeviceJSON {
	e.t.Helper()
	st, body, _ := e.do("GET", "/core/v1/devices", "")
	var out struct{ Devices []api.DeviceJSON }
	if st != 200 || json.Unmarshal([]byte(body), &out) != nil {
		e.t.Fatalf("list devices: %d %s", st, body)
	}
	return out.Devices
}

// keysJSON reads GET /core/v1/keys.
func (e *env) keysJSON() []api.KeyJSON {
	e.t.Helper()
	st, body, _ := e.do("GET", "/core/v1/keys", "")
	var out struct{ Keys []api.KeyJSON }
	if st != 200 || json.Unmarshal([]byte(body), &out) != nil {
		e.t.Fatalf("list keys: %d %s", st, body)
	}
	return out.Keys
}

// bootstrapStatus is the gateway's answer to a bootstrap of device.
func (e *env) bootstrapStatus(device, cred string) int {
	e.t.Helper()
	req, _ := http.NewRequest("POST", e.ts.URL+gateway.BootstrapPath, strings.NewReader(`{"device_id":"`+device+`"}`))
	req.Header.Set("Authorization", "Bearer "+cred)
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestAdminDeviceEnrolRevoke: a device enrolled over HTTP gets its
// credential once, bootstraps with it, is listed with its times, and is
// refused once revoked.
func TestAdminDeviceEnrolRevoke(t *testing.T) {
	e := newEnv(t)
	st, body, _ := e.do("POST", "/core/v1/devices", `{"id":"d2"}`)
	var enrolled api.EnrolledJSON
	if st != 201 || json.Unmarshal([]byte(body), &enrolled) != nil || enrolled.ID != "d2" ||
		!strings.HasPrefix(enrolled.Credential, api.DeviceCredentialPrefix) || enrolled.CreatedAt.IsZero() {
		t.Fatalf("enrol: %d %s", st, body)
	}
	if got := e.bootstrapStatus("d2", enrolled.Credential); got != 200 {
		t.Fatalf("bootstrap with the enrolled credential: %d", got)
	}
	ds := e.devicesJSON()
	if len(ds) != 2 || ds[1].ID != "d2" || ds[1].Revoked || ds[1].RevokedAt != nil || ds[1].CreatedAt.IsZero() {
		t.Fatalf("devices after enrol: %+v", ds)
	}
	if strings.Contains(fmt.Sprint(e.devicesJSON()), enrolled.Credential) {
		t.Fatal("the device list shows the credential")
	}
	st, body, _ = e.do("POST", "/core/v1/devices/d2/revoke", "")
	var revoked api.RevokedJSON
	if st != 200 || json.Unmarshal([]byte(body), &revoked) != nil || revoked.ID != "d2" || !revoked.Revoked || revoked.RevokedAt.IsZero() {
		t.Fatalf("revoke: %d %s", st, body)
	}
	if got := e.bootstrapStatus("d2", enrolled.Credential); got != 401 {
		t.Fatalf("bootstrap of a revoked device: %d, want 401", got)
	}
	if ds := e.devicesJSON(); !ds[1].Revoked || ds[1].RevokedAt == nil {
		t.Fatalf("devices after revoke: %+v", ds)
	}
}

// TestAdminRevokeClosesTheLiveConnection: revoking a connected device
// closes its connection with 4001 at once, without waiting for the
// revocation poll.
func TestAdminRevokeClosesTheLiveConnection(t *testing.T) {
	back := server.NewMemory()
	if err := back.AddDevice("d1", sha256.Sum256([]byte("cred-d1")), time.Now()); err != nil {
		t.Fatal(err)
	}
	// No revocation poll within the test: the revocation itself closes.
	e := newAdminEnv(t, back, func(m *server.Memory) server.Backend { return m }, server.Options{RevocationPoll: time.Hour})
	c, err := scripted.Dial(context.Background(), e.ts.Client(), "ws"+strings.TrimPrefix(e.ts.URL, "http")+gateway.WSPath,
		"d1", "cred-d1", &scripted.Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Serve(context.Background()) }()
	if st, body, _ := e.do("POST", "/core/v1/devices/d1/revoke", ""); st != 200 {
		t.Fatalf("revoke: %d %s", st, body)
	}
	select {
	case err := <-done:
		if websocket.CloseStatus(err) != 4001 {
			t.Fatalf("connection ended with %v, want close 4001", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the revoked device's connection is still open")
	}
}

// TestAdminRejectionsChangeNothing: every refused administration request
// names its error and leaves devices and keys as they were.
func TestAdminRejectionsChangeNothing(t *testing.T) {
	e := newEnv(t)
	if st, body, _ := e.do("POST", "/core/v1/devices/d1/revoke", ""); st != 200 { // d1 is revoked below
		t.Fatalf("revoke d1: %d %s", st, body)
	}
	st, body, _ := e.do("POST", "/core/v1/keys", `{"name":"ci"}`)
	if st != 201 {
		t.Fatalf("add key: %d %s", st, body)
	}
	kid := field(t, body, "id")
	if st, body, _ := e.do("POST", "/core/v1/keys/"+kid+"/revoke", ""); st != 200 {
		t.Fatalf("revoke key: %d %s", st, body)
	}
	devices, keys := e.devicesJSON(), e.keysJSON()
	long := strings.Repeat("x", 257)
	for _, c := range []struct {
		name, method, path, body string
		auth                     string // "": the operator token
		status                   int
		code                     string
	}{
		{"enrol without token", "POST", "/core/v1/devices", `{"id":"d9"}`, "none", 401, api.CodeUnauthorized},
		{"enrol wrong token", "POST", "/core/v1/devices", `{"id":"d9"}`, "op_wrong", 401, api.CodeUnauthorized},
		{"enrol with an API key", "POST", "/core/v1/devices", `{"id":"d9"}`, apiKey, 401, api.CodeUnauthorized},
		{"revoke without token", "POST", "/core/v1/devices/d1/revoke", "", "none", 401, api.CodeUnauthorized},
		{"list without token", "GET", "/core/v1/devices", "", "none", 401, api.CodeUnauthorized},
		{"kinds wrong token", "GET", "/core/v1/kinds", "", "op_wrong", 401, api.CodeUnauthorized},
		{"suspensions wrong token", "GET", "/core/v1/suspensions", "", "op_wrong", 401, api.CodeUnauthorized},
		{"preparations wrong token", "GET", "/core/v1/preparations", "", "op_wrong", 401, api.CodeUnauthorized},
		{"key add wrong token", "POST", "/core/v1/keys", `{"name":"x"}`, "op_wrong", 401, api.CodeUnauthorized},
		{"key list wrong token", "GET", "/core/v1/keys", "", "op_wrong", 401, api.CodeUnauthorized},
		{"key revoke wrong token", "POST", "/core/v1/keys/" + kid + "/revoke", "", "op_wrong", 401, api.CodeUnauthorized},
		{"enrol bad json", "POST", "/core/v1/devices", `{"id":`, "", 400, api.CodeBadJSON},
		{"enrol not an object", "POST", "/core/v1/devices", `["d9"]`, "", 400, api.CodeBadJSON},
		{"enrol trailing data", "POST", "/core/v1/devices", `{"id":"d9"}{}`, "", 400, api.CodeBadJSON},
		{"enrol unknown field", "POST", "/core/v1/devices", `{"id":"d9","credential":"tsd_x"}`, "", 400, api.CodeUnknownField},
		{"enrol empty id", "POST", "/core/v1/devices", `{}`, "", 400, api.CodeInvalidDeviceID},
		{"enrol control character", "POST", "/core/v1/devices", `{"id":"d\u0007"}`, "", 400, api.CodeInvalidDeviceID},
		{"enrol long id", "POST", "/core/v1/devices", `{"id":"` + long + `"}`, "", 400, api.CodeInvalidDeviceID},
		{"enrol duplicate", "POST", "/core/v1/devices", `{"id":"d1"}`, "", 409, api.CodeDeviceExists},
		{"enrol oversized", "POST", "/core/v1/devices", `{"id":"` + strings.Repeat("y", api.BodyBytesMax) + `"}`, "", 413, api.CodeBodyTooLarge},
		{"revoke unknown device", "POST", "/core/v1/devices/d404/revoke", "", "", 404, api.CodeUnknownDevice},
		{"revoke twice", "POST", "/core/v1/devices/d1/revoke", "", "", 409, api.CodeDeviceRevoked},
		{"revoke with a body", "POST", "/core/v1/devices/d1/revoke", `{"at":"now"}`, "", 400, api.CodeUnknownField},
		{"revoke bad json", "POST", "/core/v1/devices/d1/revoke", `{`, "", 400, api.CodeBadJSON},
		{"enrol wrong method", "PUT", "/core/v1/devices", `{"id":"d9"}`, "", 405, api.CodeMethodNotAllowed},
		{"key add bad json", "POST", "/core/v1/keys", `{"name"`, "", 400, api.CodeBadJSON},
		{"key add unknown field", "POST", "/core/v1/keys", `{"name":"x","secret":"tsk_x"}`, "", 400, api.CodeUnknownField},
		{"key add blank name", "POST", "/core/v1/keys", `{"name":"  "}`, "", 400, api.CodeInvalidKeyName},
		{"key revoke unknown", "POST", "/core/v1/keys/key_404/revoke", "", "", 404, api.CodeUnknownKey},
		{"key revoke twice", "POST", "/core/v1/keys/" + kid + "/revoke", "", "", 409, api.CodeKeyRevoked},
		{"key revoke with a body", "POST", "/core/v1/keys/" + kid + "/revoke", `{"x":1}`, "", 400, api.CodeUnknownField},
	} {
		var header []string
		switch c.auth {
		case "":
		case "none":
			header = []string{"Authorization", ""}
		default:
			header = []string{"Authorization", "Bearer " + c.auth}
		}
		st, body, _ := e.do(c.method, c.path, c.body, header...)
		if st != c.status || field(t, body, "error") != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, st, body, c.status, c.code)
		}
	}
	if got := e.devicesJSON(); !reflect.DeepEqual(got, devices) {
		t.Fatalf("refusals changed the devices:\n%+v\nwant %+v", got, devices)
	}
	if got := e.keysJSON(); !reflect.DeepEqual(got, keys) {
		t.Fatalf("refusals changed the keys:\n%+v\nwant %+v", got, keys)
	}
}

// TestAdminKeys: a key issued over HTTP opens /v1, shows its secret only
// once, and is refused from the request after its revocation.
func TestAdminKeys(t *testing.T) {
	res := api.NewMemoryResources()
	e := newEnvWith(t, api.Options{OperatorToken: token, Keys: api.NewKeys(res), Resources: res})
	st, body, _ := e.do("POST", "/core/v1/keys", `{"name":"ci"}`)
	var k api.KeyJSON
	if st != 201 || json.Unmarshal([]byte(body), &k) != nil || !strings.HasPrefix(k.Secret, api.KeySecretPrefix) || k.Name != "ci" || k.Revoked {
		t.Fatalf("add: %d %s", st, body)
	}
	if ks := e.keysJSON(); len(ks) != 1 || ks[0].ID != k.ID || ks[0].Secret != "" {
		t.Fatalf("list: %+v", ks)
	}
	v1 := func() int {
		req, _ := http.NewRequest("GET", e.ts.URL+"/v1/agents", nil)
		req.Header.Set("Authorization", "Bearer "+k.Secret)
		req.Header.Set("OpenAI-Beta", "agents=v1")
		resp, err := e.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := v1(); got != 200 {
		t.Fatalf("/v1 with the issued key: %d", got)
	}
	if st, body, _ := e.do("POST", "/core/v1/keys/"+k.ID+"/revoke", ""); st != 200 || !strings.Contains(body, `"revoked":true`) {
		t.Fatalf("revoke: %d %s", st, body)
	}
	if got := v1(); got != 401 {
		t.Fatalf("/v1 with the revoked key: %d, want 401", got)
	}
}

// TestAdminKindsSuspensionsPreparations: the read-only lists.
func TestAdminKindsSuspensionsPreparations(t *testing.T) {
	e := newEnv(t)
	st, body, _ := e.do("GET", "/core/v1/kinds", "")
	var kinds struct{ Kinds []api.KindJSON }
	if st != 200 || json.Unmarshal([]byte(body), &kinds) != nil {
		t.Fatalf("kinds: %d %s", st, body)
	}
	var names []string
	for _, k := range kinds.Kinds {
		names = append(names, k.Kind)
		if len(k.Placements) == 0 || k.Label == "" {
			t.Errorf("kind %+v without label or placements", k)
		}
	}
	if want := enginetest.OpenPolicy("contract").Catalog().Kinds(); !slices.Equal(names, want) {
		t.Fatalf("kinds %v, want the policy's %v", names, want)
	}
	for _, path := range []string{"/core/v1/suspensions", "/core/v1/preparations"} {
		if st, body, _ := e.do("GET", path, ""); st != 200 || !strings.HasSuffix(strings.TrimSpace(body), ":[]}") {
			t.Fatalf("%s before any: %d %s", path, st, body)
		}
	}
	rec := core.EnvironmentPreparationRecord{ID: "prep-1", Seq: 1, Device: "d1", EnvironmentID: "env-1", Session: "s-1",
		State: core.PreparationFailed, Steps: []core.PreparationStepRecord{{Action: "initialize", Name: "make setup",
			State: core.PreparationFailed, ErrorCode: "setup_failed", ExitCode: 2}}}
	if err := e.s.Query(context.Background(), func(server.View) { e.back.PutEnvironmentPreparation(rec) }); err != nil {
		t.Fatal(err)
	}
	st, body, _ = e.do("GET", "/core/v1/preparations", "")
	var preps struct{ Preparations []api.PreparationRecordJSON }
	if st != 200 || json.Unmarshal([]byte(body), &preps) != nil || len(preps.Preparations) != 1 {
		t.Fatalf("preparations: %d %s", st, body)
	}
	if p := preps.Preparations[0]; p.ID != "prep-1" || p.Device != "d1" || p.SessionID != "s-1" || p.EnvironmentID != "env-1" ||
		p.State != "failed" || len(p.Steps) != 1 || p.Steps[0].ExitCode != 2 || p.Steps[0].ErrorCode != "setup_failed" {
		t.Fatalf("preparation %+v", p)
	}
	stop := e.connect(&scripted.Runtime{})
	defer stop()
	if st, body, _ := e.quiesceWhenConnected(quiesceBody); st != 202 {
		t.Fatalf("quiesce: %d %s", st, body)
	}
	st, body, _ = e.do("GET", "/core/v1/suspensions", "")
	var sus struct{ Suspensions []api.SuspensionJSON }
	if st != 200 || json.Unmarshal([]byte(body), &sus) != nil || len(sus.Suspensions) != 1 ||
		sus.Suspensions[0].SuspendID != "sus-1" || sus.Suspensions[0].DeviceID != "d1" || sus.Suspensions[0].EnvironmentID != "env-1" {
		t.Fatalf("suspensions: %d %s", st, body)
	}
}

// newAdminEnv serves the API and the gateway over back with the server
// options sopt.
func newAdminEnv(t *testing.T, back *server.Memory, wrap func(*server.Memory) server.Backend, sopt server.Options) *env {
	t.Helper()
	s, err := server.New(wrap(back), sopt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- s.Run(ctx) }()
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(func() { cancel(); <-ran; ts.Close() })
	a, err := api.New(s, api.Options{OperatorToken: token})
	if err != nil {
		t.Fatal(err)
	}
	a.Register(mux)
	gw, err := gateway.New(s, gateway.Options{PublicURL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	gw.Register(mux)
	return &env{t: t, back: back, s: s, ts: ts}
}

// Over a store that keeps no suspension or preparation records, their
// lists are refused with the codes of the routes that would write them.
func TestAdminListsWithoutTheirTables(t *testing.T) {
	e := newAdminEnv(t, server.NewMemory(), func(m *server.Memory) server.Backend { return noFencing{m} }, server.Options{})
	for path, want := range map[string]struct {
		status int
		code   string
	}{
		"/core/v1/suspensions":  {503, api.CodeFencingUnavailable},
		"/core/v1/preparations": {409, api.CodePreparationUnavailable},
	} {
		if st, body, _ := e.do("GET", path, ""); st != want.status || field(t, body, "error") != want.code {
			t.Errorf("GET %s: %d %s, want %d %s", path, st, body, want.status, want.code)
		}
	}
}

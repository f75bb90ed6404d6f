package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	coreapi "github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
)

func TestDeviceCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	code, out, errOut := cliDevice(t, dir, "add", "d1")
	cred := strings.TrimSpace(out)
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(cred, credentialPrefix))
	if code != 0 || !strings.HasPrefix(cred, credentialPrefix) || err != nil || len(raw) < 32 {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	if strings.Contains(errOut, cred) {
		t.Fatal("the credential is printed twice")
	}
	code, out2, _ := cliDevice(t, dir, "add", "d2")
	if code != 0 || strings.TrimSpace(out2) == cred {
		t.Fatalf("second add: %d, same credential %v", code, strings.TrimSpace(out2) == cred)
	}
	if code, _, errOut := cliDevice(t, dir, "add", "d1"); code != exitFail || !strings.Contains(errOut, "already exists") {
		t.Fatalf("duplicate add: %d %s", code, errOut)
	}
	// Flags may follow the id; the store keeps only the hash.
	var o, e strings.Builder
	if code := run([]string{"core", "device", "revoke", "d2", "-data", dir}, &o, &e); code != 0 {
		t.Fatalf("revoke: %d %s", code, e.String())
	}
	code, list, _ := cliDevice(t, dir, "list")
	if code != 0 || !strings.Contains(list, "d1  active") || !strings.Contains(list, "d2  revoked") || strings.Contains(list, credentialPrefix) {
		t.Fatalf("list: %d\n%s", code, list)
	}
	if code, _, errOut := cliDevice(t, dir, "revoke", "nobody"); code != exitFail || !strings.Contains(errOut, "unknown device") {
		t.Fatalf("revoke unknown: %d %s", code, errOut)
	}
	st, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d, ok, err := st.Device("d1")
	if err != nil || !ok || d.CredentialHash != sha256.Sum256([]byte(cred)) {
		t.Fatalf("stored device %+v %v %v", d, ok, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "core.db"))
	if strings.Contains(string(b), cred) {
		t.Fatal("the credential is stored in clear")
	}
}

func TestCoreBadFlagsExitTwo(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "tok")
	_ = os.WriteFile(tokenFile, []byte("  \n"), 0o600)
	cases := [][]string{
		{"core"}, // no token file
		{"core", "-operator-token-file", tokenFile},
		{"core", "-operator-token-file", "/nonexistent/tok"},
		{"core", "-operator-token-file", tokenFile, "-heartbeat-interval", "1500ms"},
		{"core", "-operator-token-file", tokenFile, "-log-level", "loud"},
		{"core", "extra"},
		{"core", "device"},
		{"core", "device", "add"},
		{"core", "device", "remove", "d1"},
		{"core", "device", "list", "d1"},
	}
	for _, args := range cases {
		var o, e strings.Builder
		if code := run(args, &o, &e); code != exitUsage || e.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, e.String())
		}
	}
}

// TestCoreProcessEndToEnd runs `turnstile core` as a child process: a
// scripted Runtime connects, a Turn runs through the public API and its
// events are watched, bad credentials and tokens are refused, a revoked
// device is closed with 4001, SIGTERM exits 0. Every log line of the run
// and every HTTP body is checked for the credentials and the token.
func TestCoreProcessEndToEnd(t *testing.T) {
	dir, tokenFile, token, cred := setup(t)
	p := startCore(t, dir, tokenFile, "-heartbeat-interval", "5s", "-log-level", "debug")
	api := newAPIClient(t, p.base, dir, token)
	wrongCred := credentialPrefix + "WRONGwrongWRONGwrongWRONGwrongWRONGwrong123"

	checkRefusals(t, api, cred, wrongCred, token)

	rt := &scripted.Runtime{Deltas: 2}
	c, served := daemon(t, p, cred, rt)
	sid := api.session("contract", "m")
	tid := api.submit(sid, "hello")
	evs, err := api.events(tid, "")
	if err != nil || len(evs) != 3 || evs[0].Event != coreapi.EvOutputTextDelta || evs[2].Event != coreapi.EvTurnCompleted {
		t.Fatalf("events %v %v", evs, err)
	}
	if body := api.must("GET", "/core/v1/turns/"+tid, "", 200); jsonField(body, "state") != "completed" {
		t.Fatalf("turn %s", body)
	}
	if body := api.must("GET", "/core/v1/devices", "", 200); !strings.Contains(body, `"connected":true`) {
		t.Fatalf("devices %s", body)
	}
	if b := api.must("GET", "/metrics", "", 200); !strings.Contains(b, `turnstile_core_turns{state="completed"} 1`) ||
		!strings.Contains(b, `turnstile_core_frames_in_total{type="done"} 1`) || !strings.Contains(b, "turnstile_core_store_commit_seconds_count") {
		t.Fatalf("metrics lack the core series:\n%s", b)
	}
	// The Agents API of the OpenAI SDK is served under /v1 to an API key
	// Core issued, its objects in the store of -data.
	code, out, errOut := cliKey(t, dir, "add", "e2e")
	if code != exitOK {
		t.Fatalf("key add: %d %s", code, errOut)
	}
	v1 := newClient(t, p.base, strings.TrimSpace(out))
	agent := jsonField(v1.must("POST", "/v1/agents", `{"model":"m","x_agents_core":{"harness":"contract"}}`, 200), "id")
	if body := v1.must("GET", "/v1/agents/"+agent, "", 200); jsonField(body, "object") != "agent" {
		t.Fatalf("agent %s", body)
	}
	if body := v1.must("GET", "/v1/nothing", "", 404); !strings.Contains(body, `"code":"unknown_route"`) {
		t.Fatalf("unknown /v1 route %s", body)
	}
	v1sid := jsonField(v1.must("POST", "/v1/agents/sessions", `{"agent_id":"`+agent+`","environment":{"type":"none"},"input":"hi"}`, 200), "id")
	for deadline := time.Now().Add(10 * time.Second); ; {
		body := v1.must("GET", "/v1/agents/sessions/"+v1sid+"/turns", "", 200)
		if strings.Contains(body, `"status":"completed"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the /v1 Turn did not complete: %s", body)
		}
	}
	if body := v1.must("GET", "/v1/agents/sessions/"+v1sid+"/items", "", 200); !strings.Contains(body, `"text":"echo: hi"`) {
		t.Fatalf("/v1 items %s", body)
	}
	api.must("GET", "/healthz", "", 200)
	api.must("GET", "/readyz", "", 200)

	// Revocation by another process closes the live connection with 4001.
	if code, _, errOut := cliDevice(t, dir, "revoke", "d1"); code != 0 {
		t.Fatalf("revoke: %s", errOut)
	}
	if err := <-served; websocket.CloseStatus(err) != 4001 {
		t.Fatalf("revoked connection ended with %v", err)
	}
	c.WS.CloseNow()
	if _, err := scripted.DoBootstrap(context.Background(), http.DefaultClient, p.base, "d1", cred); err == nil ||
		!strings.Contains(err.Error(), "unknown_device") {
		t.Fatalf("bootstrap after revoke: %v", err)
	}

	if code := p.terminate(); code != 0 {
		t.Fatalf("SIGTERM exit %d\n%s", code, p.stderr.String())
	}
	logs := p.stderr.String()
	if !strings.Contains(logs, `"msg":"stopped"`) {
		t.Fatalf("no graceful stop in the log:\n%s", logs)
	}
	for _, secret := range []string{cred, wrongCred, token, api.key, strings.TrimPrefix(cred, credentialPrefix)} {
		if strings.Contains(logs, secret) {
			t.Fatalf("a secret appears in the log:\n%s", logs)
		}
		for _, b := range api.bodies {
			if strings.Contains(b, secret) {
				t.Fatalf("a secret appears in a response body: %s", b)
			}
		}
	}
}

// TestLogRedaction: whatever reaches a log line (message, attribute,
// error, URL) loses device credentials and the operator token.
func TestLogRedaction(t *testing.T) {
	var b strings.Builder
	cred := credentialPrefix + "abcDEF123_-xyz"
	log := newLogger(&b, -4, &redactor{exact: []string{"op-TOKEN-9"}})
	log.Info("dial "+cred, "url", "/ws?token="+cred, "err", errors.New("bad "+cred+" and op-TOKEN-9"),
		"authorization", "Bearer anything", "operator_token", "op-TOKEN-9", "n", 3)
	log.With("grp", cred).WithGroup("g").Warn("x", "credential", "plain")
	out := b.String()
	for _, s := range []string{cred, "op-TOKEN-9", "anything", "plain", "abcDEF"} {
		if strings.Contains(out, s) {
			t.Fatalf("%q leaks into:\n%s", s, out)
		}
	}
	if !strings.Contains(out, `"n":3`) || strings.Count(out, redacted) < 6 {
		t.Fatalf("redaction lost ordinary attributes or missed secrets:\n%s", out)
	}
}

// checkRefusals sends requests that must be refused, each carrying a
// secret somewhere.
func checkRefusals(t *testing.T, api *client, cred, wrongCred, token string) {
	t.Helper()
	refused := []struct {
		method, path, auth, body string
		status                   int
	}{
		{"POST", "/api/v1/agent-daemon/bootstrap", "Bearer " + wrongCred, `{"device_id":"d1"}`, 401},
		{"POST", "/api/v1/agent-daemon/bootstrap?token=" + cred, "Bearer " + cred, `{"device_id":"d1"}`, 400},
		{"GET", "/api/v1/agent-daemon/ws?device_id=d1&version=0.10.0&token=" + cred, "Bearer " + cred, "", 400},
		{"GET", "/api/v1/agent-daemon/ws?device_id=d1&version=0.10.0", "Bearer " + wrongCred, "", 401},
		{"GET", "/api/v1/agent-daemon/ws?device_id=d1&version=0.7.0", "Bearer " + cred, "", 426},
		{"GET", "/core/v1/devices?token=" + token, "Bearer " + token + "x", "", 401},
		{"GET", "/core/v1/devices", "Bearer " + cred, "", 401},
		{"GET", "/core/v1/devices", "Bearer " + api.key, "", 401},
		{"GET", "/v1/agents/sessions", "Bearer " + token, "", 401},
		{"POST", "/api/v1/sessions", "Bearer " + token, `{}`, 404},
	}
	for _, r := range refused {
		st, _, _, err := api.do(r.method, r.path, r.body, "Authorization", r.auth)
		if err != nil || st != r.status {
			t.Errorf("%s %.40s: %d %v, want %d", r.method, r.path, st, err, r.status)
		}
	}
}

// TestDataDirectoryMustExist: the device commands that only read or change
// existing records (list, revoke) refuse a -data directory that does not
// exist, or holds no store, with a named error and exit 5, and create
// nothing; add initialises a missing store and says so, once.
func TestDataDirectoryMustExist(t *testing.T) {
	root := t.TempDir()
	typo := filepath.Join(root, "turnstile-dta")
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		args []string
		why  string
	}{
		{typo, []string{"list"}, "the directory does not exist"},
		{typo, []string{"revoke", "d1"}, "the directory does not exist"},
		{empty, []string{"list"}, "the directory holds no core.db"},
		{empty, []string{"revoke", "d1"}, "the directory holds no core.db"},
	} {
		code, out, errOut := cliDevice(t, c.dir, c.args...)
		want := "-data " + c.dir + ": " + ErrNoStore.Error() + ": " + c.why
		if code != exitNoStore || !strings.Contains(errOut, want) || out != "" {
			t.Errorf("device %v -data %s: exit %d (want %d), stdout %q, stderr %q (want %q)",
				c.args, c.dir, code, exitNoStore, out, errOut, want)
		}
	}
	if _, err := os.Stat(typo); !os.IsNotExist(err) {
		t.Fatalf("a refused command created the data directory: %v", err)
	}
	if names, _ := os.ReadDir(empty); len(names) != 0 {
		t.Fatalf("a refused command wrote into the empty directory: %v", names)
	}
	code, _, errOut := cliDevice(t, typo, "add", "d1")
	if code != exitOK || !strings.Contains(errOut, "created a new store in "+filepath.Join(typo, "core.db")) {
		t.Fatalf("add initialises the store: exit %d %s", code, errOut)
	}
	if code, _, errOut := cliDevice(t, typo, "add", "d2"); code != exitOK || strings.Contains(errOut, "created") {
		t.Fatalf("a second add finds the store: exit %d %s", code, errOut)
	}
	if code, list, _ := cliDevice(t, typo, "list"); code != exitOK || !strings.Contains(list, "d2  active") {
		t.Fatalf("list after add: exit %d\n%s", code, list)
	}
}

// TestCoreLogsAStoreItCreated: `turnstile core` (a real process) initialises
// a missing store, as a first start does, and says so in its log; a start
// on an existing store does not.
func TestCoreLogsAStoreItCreated(t *testing.T) {
	_, tokenFile, _, _ := setup(t)
	fresh := filepath.Join(t.TempDir(), "fresh")
	p := startCore(t, fresh, tokenFile)
	if code := p.terminate(); code != 0 {
		t.Fatalf("core exited %d:\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), `"msg":"store created: -data held no store, Core starts empty"`) ||
		!strings.Contains(p.stderr.String(), filepath.Join(fresh, "core.db")) {
		t.Fatalf("no store-created line:\n%s", p.stderr.String())
	}
	p = startCore(t, fresh, tokenFile)
	if code := p.terminate(); code != 0 || strings.Contains(p.stderr.String(), "store created") {
		t.Fatalf("a second start: exit %d\n%s", code, p.stderr.String())
	}
}

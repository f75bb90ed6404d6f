package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/gateway/scripted"
	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// runCLI runs turnstile with args in-process.
func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// The device and key commands given -core act through the running Core's
// administration API: the change takes effect in that Core at once, a
// refusal of Core's exits 1 and changes nothing, and -data or -store on
// the command line still opens the store directly.
func TestDeviceAndKeyCommandsOverTheAPI(t *testing.T) {
	dir, tokenFile, token, _ := setup(t)
	adminCommandsOverTheAPI(t, dir, tokenFile, token)
}

// The same against a Core on PostgreSQL: -store on the command line opens
// the schema directly.
func TestDeviceAndKeyCommandsOverTheAPIOnPostgres(t *testing.T) {
	testgate.Long(t)
	dsn, tokenFile, token, _ := setupPG(t)
	adminCommandsOverTheAPI(t, dsn, tokenFile, token)
}

// adminCommandsOverTheAPI runs the device and key commands against a
// Core on dir (a data directory or a PostgreSQL URL) holding device d1.
func adminCommandsOverTheAPI(t *testing.T, dir, tokenFile, token string) {
	core := startCore(t, dir, tokenFile)
	over := func(args ...string) (int, string, string) {
		return runCLI(append(args, "-core", core.base, "-operator-token-file", tokenFile)...)
	}
	code, out, errOut := over("core", "device", "add", "d2")
	cred := strings.TrimSpace(out)
	if code != exitOK || !strings.HasPrefix(cred, api.DeviceCredentialPrefix) || strings.Count(out, "\n") != 1 ||
		!strings.Contains(errOut, "device d2 added") {
		t.Fatalf("device add over the API: %d %q %q", code, out, errOut)
	}
	if _, err := scripted.DoBootstrap(context.Background(), http.DefaultClient, core.base, "d2", cred); err != nil {
		t.Fatalf("the running Core refuses the credential it enrolled: %v", err)
	}
	code, list, errOut := over("core", "device", "list")
	if code != exitOK || !strings.Contains(list, "CONNECTED") || !strings.Contains(list, "d1") ||
		!strings.Contains(list, "d2  ") || strings.Contains(list, cred) {
		t.Fatalf("device list over the API: %d %q %q", code, list, errOut)
	}
	for _, c := range []struct {
		args []string
		code string
	}{
		{[]string{"core", "device", "add", "d2"}, api.CodeDeviceExists},
		{[]string{"core", "device", "revoke", "d404"}, api.CodeUnknownDevice},
		{[]string{"core", "key", "revoke", "key_404"}, api.CodeUnknownKey},
	} {
		if code, _, errOut := over(c.args...); code != exitFail || !strings.Contains(errOut, c.code) {
			t.Errorf("%v: %d %q, want exit 1 %s", c.args, code, errOut, c.code)
		}
	}
	if code, again, _ := over("core", "device", "list"); code != exitOK || again != list {
		t.Fatalf("refusals changed the device list:\n%s\nwas\n%s", again, list)
	}
	if code, _, errOut := over("core", "device", "revoke", "d2"); code != exitOK || !strings.Contains(errOut, "device d2 revoked") {
		t.Fatalf("revoke over the API: %d %q", code, errOut)
	}
	if _, err := scripted.DoBootstrap(context.Background(), http.DefaultClient, core.base, "d2", cred); err == nil ||
		!strings.Contains(err.Error(), "401") {
		t.Fatalf("bootstrap of the revoked device: %v", err)
	}
	if code, _, errOut := over("core", "device", "revoke", "d2"); code != exitFail || !strings.Contains(errOut, api.CodeDeviceRevoked) {
		t.Fatalf("second revoke: %d %q", code, errOut)
	}

	code, out, errOut = over("core", "key", "add", "ci")
	secret := strings.TrimSpace(out)
	if code != exitOK || !strings.HasPrefix(secret, api.KeySecretPrefix) {
		t.Fatalf("key add over the API: %d %q %q", code, out, errOut)
	}
	kid := keyIDFrom(t, errOut)
	c := newClient(t, core.base, token)
	c.key = secret
	c.must("GET", "/v1/agents", "", 200, "OpenAI-Beta", "agents=v1")
	if code, list, _ := over("core", "key", "list"); code != exitOK || !strings.Contains(list, kid) || strings.Contains(list, secret) {
		t.Fatalf("key list over the API: %d %q", code, list)
	}
	if code, _, errOut := over("core", "key", "revoke", kid); code != exitOK {
		t.Fatalf("key revoke over the API: %d %q", code, errOut)
	}
	c.must("GET", "/v1/agents", "", 401, "OpenAI-Beta", "agents=v1")

	// The environment selects the API like the flags.
	t.Setenv("TURNSTILE_CORE_URL", core.base)
	t.Setenv("TURNSTILE_OPERATOR_TOKEN_FILE", tokenFile)
	if code, envList, errOut := runCLI("core", "device", "list"); code != exitOK || !strings.Contains(envList, "CONNECTED") {
		t.Fatalf("device list with TURNSTILE_CORE_URL: %d %q %q", code, envList, errOut)
	}
	// -data on the command line opens the store, even with the
	// environment naming a Core: it holds what the API wrote.
	if code, stored, errOut := runCLI("core", "device", "list", storeFlag(dir), dir); code != exitOK || strings.Contains(stored, "CONNECTED") ||
		!strings.Contains(stored, "d2") || !strings.Contains(stored, "revoked") {
		t.Fatalf("device list -data: %d %q %q", code, stored, errOut)
	}

	wrong := filepath.Join(t.TempDir(), "wrong.token")
	if err := os.WriteFile(wrong, []byte("op_wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("core", "device", "add", "d3", "-core", core.base, "-operator-token-file", wrong); code != exitFail ||
		!strings.Contains(errOut, "401 "+api.CodeUnauthorized) {
		t.Fatalf("a wrong operator token: %d %q", code, errOut)
	}
	t.Setenv("TURNSTILE_OPERATOR_TOKEN_FILE", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"core", "device", "list", "-core", core.base}, ErrNoTokenFile.Error()},
		{[]string{"core", "key", "list", "-core", core.base, storeFlag(dir), dir, "-operator-token-file", tokenFile}, ErrStoreAndCore.Error()},
		{[]string{"core", "device", "list", "-core", "ftp://core", "-operator-token-file", tokenFile}, "absolute http or https"},
	} {
		if code, _, errOut := runCLI(c.args...); code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: %d %q, want usage error %q", c.args, code, errOut, c.want)
		}
	}
	if code := core.terminate(); code != exitOK {
		t.Fatalf("core exit %d", code)
	}
	if code, _, errOut := runCLI("core", "device", "add", "d3", "-core", core.base, "-operator-token-file", tokenFile); code != exitFail ||
		!strings.Contains(errOut, "cannot reach Core") {
		t.Fatalf("add with Core stopped: %d %q", code, errOut)
	}
	if code, stored, _ := runCLI("core", "device", "list", storeFlag(dir), dir); code != exitOK || strings.Contains(stored, "d3") {
		t.Fatalf("a failed add left a record: %q", stored)
	}
}

// TestAdminCommandNamesAnUntrustedCertificate: `core device|key ... -core
// https://...` against a Core whose certificate the client cannot verify
// says so and names -ca-file, instead of asking whether Core is running.
func TestAdminCommandNamesAnUntrustedCertificate(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"devices":[]}`))
	}))
	defer srv.Close()
	c := &adminClient{base: srv.URL, token: "t", hc: &http.Client{}}
	var out struct{}
	err := c.call("GET", api.OperatorPrefix+"/devices", nil, &out)
	if err == nil || strings.Contains(err.Error(), "is it running") || !strings.Contains(err.Error(), "-ca-file") {
		t.Fatalf("untrusted certificate: %v", err)
	}
	c.hc = srv.Client()
	if err := c.call("GET", api.OperatorPrefix+"/devices", nil, &out); err != nil {
		t.Fatalf("with the CA trusted: %v", err)
	}
}

// TestAdminCommandNamesHTTPForATLSCore: -core http://... for a Core that
// serves TLS is answered by the TLS listener's plain-text 400; the
// command says to use https:// instead of calling the URL no
// administration API.
func TestAdminCommandNamesHTTPForATLSCore(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"devices":[]}`))
	}))
	defer srv.Close()
	c := &adminClient{base: "http://" + srv.Listener.Addr().String(), token: "t", hc: &http.Client{}}
	var out struct{}
	err := c.call("GET", api.OperatorPrefix+"/devices", nil, &out)
	if err == nil || !strings.Contains(err.Error(), "https://") || strings.Contains(err.Error(), "not Core's administration API") {
		t.Fatalf("http:// against a TLS Core: %v", err)
	}
}

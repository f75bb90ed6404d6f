package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
)

// TestCoreVaultKeyFlag: a missing, unreadable, short or malformed
// -vault-key file stops `turnstile core` before it starts, with the named
// error and exit 2.
func TestCoreVaultKeyFlag(t *testing.T) {
	root := t.TempDir()
	tokenFile := filepath.Join(root, "tok")
	_ = os.WriteFile(tokenFile, []byte("op-token\n"), 0o600)
	write := func(name, content string) string {
		p := filepath.Join(root, name)
		_ = os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	for _, c := range []struct {
		name, file string
		want       error
	}{
		{"missing", filepath.Join(root, "no-such.key"), api.ErrVaultKeyMissing},
		{"unreadable", root, api.ErrVaultKeyUnreadable},
		{"short", write("short.key", strings.Repeat("a", 63)), api.ErrVaultKeyShort},
		{"not hex", write("bad.key", strings.Repeat("g", 64)), api.ErrVaultKeyFormat},
	} {
		var o, e strings.Builder
		code := run([]string{"core", "-data", filepath.Join(root, "data"), "-operator-token-file", tokenFile, "-vault-key", c.file}, &o, &e)
		if code != exitUsage || !strings.Contains(e.String(), "-vault-key: "+c.want.Error()) || !strings.Contains(e.String(), c.file) {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, e.String())
		}
	}
	if _, err := os.Stat(filepath.Join(root, "data")); !os.IsNotExist(err) {
		t.Fatalf("a refused start created the store: %v", err)
	}
}

// TestCoreProcessKeysAndVault runs `turnstile core` with -vault-key: an
// issued API key opens /v1, a credential's secret is in no answer, no log
// line and not in clear in the database; revoking the key (by the CLI,
// while Core runs) refuses it at once; a Core without -vault-key refuses
// the credential routes.
func TestCoreProcessKeysAndVault(t *testing.T) {
	dir, tokenFile, token, _ := setup(t)
	keyFile := filepath.Join(t.TempDir(), "vault.key")
	if err := os.WriteFile(keyFile, []byte(strings.Repeat("5e", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cliKey(t, dir, "add", "e2e")
	if code != exitOK {
		t.Fatalf("key add: %d %s", code, errOut)
	}
	secretKey, keyID := strings.TrimSpace(out), keyIDFrom(t, errOut)
	const credSecret = "SECRET-e2e-bearer-31c9"
	p := startCore(t, dir, tokenFile, "-vault-key", keyFile, "-log-level", "debug")
	c := newClient(t, p.base, secretKey)
	vid := jsonField(c.must("POST", "/v1/vaults", `{"name":"e2e"}`, 200), "id")
	cid := jsonField(c.must("POST", "/v1/vaults/"+vid+"/credentials",
		`{"name":"mcp","auth":{"type":"static_bearer","mcp_server_url":"https://mcp.example","token":"`+credSecret+`"}}`, 200), "id")
	c.must("GET", "/v1/vaults/"+vid+"/credentials/"+cid, "", 200)
	c.must("GET", "/v1/vaults/"+vid+"/credentials", "", 200)
	c.must("POST", "/v1/vaults/"+vid+"/credentials/"+cid, `{"auth":{"type":"static_bearer","token":"`+credSecret+`-2"}}`, 200)
	if st, body, _, _ := newClient(t, p.base, token).do("GET", "/v1/vaults", ""); st != 401 || !strings.Contains(body, api.CodeInvalidAPIKey) {
		t.Fatalf("the operator token on /v1: %d %s", st, body)
	}
	if st, body, _, _ := c.do("GET", "/core/v1/devices", ""); st != 401 {
		t.Fatalf("an API key on /core/v1: %d %s", st, body)
	}
	if code, _, errOut := cliKey(t, dir, "revoke", keyID); code != exitOK {
		t.Fatalf("revoke while Core runs: %d %s", code, errOut)
	}
	if st, body, _, _ := c.do("GET", "/v1/vaults", ""); st != 401 || !strings.Contains(body, api.CodeInvalidAPIKey) {
		t.Fatalf("the revoked key: %d %s", st, body)
	}
	if code := p.terminate(); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, p.stderr.String())
	}
	check := func(what, s string) {
		t.Helper()
		if strings.Contains(s, credSecret) || strings.Contains(s, strings.TrimPrefix(secretKey, api.KeySecretPrefix)) {
			t.Fatalf("%s holds a secret:\n%s", what, s)
		}
	}
	check("log", p.stderr.String())
	for _, b := range c.bodies {
		check("an answer", b)
	}
	for _, name := range []string{sqlitestore.FileName, sqlitestore.FileName + "-wal"} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		check(name, string(b))
	}

	// Without -vault-key: the credential routes are refused, the records stay.
	code, out, _ = cliKey(t, dir, "add", "second")
	if code != exitOK {
		t.Fatal("key add")
	}
	p2 := startCore(t, dir, tokenFile)
	c2 := newClient(t, p2.base, strings.TrimSpace(out))
	c2.must("GET", "/v1/vaults/"+vid, "", 200)
	if body := c2.must("GET", "/v1/vaults/"+vid+"/credentials/"+cid, "", 503); !strings.Contains(body, api.CodeVaultKeyUnconfigured) {
		t.Fatalf("credential without a vault key: %s", body)
	}
	p2.terminate()
}

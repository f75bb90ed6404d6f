package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
	"github.com/turnstile-sim/turnstile/wire"
)

// The secrets of the vault tests: none may appear in a response, a log
// line or the database file.
const (
	secretBearer = "SECRET-bearer-7f3a9c"
	secretOAuth  = "SECRET-oauth-41d2e8"
	secretEnv    = "SECRET-env-9b0c11"
	secretRotate = "SECRET-rotated-c5e7aa"
)

var allSecrets = []string{secretBearer, secretOAuth, secretEnv, secretRotate}

// lockedBuffer is a log sink safe for the handlers' goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func testVaultKey(t *testing.T, fill byte) *api.VaultKey {
	t.Helper()
	k, err := api.NewVaultKey(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type vaultEnv struct {
	*env
	dir  string
	st   *sqlitestore.Store
	logs *lockedBuffer
	a    *api.Vaults
}

// newVaultEnv serves the API over a SQLite store with the vault key
// (nil: none) and a debug logger.
func newVaultEnv(t *testing.T, key *api.VaultKey) *vaultEnv {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := newEnvWith(t, api.Options{OperatorToken: token, Keys: testKeys{}, Resources: st, VaultKey: key, Logger: log})
	return &vaultEnv{env: e, dir: dir, st: st, logs: logs, a: api.NewVaults(st, key)}
}

// must sends a /v1 request and wants status 200; it fails the test when
// the body holds a secret.
func (v *vaultEnv) must(method, path, body string) string {
	v.t.Helper()
	st, out := v.v1(method, path, body)
	if st != 200 {
		v.t.Fatalf("%s %s: %d %s", method, path, st, out)
	}
	v.noSecret(method+" "+path, out)
	return out
}

func (v *vaultEnv) noSecret(what, s string) {
	v.t.Helper()
	for _, sec := range allSecrets {
		if strings.Contains(s, sec) {
			v.t.Fatalf("%s: holds a secret: %s", what, s)
		}
	}
}

// records is every vault record, to show a refused call wrote nothing.
func (v *vaultEnv) records() string {
	v.t.Helper()
	var b strings.Builder
	for _, kind := range []string{api.VaultKind, api.CredentialKind} {
		b.WriteString(snapshot(v.t, v.st, kind))
	}
	return b.String()
}

func TestVaultsAndCredentialsLifecycle(t *testing.T) {
	v := newVaultEnv(t, testVaultKey(t, 7))
	ctx := context.Background()
	empty := v.must("POST", "/v1/vaults", "")
	if field(t, empty, "object") != "vault" || !strings.Contains(empty, `"name":null`) || !strings.Contains(empty, `"metadata":{}`) {
		t.Fatalf("create without a body: %s", empty)
	}
	out := v.must("POST", "/v1/vaults", `{"name":"  Research vault  ","metadata":{"team":"a"}}`)
	vid := field(t, out, "id")
	if !strings.Contains(out, `"name":"Research vault"`) || !strings.HasPrefix(vid, "vault_") {
		t.Fatalf("create: %s", out)
	}
	if got := v.must("GET", "/v1/vaults/"+vid, ""); got != out {
		t.Fatalf("retrieve %s, created %s", got, out)
	}
	if got := v.must("POST", "/v1/vaults/"+vid, `{"name":null}`); !strings.Contains(got, `"name":null`) || !strings.Contains(got, `"team":"a"`) {
		t.Fatalf("clear the name: %s", got)
	}
	if got := v.must("POST", "/v1/vaults/"+vid, `{"metadata":{}, "name":"R"}`); !strings.Contains(got, `"metadata":{}`) || !strings.Contains(got, `"name":"R"`) {
		t.Fatalf("clear the metadata: %s", got)
	}
	v.must("POST", "/v1/vaults/"+vid, `{"metadata":{"team":"b"}}`)
	list := v.must("GET", "/v1/vaults?metadata[team]=b", "")
	if !strings.Contains(list, vid) || strings.Contains(list, field(t, empty, "id")) || !strings.Contains(list, `"has_more":false`) {
		t.Fatalf("list by metadata: %s", list)
	}
	p1 := v.must("GET", "/v1/vaults?limit=1&order=asc", "")
	if !strings.Contains(p1, field(t, empty, "id")) || !strings.Contains(p1, `"has_more":true`) {
		t.Fatalf("first page: %s", p1)
	}
	p2 := v.must("GET", "/v1/vaults?limit=1&order=asc&after="+field(t, empty, "id"), "")
	if !strings.Contains(p2, vid) || !strings.Contains(p2, `"has_more":false`) {
		t.Fatalf("second page: %s", p2)
	}
	if got := v.must("GET", "/v1/vaults?status[]=archived", ""); !strings.Contains(got, `"data":[]`) {
		t.Fatalf("archived vaults: %s", got)
	}
	if got := v.must("GET", "/v1/vaults?status=active", ""); !strings.Contains(got, vid) {
		t.Fatalf("active vaults: %s", got)
	}

	base := "/v1/vaults/" + vid + "/credentials"
	bearer := v.must("POST", base, `{"name":"docs","auth":{"type":"static_bearer","mcp_server_url":"https://mcp.example/docs","token":"`+secretBearer+`"}}`)
	if field(t, bearer, "object") != "vault.credential" || field(t, bearer, "vault_id") != vid ||
		!strings.Contains(bearer, `"auth":{"mcp_server_url":"https://mcp.example/docs","type":"static_bearer"}`) {
		t.Fatalf("static_bearer: %s", bearer)
	}
	oauth := v.must("POST", base, `{"name":"wiki","metadata":{"k":"v"},"auth":{"type":"mcp_oauth","mcp_server_url":"http://127.0.0.1:9/mcp","access_token":"`+secretOAuth+`","expires_at":"2030-01-02T03:04:05Z","refresh":null}}`)
	if !strings.Contains(oauth, `"expires_at":"2030-01-02T03:04:05Z"`) || !strings.Contains(oauth, `"refresh":null`) {
		t.Fatalf("mcp_oauth: %s", oauth)
	}
	envc := v.must("POST", base, `{"name":"provider","auth":{"type":"environment_variable","secret_name":"OPENAI_API_KEY","secret_value":"`+secretEnv+`","networking":{"type":"limited","allowed_hosts":["API.example.com"]}}}`)
	if !strings.Contains(envc, `"networking":{"allowed_hosts":["api.example.com"],"type":"limited"}`) {
		t.Fatalf("environment_variable: %s", envc)
	}
	bid, oid, eid := field(t, bearer, "id"), field(t, oauth, "id"), field(t, envc, "id")
	if got := v.must("GET", base+"/"+bid, ""); got != bearer {
		t.Fatalf("retrieve %s, created %s", got, bearer)
	}
	all := v.must("GET", base, "")
	for _, id := range []string{bid, oid, eid} {
		if !strings.Contains(all, id) {
			t.Fatalf("list lacks %s: %s", id, all)
		}
	}
	if got := v.must("GET", base+"?metadata[k]=v", ""); !strings.Contains(got, oid) || strings.Contains(got, bid) {
		t.Fatalf("credentials by metadata: %s", got)
	}

	// Inside Core: the lookups the Sessions use.
	if s, ok, err := v.a.MCPBearer(ctx, []string{vid}, "https://mcp.example/docs"); err != nil || !ok || s.Reveal() != secretBearer {
		t.Fatalf("MCP bearer: %v %v", ok, err)
	}
	if s, ok, err := v.a.MCPBearer(ctx, []string{vid}, "http://127.0.0.1:9/mcp"); err != nil || !ok || s.Reveal() != secretOAuth {
		t.Fatalf("OAuth bearer: %v %v", ok, err)
	}
	if _, ok, err := v.a.MCPBearer(ctx, []string{vid}, "https://other.example"); ok || err != nil {
		t.Fatalf("bearer of another server: %v %v", ok, err)
	}
	if s, ok, err := v.a.EnvironmentSecret(ctx, []string{vid}, "OPENAI_API_KEY", "api.example.com"); err != nil || !ok || s.Reveal() != secretEnv {
		t.Fatalf("environment secret: %v %v", ok, err)
	}
	if _, ok, err := v.a.EnvironmentSecret(ctx, []string{vid}, "OPENAI_API_KEY", "evil.example"); ok || err != nil {
		t.Fatalf("environment secret for a host outside allowed_hosts: %v %v", ok, err)
	}
	if _, _, err := v.a.MCPBearer(ctx, []string{"vault_nope"}, "https://mcp.example/docs"); err == nil {
		t.Fatal("a lookup through an unknown vault succeeded")
	}
	if err := v.a.CheckVaults(ctx, "vault_ids", []string{vid, "vault_nope"}); err == nil || !strings.Contains(err.Error(), "vault_nope") {
		t.Fatalf("CheckVaults: %v", err)
	}

	// Rotation replaces the secret, keeps the method; a new OAuth token
	// clears the expiry.
	rot := v.must("POST", base+"/"+bid, `{"auth":{"type":"static_bearer","token":"`+secretRotate+`"},"metadata":{"rotated":"yes"}}`)
	if !strings.Contains(rot, `"rotated":"yes"`) {
		t.Fatalf("rotate: %s", rot)
	}
	if s, err := v.a.CredentialSecret(ctx, vid, bid); err != nil || s.Reveal() != secretRotate {
		t.Fatalf("rotated secret: %v", err)
	}
	if got := v.must("POST", base+"/"+oid, `{"auth":{"type":"mcp_oauth","access_token":"`+secretRotate+`"}}`); !strings.Contains(got, `"expires_at":null`) {
		t.Fatalf("new OAuth token keeps the old expiry: %s", got)
	}
	if got := v.must("POST", base+"/"+oid, `{"auth":{"type":"mcp_oauth","expires_at":"2031-01-01T00:00:00Z"}}`); !strings.Contains(got, `"expires_at":"2031-01-01T00:00:00Z"`) {
		t.Fatalf("expiry update: %s", got)
	}
	if s, err := v.a.CredentialSecret(ctx, vid, oid); err != nil || s.Reveal() != secretRotate {
		t.Fatalf("an expiry update changed the token: %v", err)
	}

	// Deletes: a credential, then the vault with the rest.
	if got := v.must("DELETE", base+"/"+bid, ""); got != `{"id":"`+bid+`","object":"vault.credential.deleted","deleted":true}`+"\n" {
		t.Fatalf("delete credential: %s", got)
	}
	if st, body := v.v1("GET", base+"/"+bid, ""); st != 404 || code(v1Err(t, body)) != api.CodeUnknownCredential {
		t.Fatalf("deleted credential: %d %s", st, body)
	}
	v.must("DELETE", "/v1/vaults/"+vid, "")
	if st, body := v.v1("GET", "/v1/vaults/"+vid, ""); st != 404 || code(v1Err(t, body)) != api.CodeUnknownVault {
		t.Fatalf("deleted vault: %d %s", st, body)
	}
	if rest := snapshot(t, v.st, api.CredentialKind); rest != "" {
		t.Fatalf("deleting the vault left its credentials: %s", rest)
	}

	// Never logged, never stored in clear.
	v.noSecret("log", v.logs.String())
	v.st.Close()
	for _, name := range []string{sqlitestore.FileName, sqlitestore.FileName + "-wal"} {
		b, err := os.ReadFile(filepath.Join(v.dir, name))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		v.noSecret(name, string(b))
	}
}

// TestVaultSecretsNotInDatabaseFile checks the file while credentials
// exist (the lifecycle test deletes them before reading it).
func TestVaultSecretsNotInDatabaseFile(t *testing.T) {
	v := newVaultEnv(t, testVaultKey(t, 9))
	vid := field(t, v.must("POST", "/v1/vaults", `{}`), "id")
	v.must("POST", "/v1/vaults/"+vid+"/credentials", `{"name":"a","auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":"`+secretBearer+`"}}`)
	v.must("POST", "/v1/vaults/"+vid+"/credentials", `{"name":"b","auth":{"type":"environment_variable","secret_name":"K","secret_value":"`+secretEnv+`","networking":{"type":"unrestricted"}}}`)
	if s := snapshot(t, v.st, api.CredentialKind); !strings.Contains(s, `"sealed"`) {
		t.Fatalf("no sealed records: %s", s)
	}
	v.st.Close()
	var dump []byte
	for _, name := range []string{sqlitestore.FileName, sqlitestore.FileName + "-wal"} {
		b, _ := os.ReadFile(filepath.Join(v.dir, name))
		dump = append(dump, b...)
	}
	if len(dump) == 0 {
		t.Fatal("no database file")
	}
	v.noSecret("database file", string(dump))
	v.noSecret("log", v.logs.String())
}

func TestVaultRefusalsChangeNothing(t *testing.T) {
	v := newVaultEnv(t, testVaultKey(t, 7))
	vid := field(t, v.must("POST", "/v1/vaults", `{"name":"v"}`), "id")
	other := field(t, v.must("POST", "/v1/vaults", `{"name":"w"}`), "id")
	base := "/v1/vaults/" + vid + "/credentials"
	cid := field(t, v.must("POST", base, `{"name":"c","auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":"`+secretBearer+`"}}`), "id")
	big := `{"name":"` + strings.Repeat("x", api.V1BodyBytesMax) + `"}`
	many := map[string]string{}
	for i := range api.MetadataPairsMax + 1 {
		many[fmt.Sprint("k", i)] = "v"
	}
	manyJSON, _ := json.Marshal(many)
	sb := func(extra string) string {
		return `{"name":"n","auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":"` + secretBearer + `"` + extra + `}}`
	}
	before := v.records()
	for _, c := range []struct {
		name, method, path, body string
		st                       int
		code, param              string
	}{
		{"vault bad JSON", "POST", "/v1/vaults", `{"name":`, 400, api.CodeBadJSON, ""},
		{"vault unknown member", "POST", "/v1/vaults", `{"title":"x"}`, 400, api.CodeUnknownField, "title"},
		{"vault wrong type", "POST", "/v1/vaults", `{"name":7}`, 400, api.CodeBadJSON, "name"},
		{"vault blank name", "POST", "/v1/vaults", `{"name":"   "}`, 400, api.CodeInvalidValue, "name"},
		{"vault long name", "POST", "/v1/vaults", `{"name":"` + strings.Repeat("n", 257) + `"}`, 400, api.CodeInvalidValue, "name"},
		{"vault metadata pairs", "POST", "/v1/vaults", `{"metadata":` + string(manyJSON) + `}`, 400, api.CodeInvalidValue, "metadata"},
		{"vault metadata long key", "POST", "/v1/vaults", `{"metadata":{"` + strings.Repeat("k", 65) + `":"v"}}`, 400, api.CodeInvalidValue, "metadata"},
		{"vault metadata long value", "POST", "/v1/vaults", `{"metadata":{"k":"` + strings.Repeat("v", 513) + `"}}`, 400, api.CodeInvalidValue, "metadata"},
		{"vault body too large", "POST", "/v1/vaults", big, 413, api.CodeBodyTooLarge, ""},
		{"vault unknown id", "GET", "/v1/vaults/vault_nope", "", 404, api.CodeUnknownVault, "vault_id"},
		{"update unknown vault", "POST", "/v1/vaults/vault_nope", `{"name":"x"}`, 404, api.CodeUnknownVault, "vault_id"},
		{"update bad name type", "POST", "/v1/vaults/" + vid, `{"name":["x"]}`, 400, api.CodeBadJSON, "name"},
		{"update unknown member", "POST", "/v1/vaults/" + vid, `{"status":"archived"}`, 400, api.CodeUnknownField, "status"},
		{"delete unknown vault", "DELETE", "/v1/vaults/vault_nope", "", 404, api.CodeUnknownVault, "vault_id"},
		{"list bad limit", "GET", "/v1/vaults?limit=0", "", 400, api.CodeBadLimit, "limit"},
		{"list bad order", "GET", "/v1/vaults?order=sideways", "", 400, api.CodeInvalidValue, "order"},
		{"list bad status", "GET", "/v1/vaults?status=deleted", "", 400, api.CodeInvalidValue, "status"},
		{"list unknown parameter", "GET", "/v1/vaults?colour=red", "", 400, api.CodeInvalidValue, "colour"},
		{"list unknown cursor", "GET", "/v1/vaults?after=vault_nope", "", 400, api.CodeBadCursor, "after"},
		{"list empty metadata key", "GET", "/v1/vaults?metadata[]=x", "", 400, api.CodeInvalidValue, "metadata"},
		{"wrong method", "PUT", "/v1/vaults/" + vid, `{}`, 405, api.CodeMethodNotAllowed, ""},

		{"credential in unknown vault", "POST", "/v1/vaults/vault_nope/credentials", sb(""), 404, api.CodeUnknownVault, "vault_id"},
		{"credential bad JSON", "POST", base, `{"auth":`, 400, api.CodeBadJSON, ""},
		{"credential empty body", "POST", base, ``, 400, api.CodeBadJSON, ""},
		{"credential unknown member", "POST", base, `{"name":"n","vault":"x","auth":{}}`, 400, api.CodeUnknownField, "vault"},
		{"credential unknown auth member", "POST", base, sb(`,"header":"X-Key"`), 400, api.CodeUnknownField, "auth.header"},
		{"credential auth not an object", "POST", base, `{"name":"n","auth":"token"}`, 400, api.CodeBadJSON, "auth"},
		{"credential no auth", "POST", base, `{"name":"n"}`, 400, api.CodeInvalidValue, "auth"},
		{"credential no auth type", "POST", base, `{"name":"n","auth":{"token":"t"}}`, 400, api.CodeInvalidValue, "auth.type"},
		{"credential unknown auth type", "POST", base, `{"name":"n","auth":{"type":"basic"}}`, 400, api.CodeInvalidValue, "auth.type"},
		{"credential no name", "POST", base, `{"auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":"t"}}`, 400, api.CodeInvalidValue, "name"},
		{"credential wrong token type", "POST", base, `{"name":"n","auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":1}}`, 400, api.CodeBadJSON, "auth.token"},
		{"credential empty token", "POST", base, `{"name":"n","auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":""}}`, 400, api.CodeInvalidValue, "auth.token"},
		{"credential no server", "POST", base, `{"name":"n","auth":{"type":"static_bearer","token":"t"}}`, 400, api.CodeInvalidValue, "auth.mcp_server_url"},
		{"credential http server", "POST", base, `{"name":"n","auth":{"type":"static_bearer","mcp_server_url":"http://m.example","token":"t"}}`, 400, api.CodeInvalidValue, "auth.mcp_server_url"},
		{"credential relative server", "POST", base, `{"name":"n","auth":{"type":"static_bearer","mcp_server_url":"/mcp","token":"t"}}`, 400, api.CodeInvalidValue, "auth.mcp_server_url"},
		{"oauth refresh", "POST", base, `{"name":"n","auth":{"type":"mcp_oauth","mcp_server_url":"https://m.example","access_token":"t","refresh":{"client_id":"c","refresh_token":"r","token_endpoint":"https://t","token_endpoint_auth":{"type":"none"}}}}`, 400, api.CodeNotSupported, "auth.refresh"},
		{"oauth bad expiry", "POST", base, `{"name":"n","auth":{"type":"mcp_oauth","mcp_server_url":"https://m.example","access_token":"t","expires_at":"tomorrow"}}`, 400, api.CodeInvalidValue, "auth.expires_at"},
		{"env reserved name", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"CODEX_HOME","secret_value":"s","networking":{"type":"unrestricted"}}}`, 400, api.CodeInvalidValue, "auth.secret_name"},
		{"env proxy name", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"https_proxy","secret_value":"s","networking":{"type":"unrestricted"}}}`, 400, api.CodeInvalidValue, "auth.secret_name"},
		{"env bad name", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"1KEY","secret_value":"s","networking":{"type":"unrestricted"}}}`, 400, api.CodeInvalidValue, "auth.secret_name"},
		{"env newline value", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"K","secret_value":"a\nb","networking":{"type":"unrestricted"}}}`, 400, api.CodeInvalidValue, "auth.secret_value"},
		{"env no networking", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"K","secret_value":"s"}}`, 400, api.CodeInvalidValue, "auth.networking"},
		{"env bad networking type", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"K","secret_value":"s","networking":{"type":"open"}}}`, 400, api.CodeInvalidValue, "auth.networking.type"},
		{"env host with port", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"K","secret_value":"s","networking":{"type":"limited","allowed_hosts":["a.example:443"]}}}`, 400, api.CodeInvalidValue, "auth.networking.allowed_hosts"},
		{"env wildcard host", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"K","secret_value":"s","networking":{"type":"limited","allowed_hosts":["*.example"]}}}`, 400, api.CodeInvalidValue, "auth.networking.allowed_hosts"},
		{"env duplicate hosts", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"K","secret_value":"s","networking":{"type":"limited","allowed_hosts":["a.example","A.example"]}}}`, 400, api.CodeInvalidValue, "auth.networking.allowed_hosts"},
		{"env no hosts", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"K","secret_value":"s","networking":{"type":"limited","allowed_hosts":[]}}}`, 400, api.CodeInvalidValue, "auth.networking.allowed_hosts"},
		{"env ipv6 host", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"K","secret_value":"s","networking":{"type":"limited","allowed_hosts":["::1"]}}}`, 400, api.CodeInvalidValue, "auth.networking.allowed_hosts"},
		{"env unknown networking member", "POST", base, `{"name":"n","auth":{"type":"environment_variable","secret_name":"K","secret_value":"s","networking":{"type":"unrestricted","ports":[443]}}}`, 400, api.CodeUnknownField, "auth.networking.ports"},
		{"credential metadata pairs", "POST", base, `{"name":"n","metadata":` + string(manyJSON) + `,"auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":"t"}}`, 400, api.CodeInvalidValue, "metadata"},
		{"credential body too large", "POST", base, big, 413, api.CodeBodyTooLarge, ""},

		{"retrieve unknown credential", "GET", base + "/cred_nope", "", 404, api.CodeUnknownCredential, "credential_id"},
		{"retrieve through another vault", "GET", "/v1/vaults/" + other + "/credentials/" + cid, "", 404, api.CodeUnknownCredential, "credential_id"},
		{"retrieve in unknown vault", "GET", "/v1/vaults/vault_nope/credentials/" + cid, "", 404, api.CodeUnknownVault, "vault_id"},
		{"rotate other method", "POST", base + "/" + cid, `{"auth":{"type":"mcp_oauth","access_token":"t"}}`, 400, api.CodeInvalidValue, "auth.type"},
		{"rotate without token", "POST", base + "/" + cid, `{"auth":{"type":"static_bearer"}}`, 400, api.CodeInvalidValue, "auth.token"},
		{"rotate server url", "POST", base + "/" + cid, `{"auth":{"type":"static_bearer","token":"t","mcp_server_url":"https://x"}}`, 400, api.CodeUnknownField, "auth.mcp_server_url"},
		{"rename a credential", "POST", base + "/" + cid, `{"name":"other"}`, 400, api.CodeUnknownField, "name"},
		{"update bad metadata", "POST", base + "/" + cid, `{"metadata":{"k":1}}`, 400, api.CodeBadJSON, "metadata"},
		{"update unknown credential", "POST", base + "/cred_nope", `{"metadata":{}}`, 404, api.CodeUnknownCredential, "credential_id"},
		{"update through another vault", "POST", "/v1/vaults/" + other + "/credentials/" + cid, `{"metadata":{}}`, 404, api.CodeUnknownCredential, "credential_id"},
		{"delete unknown credential", "DELETE", base + "/cred_nope", "", 404, api.CodeUnknownCredential, "credential_id"},
		{"delete through another vault", "DELETE", "/v1/vaults/" + other + "/credentials/" + cid, "", 404, api.CodeUnknownCredential, "credential_id"},
		{"list credentials of unknown vault", "GET", "/v1/vaults/vault_nope/credentials", "", 404, api.CodeUnknownVault, "vault_id"},
		{"list credentials bad cursor", "GET", base + "?after=cred_nope", "", 400, api.CodeBadCursor, "after"},
		{"list credentials bad limit", "GET", base + "?limit=101", "", 400, api.CodeBadLimit, "limit"},
	} {
		st, body := v.v1(c.method, c.path, c.body)
		d := v1Err(t, body)
		if st != c.st || code(d) != c.code || param(d) != c.param || d.Message == "" {
			t.Errorf("%s: %d %s, want %d %s param %q", c.name, st, body, c.st, c.code, c.param)
		}
		v.noSecret(c.name, body)
	}
	if after := v.records(); after != before {
		t.Fatalf("refused calls changed the records:\n%s\n%s", before, after)
	}
	v.noSecret("log", v.logs.String())
}

// TestCredentialRoutesWithoutVaultKey: without a vault key every
// credential route is 503 vault_key_unconfigured (final: X-Should-Retry
// false) and writes nothing; the vaults themselves still work.
func TestCredentialRoutesWithoutVaultKey(t *testing.T) {
	v := newVaultEnv(t, nil)
	vid := field(t, v.must("POST", "/v1/vaults", `{"name":"v"}`), "id")
	before := v.records()
	base := "/v1/vaults/" + vid + "/credentials"
	for _, c := range []struct{ method, path, body string }{
		{"POST", base, `{"name":"n","auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":"` + secretBearer + `"}}`},
		{"GET", base, ""},
		{"GET", base + "/cred_x", ""},
		{"POST", base + "/cred_x", `{"metadata":{}}`},
		{"DELETE", base + "/cred_x", ""},
	} {
		req, _ := newV1Request(v.env, c.method, c.path, c.body)
		resp, err := v.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		d := expectV1(t, c.method+" "+c.path, resp.StatusCode, buf.String(), 503, api.TypeServer, api.CodeVaultKeyUnconfigured)
		if !strings.Contains(d.Message, "-vault-key") || resp.Header.Get("X-Should-Retry") != "false" {
			t.Fatalf("%s %s: %s (X-Should-Retry %q)", c.method, c.path, buf.String(), resp.Header.Get("X-Should-Retry"))
		}
	}
	if after := v.records(); after != before {
		t.Fatalf("refused credential calls changed the records:\n%s\n%s", before, after)
	}
	if _, err := v.a.CredentialSecret(context.Background(), vid, "cred_x"); !errors.Is(err, api.ErrVaultKeyUnconfigured) {
		t.Fatalf("lookup without a key: %v", err)
	}
	if _, err := v.a.StoreProviderKey(context.Background(), "agent_1", secretEnv); err == nil {
		t.Fatal("a provider key was stored without a vault key")
	}
}

// TestVaultKeyMismatch: a secret sealed under one key does not open under
// another; the lookup names the mismatch.
func TestVaultKeyMismatch(t *testing.T) {
	v := newVaultEnv(t, testVaultKey(t, 1))
	vid := field(t, v.must("POST", "/v1/vaults", `{}`), "id")
	cid := field(t, v.must("POST", "/v1/vaults/"+vid+"/credentials", `{"name":"c","auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":"`+secretBearer+`"}}`), "id")
	other := api.NewVaults(v.st, testVaultKey(t, 2))
	if _, err := other.CredentialSecret(context.Background(), vid, cid); !errors.Is(err, api.ErrVaultKeyMismatch) {
		t.Fatalf("open under another key: %v", err)
	}
	if s, err := v.a.CredentialSecret(context.Background(), vid, cid); err != nil || s.Reveal() != secretBearer {
		t.Fatalf("open under its key: %v", err)
	}
}

func TestProviderKeys(t *testing.T) {
	res := api.NewMemoryResources()
	vs := api.NewVaults(res, testVaultKey(t, 3))
	ctx := context.Background()
	ref, err := vs.StoreProviderKey(ctx, "agent_1", secretEnv)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := vs.ProviderKey(ctx, ref); err != nil || s.Reveal() != secretEnv {
		t.Fatalf("provider key: %v", err)
	}
	if strings.Contains(snapshot(t, res, "provider_key"), secretEnv) {
		t.Fatal("the provider key is stored in clear")
	}
	if _, err := api.NewVaults(res, testVaultKey(t, 4)).ProviderKey(ctx, ref); !errors.Is(err, api.ErrVaultKeyMismatch) {
		t.Fatalf("another key: %v", err)
	}
	if err := vs.DeleteProviderKey(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := vs.ProviderKey(ctx, ref); err == nil {
		t.Fatal("a deleted provider key opened")
	}
}

func TestSecretNeverPrints(t *testing.T) {
	res := api.NewMemoryResources()
	vs := api.NewVaults(res, testVaultKey(t, 3))
	ref, _ := vs.StoreProviderKey(context.Background(), "a", secretEnv)
	s, err := vs.ProviderKey(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("resolved", "secret", s, "wrapped", struct{ S api.Secret }{s})
	j, _ := json.Marshal(map[string]any{"s": s})
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s", s, s, s, s), string(j), logs.String()} {
		if strings.Contains(out, secretEnv) || !strings.Contains(out, "[redacted]") {
			t.Fatalf("a Secret printed: %s", out)
		}
	}
}

func TestLoadVaultKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", strings.Repeat("ab", 32)+"\n")
	k, err := api.LoadVaultKey(good)
	if err != nil || k == nil || k.ID() == "" {
		t.Fatalf("good key: %v", err)
	}
	if k2, _ := api.LoadVaultKey(write("same", "  "+strings.Repeat("AB", 32))); k2.ID() != k.ID() {
		t.Fatal("the same key has another ID")
	}
	for _, c := range []struct {
		name, path string
		want       error
	}{
		{"missing", filepath.Join(dir, "nope"), api.ErrVaultKeyMissing},
		{"a directory", dir, api.ErrVaultKeyUnreadable},
		{"empty", write("empty", ""), api.ErrVaultKeyShort},
		{"short", write("short", strings.Repeat("ab", 16)), api.ErrVaultKeyShort},
		{"long", write("long", strings.Repeat("ab", 33)), api.ErrVaultKeyFormat},
		{"not hex", write("nothex", strings.Repeat("zz", 32)), api.ErrVaultKeyFormat},
		{"raw bytes", write("raw", strings.Repeat("\x01", 32)), api.ErrVaultKeyFormat},
	} {
		if k, err := api.LoadVaultKey(c.path); !errors.Is(err, c.want) || k != nil {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		} else if !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: %v does not name the file", c.name, err)
		}
	}
}

// TestFrameSecretsSubstitutesOnTheWireOnly: in an execution_prepare, an
// MCP bearer token that names a credential becomes its secret in the
// returned frame only; the frame given (the machine's) keeps the
// reference; literal tokens and other frames pass unchanged; an unknown
// reference or a missing vault key is an error naming no secret.
func TestFrameSecretsSubstitutesOnTheWireOnly(t *testing.T) {
	v := newVaultEnv(t, testVaultKey(t, 8))
	ctx := context.Background()
	vid := field(t, v.must("POST", "/v1/vaults", `{}`), "id")
	other := field(t, v.must("POST", "/v1/vaults", `{}`), "id")
	cid := field(t, v.must("POST", "/v1/vaults/"+vid+"/credentials", `{"name":"c","auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":"`+secretBearer+`"}}`), "id")
	if !api.IsCredentialRef(cid) || api.IsCredentialRef("tok-literal") || api.IsCredentialRef(cid+"0") {
		t.Fatalf("IsCredentialRef(%q)", cid)
	}
	servers := []wire.MCPHTTPServer{{ServerLabel: "ref", ServerURL: "https://m.example", BearerToken: cid},
		{ServerLabel: "literal", ServerURL: "https://l.example", BearerToken: "tok-literal"}, {ServerLabel: "none", ServerURL: "https://n.example"}}
	in := wire.Frame{ID: "p1", Payload: wire.ExecutionPrepare{SessionID: "s-1", Configuration: wire.ExecutionConfiguration{MCPHTTPServers: &servers}}}
	out, err := v.a.FrameSecrets(in)
	if err != nil {
		t.Fatal(err)
	}
	got := *out.Payload.(wire.ExecutionPrepare).Configuration.MCPHTTPServers
	if got[0].BearerToken != secretBearer || got[1].BearerToken != "tok-literal" || got[2].BearerToken != "" || out.ID != "p1" {
		t.Fatalf("prepared servers %+v", got)
	}
	if servers[0].BearerToken != cid {
		t.Fatal("the machine's frame was changed")
	}
	hb := wire.Frame{Payload: wire.Heartbeat{TS: 1, DaemonVersion: "v"}}
	if f, err := v.a.FrameSecrets(hb); err != nil || f.Payload.(wire.Heartbeat).DaemonVersion != "v" {
		t.Fatalf("another frame: %+v %v", f, err)
	}
	bad := []wire.MCPHTTPServer{{ServerLabel: "gone", ServerURL: "https://g.example", BearerToken: "cred_000000000000000000000000"}}
	_, err = v.a.FrameSecrets(wire.Frame{Payload: wire.ExecutionPrepare{Configuration: wire.ExecutionConfiguration{MCPHTTPServers: &bad}}})
	if err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("unknown reference: %v", err)
	}
	if _, err := api.NewVaults(v.st, nil).FrameSecrets(in); !errors.Is(err, api.ErrVaultKeyUnconfigured) || strings.Contains(err.Error(), secretBearer) {
		t.Fatalf("without a vault key: %v", err)
	}
	if err := v.a.CredentialInVaults(ctx, "tools[0].credential_id", cid, []string{other, vid}); err != nil {
		t.Fatalf("credential in the Session's vaults: %v", err)
	}
	for _, c := range []struct {
		id     string
		vaults []string
	}{{cid, []string{other}}, {cid, nil}, {"cred_000000000000000000000000", []string{vid}}} {
		err := v.a.CredentialInVaults(ctx, "tools[0].credential_id", c.id, c.vaults)
		if err == nil || !strings.Contains(err.Error(), c.id) {
			t.Fatalf("%s in %v: %v", c.id, c.vaults, err)
		}
	}
}

// TestSessionCreateChecksVaultsAndCredentials: a Session's vault_ids name
// existing Vaults, an MCP tool's credential_id lies in one of them, and an
// environment_id names an existing Environment; each refusal leaves no
// Session, Environment or Vault record behind. An accepted Session keeps
// the reference (never the secret) and records its inline Environment.
func TestSessionCreateChecksVaultsAndCredentials(t *testing.T) {
	v := newVaultEnv(t, testVaultKey(t, 7))
	vid := field(t, v.must("POST", "/v1/vaults", `{"name":"v"}`), "id")
	other := field(t, v.must("POST", "/v1/vaults", `{"name":"w"}`), "id")
	cred := func(vault string) string {
		return field(t, v.must("POST", "/v1/vaults/"+vault+"/credentials",
			`{"name":"c","auth":{"type":"static_bearer","mcp_server_url":"https://m.example","token":"`+secretBearer+`"}}`), "id")
	}
	inVault, outside := cred(vid), cred(other)
	session := func(vaults, credential, environment string) string {
		return `{"agent":{"model":"m","x_agents_core":{"harness":"contract"},"tools":[{"type":"mcp","server_label":"l",` +
			`"transport":{"type":"http","server_url":"https://m.example"},"credential_id":"` + credential + `"}]},` +
			`"environment":` + environment + `,"vault_ids":` + vaults + `}`
	}
	none, self := `{"type":"none"}`, `{"type":"self_hosted","workspace_directory":"/workspace"}`
	eleven := `["` + strings.Repeat(vid+`","`, 10) + vid + `"]`
	durable := func() string {
		return v.records() + snapshot(t, v.st, api.EnvironmentRecordKind) + fmt.Sprint(v.writes())
	}
	before := durable()
	for _, c := range []struct {
		name, body  string
		st          int
		code, param string
	}{
		{"unknown vault", session(`["`+vid+`","vault_nope"]`, inVault, self), 404, api.CodeUnknownVault, "vault_ids"},
		{"too many vaults", session(eleven, inVault, self), 400, api.CodeInvalidValue, "vault_ids"},
		{"credential outside the vaults", session(`["`+vid+`"]`, outside, self), 404, api.CodeUnknownCredential, "agent.tools[0].credential_id"},
		{"credential without vaults", session(`[]`, inVault, self), 404, api.CodeUnknownCredential, "agent.tools[0].credential_id"},
		{"unknown credential", session(`["`+vid+`"]`, "cred_nope", self), 404, api.CodeUnknownCredential, "agent.tools[0].credential_id"},
		{"unknown environment", session(`["`+vid+`"]`, inVault, `{"type":"openai_hosted","environment_id":"env_nope"}`), 404, api.CodeUnknownEnvironment, "environment_id"},
	} {
		st, body := v.v1("POST", "/v1/agents/sessions", c.body)
		d := expectV1(t, c.name, st, body, c.st, api.TypeInvalidRequest, c.code)
		if param(d) != c.param {
			t.Errorf("%s: param %q, want %q (%s)", c.name, param(d), c.param, body)
		}
		v.noSecret(c.name, body)
	}
	if got := durable(); got != before {
		t.Fatalf("refused sessions changed durable state:\n%s\nwant\n%s", got, before)
	}
	if _, body := v.v1("GET", "/v1/agents/sessions", ""); !strings.Contains(body, `"data":[]`) {
		t.Fatalf("sessions after refusals: %s", body)
	}

	out := v.must("POST", "/v1/agents/sessions", session(`["`+vid+`"]`, inVault, self))
	var s api.SessionObject
	if err := json.Unmarshal([]byte(out), &s); err != nil || len(s.VaultIDs) != 1 || s.VaultIDs[0] != vid ||
		!strings.Contains(out, `"credential_id":"`+inVault+`"`) {
		t.Fatalf("session: %v %s", err, out)
	}
	envID := field(t, string(s.Environment), "id")
	if got := v.must("GET", "/v1/agents/environments/"+envID, ""); !strings.Contains(got, `"type":"self_hosted"`) {
		t.Fatalf("the inline environment is not recorded: %s", got)
	}
	v.must("POST", "/v1/agents/sessions", session(`["`+vid+`"]`, inVault, none))
	v.noSecret("database", snapshot(t, v.st, "session"))
}

package api_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
)

// keyStores are the resource stores the key records run on.
func keyStores(t *testing.T) map[string]api.ResourceStore {
	dir := t.TempDir()
	st, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return map[string]api.ResourceStore{"memory": api.NewMemoryResources(), "sqlite": st}
}

// snapshot is every key record's document, to show a refused call wrote
// nothing.
func snapshot(t *testing.T, res api.ResourceStore, kind string) string {
	t.Helper()
	page, err := res.ListResources(context.Background(), store.ResourceQuery{Kind: kind, Limit: store.ResourceLimitMax})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, it := range page.Items {
		b.WriteString(it.ID + "=" + string(it.Doc) + "\n")
	}
	return b.String()
}

func TestKeysIssueVerifyRevoke(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	for name, res := range keyStores(t) {
		t.Run(name, func(t *testing.T) {
			keys := api.NewKeys(res)
			secret, key, err := keys.Add(ctx, "ci", now)
			if err != nil || !strings.HasPrefix(secret, api.KeySecretPrefix) || len(secret) < 40 || key.Name != "ci" || key.Revoked() {
				t.Fatalf("add: %q %+v %v", secret, key, err)
			}
			other, key2, err := keys.Add(ctx, "ci", now) // names need not be unique
			if err != nil || other == secret || key2.ID == key.ID {
				t.Fatalf("second add: %v, same secret %v, same ID %v", err, other == secret, key2.ID == key.ID)
			}
			if id, ok, err := keys.VerifyKey(ctx, secret); id != key.ID || !ok || err != nil {
				t.Fatalf("verify: %q %v %v", id, ok, err)
			}
			for _, bad := range []string{"", secret[:len(secret)-1], secret + "x", strings.TrimPrefix(secret, api.KeySecretPrefix), "sk-" + secret} {
				if id, ok, err := keys.VerifyKey(ctx, bad); id != "" || ok || err != nil {
					t.Fatalf("verify %q: %q %v %v", bad, id, ok, err)
				}
			}
			if err := keys.Revoke(ctx, key.ID, now.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if id, ok, err := keys.VerifyKey(ctx, secret); ok || err != nil || id != "" {
				t.Fatalf("revoked key verified: %q %v %v", id, ok, err)
			}
			if _, ok, _ := keys.VerifyKey(ctx, other); !ok {
				t.Fatal("revoking one key revoked another")
			}
			before := snapshot(t, res, api.KeyKind)
			if err := keys.Revoke(ctx, key.ID, now.Add(2*time.Hour)); !errors.Is(err, api.ErrKeyRevoked) {
				t.Fatalf("second revoke: %v", err)
			}
			if err := keys.Revoke(ctx, "key_000000000000000000000000", now); !errors.Is(err, api.ErrUnknownKey) {
				t.Fatalf("revoke unknown: %v", err)
			}
			if err := keys.Revoke(ctx, "", now); !errors.Is(err, api.ErrUnknownKey) {
				t.Fatalf("revoke empty: %v", err)
			}
			for _, n := range []string{"", "  ", "a\nb", "\x7f", strings.Repeat("n", api.KeyNameBytesMax+1), "\xff"} {
				if s, _, err := keys.Add(ctx, n, now); !errors.Is(err, api.ErrInvalidKeyName) || s != "" {
					t.Fatalf("add %q: %q %v", n, s, err)
				}
			}
			if after := snapshot(t, res, api.KeyKind); after != before {
				t.Fatalf("refused calls changed the records:\n%s\n%s", before, after)
			}
			list, err := keys.List(ctx)
			if err != nil || len(list) != 2 || list[0].ID != key.ID || !list[0].RevokedAt.Equal(now.Add(time.Hour)) || list[1].Revoked() {
				t.Fatalf("list: %+v %v", list, err)
			}
			if strings.Contains(before, secret) || strings.Contains(before, other) {
				t.Fatal("a key record holds its secret")
			}
		})
	}
}

// TestKeysStoredHashedOnDisk: the SQLite file holds no issued secret.
func TestKeysStoredHashedOnDisk(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	secret, _, err := api.NewKeys(st).Add(context.Background(), "disk", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	b, err := os.ReadFile(filepath.Join(dir, sqlitestore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) || strings.Contains(string(b), strings.TrimPrefix(secret, api.KeySecretPrefix)) {
		t.Fatal("the key secret is stored in clear")
	}
}

// TestV1AcceptsIssuedKeysOnly: over HTTP, an issued key opens /v1, a
// revoked one is 401 invalid_api_key from the next request on, and the
// operator token opens no /v1 route while an API key opens no operator
// route.
func TestV1AcceptsIssuedKeysOnly(t *testing.T) {
	res := api.NewMemoryResources()
	keys := api.NewKeys(res)
	e := newEnvWith(t, api.Options{OperatorToken: token, Keys: keys, Resources: res})
	secret, key, err := keys.Add(context.Background(), "http", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	st, body := e.v1("GET", "/v1/nothing", "", "Authorization", "Bearer "+secret)
	expectV1(t, "issued key", st, body, 404, api.TypeInvalidRequest, api.CodeUnknownRoute)
	st, body = e.v1("GET", "/v1/nothing", "", "Authorization", "Bearer "+token)
	expectV1(t, "operator token on /v1", st, body, 401, api.TypeAuthentication, api.CodeInvalidAPIKey)
	if st, body, _ := e.do("GET", "/core/v1/devices", "", "Authorization", "Bearer "+secret); st != 401 {
		t.Fatalf("API key on /core/v1: %d %s", st, body)
	}
	if err := keys.Revoke(context.Background(), key.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, res, api.VaultKind)
	for _, r := range api.Routes() {
		if !strings.HasPrefix(r.Path, api.V1Prefix+"/") {
			continue
		}
		path := strings.NewReplacer("{vault}", "vault_x", "{credential}", "cred_x", "{agent}", "agent_x").Replace(r.Path)
		st, body = e.v1(r.Method, path, `{"name":"v"}`, "Authorization", "Bearer "+secret)
		expectV1(t, "revoked key on "+r.Method+" "+r.Path, st, body, 401, api.TypeAuthentication, api.CodeInvalidAPIKey)
		if strings.Contains(body, secret) {
			t.Fatalf("the refusal echoes the key: %s", body)
		}
	}
	if after := snapshot(t, res, api.VaultKind); after != before {
		t.Fatalf("a revoked key wrote: %s", after)
	}
}

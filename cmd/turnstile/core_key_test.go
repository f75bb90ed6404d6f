package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
)

func cliKey(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"core", "key"}, append(args, storeFlag(dir), dir)...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// keyIDFrom reads the key ID from add's stderr line.
func keyIDFrom(t *testing.T, errOut string) string {
	t.Helper()
	_, rest, ok := strings.Cut(errOut, "API key ")
	id, _, _ := strings.Cut(rest, " ")
	if !ok || !strings.HasPrefix(id, "key_") {
		t.Fatalf("no key ID in %q", errOut)
	}
	return id
}

func TestKeyCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	code, out, errOut := cliKey(t, dir, "add", "ci")
	secret := strings.TrimSpace(out)
	if code != exitOK || !strings.HasPrefix(secret, api.KeySecretPrefix) || strings.Count(out, "\n") != 1 ||
		!strings.Contains(errOut, "created a new store") {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	if strings.Contains(errOut, secret) {
		t.Fatal("the secret is printed twice")
	}
	id := keyIDFrom(t, errOut)
	var o, e strings.Builder // flags may follow the name
	if code := run([]string{"core", "key", "add", "deploy", "-data", dir}, &o, &e); code != exitOK || strings.Contains(e.String(), "created") {
		t.Fatalf("second add: %d %s", code, e.String())
	}
	second := strings.TrimSpace(o.String())
	id2 := keyIDFrom(t, e.String())
	if code, _, errOut := cliKey(t, dir, "revoke", id2); code != exitOK || !strings.Contains(errOut, "revoked") {
		t.Fatalf("revoke: %d %s", code, errOut)
	}
	code, list, _ := cliKey(t, dir, "list")
	if code != exitOK || !strings.Contains(list, id+"  ci      active") || !strings.Contains(list, id2+"  deploy  revoked") ||
		strings.Contains(list, api.KeySecretPrefix) {
		t.Fatalf("list: %d\n%s", code, list)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"revoke", id2}, exitFail, "already revoked"},
		{[]string{"revoke", "key_nobody"}, exitFail, "unknown API key"},
		{[]string{"add", " "}, exitFail, "invalid API key name"},
		{[]string{"add", strings.Repeat("n", 65)}, exitFail, "invalid API key name"},
		{[]string{"add"}, exitUsage, ErrKeyArgs.Error()},
		{[]string{"list", "extra"}, exitUsage, ErrKeyArgs.Error()},
		{[]string{"rotate", id}, exitUsage, ErrKeyArgs.Error()},
		{[]string{"add", "x", "-bogus"}, exitUsage, "bogus"},
	} {
		code, out, errOut := cliKey(t, dir, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("key %v: exit %d (want %d) stdout %q stderr %q (want %q)", c.args, code, c.code, out, errOut, c.want)
		}
	}
	if code, after, _ := cliKey(t, dir, "list"); code != exitOK || after != list {
		t.Fatalf("refused commands changed the keys:\n%s\n%s", list, after)
	}
	if code, _, errOut := run2("core", "key"); code != exitUsage || !strings.Contains(errOut, ErrKeyArgs.Error()) {
		t.Fatalf("key without a verb: %d %s", code, errOut)
	}
	st, err := sqlitestore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := api.NewKeys(st)
	if got, ok, err := keys.VerifyKey(context.Background(), secret); got != id || !ok || err != nil {
		t.Fatalf("the issued key does not verify: %q %v %v", got, ok, err)
	}
	if _, ok, _ := keys.VerifyKey(context.Background(), second); ok {
		t.Fatal("the revoked key verifies")
	}
	st.Close()
	b, _ := os.ReadFile(filepath.Join(dir, sqlitestore.FileName))
	if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(second)) {
		t.Fatal("a key secret is stored in clear")
	}
}

// TestKeyCommandsNeedAStore: list and revoke on a missing or empty data
// directory exit 5 and create nothing.
func TestKeyCommandsNeedAStore(t *testing.T) {
	root := t.TempDir()
	typo := filepath.Join(root, "turnstile-dta")
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{typo, empty} {
		for _, args := range [][]string{{"list"}, {"revoke", "key_x"}} {
			if code, out, errOut := cliKey(t, dir, args...); code != exitNoStore || out != "" || !strings.Contains(errOut, ErrNoStore.Error()) {
				t.Errorf("key %v -data %s: %d %q %q", args, dir, code, out, errOut)
			}
		}
	}
	if code, out, errOut := cliKey(t, typo, "add", "\x01"); code != exitFail || out != "" || !strings.Contains(errOut, "invalid API key name") {
		t.Errorf("add with a bad name: %d %q %q", code, out, errOut)
	}
	if _, err := os.Stat(typo); !os.IsNotExist(err) {
		t.Fatalf("a refused command created the data directory: %v", err)
	}
	if names, _ := os.ReadDir(empty); len(names) != 0 {
		t.Fatalf("a refused command wrote into the empty directory: %v", names)
	}
}

func run2(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestLogRedactsAPIKeys: an API key secret in a log message or attribute
// is scrubbed to its prefix.
func TestLogRedactsAPIKeys(t *testing.T) {
	var buf bytes.Buffer
	log := newLogger(&buf, 0, &redactor{})
	secret := api.KeySecretPrefix + "AbC-123_xyz"
	log.Info("refused "+secret, "header", "Bearer "+secret, "key", secret)
	if strings.Contains(buf.String(), "AbC-123_xyz") || !strings.Contains(buf.String(), api.KeySecretPrefix+"[redacted]") {
		t.Fatalf("log line: %s", buf.String())
	}
}

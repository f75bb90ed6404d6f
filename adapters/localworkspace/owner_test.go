package localworkspace

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/wire"
)

// fixture builds a workspace beside a secret outside it:
//
//	outside/secret.txt
//	ws/a.txt  ws/sub/b.txt  ws/link-in -> a.txt  ws/link-out -> ../outside/secret.txt
//	ws/abs-out -> /…/outside  ws/dir-out -> ../outside
func fixture(t *testing.T) (*Owner, string) {
	t.Helper()
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "sub"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(out, "secret.txt"), "secret")
	write(filepath.Join(ws, "a.txt"), "hello world")
	write(filepath.Join(ws, "sub", "b.txt"), "bee")
	for link, target := range map[string]string{"link-in": "a.txt", "link-out": "../outside/secret.txt",
		"abs-out": out, "dir-out": "../outside"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	o, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o, ws
}

func read(t *testing.T, o *Owner, p string, max int) wire.WorkspaceReadResult {
	t.Helper()
	req := wire.WorkspaceRead{Handle: "h", EnvironmentID: "e", Path: p, MaxBytes: max}
	res, err := o.ReadWorkspaceFile(context.Background(), req)
	if err != nil {
		t.Fatalf("read %q: %v", p, err)
	}
	if err := res.ValidateAgainst(req); err != nil {
		t.Fatalf("read %q: result breaks the wire rules: %v", p, err)
	}
	return res
}

func list(t *testing.T, o *Owner, p string, max int) wire.WorkspaceReadResult {
	t.Helper()
	req := wire.WorkspaceRead{Handle: "h", EnvironmentID: "e", Path: p, Operation: wire.ReadOperationDirectory, MaxEntries: max}
	res, err := o.ListWorkspaceDirectory(context.Background(), req)
	if err != nil {
		t.Fatalf("list %q: %v", p, err)
	}
	if err := res.ValidateAgainst(req); err != nil {
		t.Fatalf("list %q: result breaks the wire rules: %v", p, err)
	}
	return res
}

func TestReadFileBytesAndTruncation(t *testing.T) {
	o, _ := fixture(t)
	res := read(t, o, "a.txt", 64)
	if res.Outcome != wire.OutcomeCompleted || string(res.Data) != "hello world" || res.Truncated || !res.CloseAcknowledged {
		t.Fatalf("full read: %+v", res)
	}
	res = read(t, o, "a.txt", 5)
	if string(res.Data) != "hello" || !res.Truncated {
		t.Fatalf("truncated read: %+v", res)
	}
	res = read(t, o, "a.txt", 11)
	if string(res.Data) != "hello world" || res.Truncated {
		t.Fatalf("exact read is not truncated: %+v", res)
	}
	if res := read(t, o, "sub/b.txt", 3); string(res.Data) != "bee" {
		t.Fatalf("nested read: %+v", res)
	}
}

func TestReadRefusesEscapesAndNonFiles(t *testing.T) {
	o, _ := fixture(t)
	cases := map[string]string{
		"missing.txt":           wire.ReadNotFound,
		"../outside/secret.txt": wire.ReadInvalidRequest,
		"sub/../../outside":     wire.ReadInvalidRequest,
		"/etc/passwd":           wire.ReadInvalidRequest,
		"":                      wire.ReadInvalidRequest,
		"link-in":               wire.ReadPermissionDenied,
		"link-out":              wire.ReadPermissionDenied,
		"dir-out/secret.txt":    wire.ReadPermissionDenied,
		"abs-out/secret.txt":    wire.ReadPermissionDenied,
		"sub":                   wire.ReadInvalidRequest,
	}
	for p, code := range cases {
		res := read(t, o, p, 64)
		if res.Outcome != wire.OutcomeRejected || res.ErrorCode != code || len(res.Data) != 0 {
			t.Errorf("read %q: got %+v, want rejected %s", p, res, code)
		}
	}
}

func TestListDirectory(t *testing.T) {
	o, _ := fixture(t)
	res := list(t, o, "", 16)
	var names []string
	for _, e := range res.Directory.Entries {
		names = append(names, e.Name+":"+e.Kind)
	}
	want := "a.txt:file abs-out:symlink dir-out:symlink link-in:symlink link-out:symlink sub:directory"
	if got := strings.Join(names, " "); got != want || res.Directory.Truncated {
		t.Fatalf("root listing %q truncated=%v, want %q", got, res.Directory.Truncated, want)
	}
	if s := res.Directory.Entries[0].SizeBytes; s == nil || *s != 11 {
		t.Fatalf("file size %v", s)
	}
	res = list(t, o, "", 2)
	if len(res.Directory.Entries) != 2 || !res.Directory.Truncated {
		t.Fatalf("limited listing: %+v", res.Directory)
	}
	for _, p := range []string{"a.txt", "missing", "dir-out", "link-in"} {
		if res := list(t, o, p, 4); res.ErrorCode != wire.ReadNotDirectory {
			t.Errorf("list %q: %+v, want not_directory", p, res)
		}
	}
	for _, p := range []string{"..", "../outside", "sub/.."} {
		if res := list(t, o, p, 4); res.ErrorCode != wire.ReadInvalidRequest {
			t.Errorf("list %q: %+v, want invalid_request", p, res)
		}
	}
	if res := list(t, o, "dir-out/", 4); res.Outcome != wire.OutcomeRejected {
		t.Errorf("list through an escaping link: %+v", res)
	}
}

func file(p, body string) agent.WorkspaceFile {
	sum := sha256.Sum256([]byte(body))
	return agent.WorkspaceFile{Path: p, SizeBytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:]), Data: strings.NewReader(body)}
}

func reason(err error) (string, bool) {
	var r *agent.WriteRejection
	if errors.As(err, &r) {
		return r.Reason, true
	}
	return "", false
}

func TestWriteInstallsCheckedFiles(t *testing.T) {
	o, ws := fixture(t)
	ctx := context.Background()
	if err := o.WriteWorkspaceFile(ctx, file("new/deep/c.txt", "sea")); err != nil {
		t.Fatal(err)
	}
	if err := o.WriteWorkspaceFile(ctx, file("a.txt", "replaced")); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"new/deep/c.txt": "sea", "a.txt": "replaced"} {
		if b, _ := os.ReadFile(filepath.Join(ws, p)); string(b) != want {
			t.Fatalf("%s holds %q, want %q", p, b, want)
		}
	}
	bad := file("a.txt", "other")
	bad.Data = strings.NewReader("tampered")
	if _, ok := reason(o.WriteWorkspaceFile(ctx, bad)); !ok {
		t.Fatal("a body that does not match its digest was not rejected")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "replaced" {
		t.Fatalf("a rejected write changed the file: %q", b)
	}
	ents, _ := os.ReadDir(ws)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".turnstile-write-") {
			t.Fatalf("staging file %s left behind", e.Name())
		}
	}
}

func TestWriteRefusesUnsafeDestinations(t *testing.T) {
	o, base := fixture(t)
	cases := map[string]string{
		"sub":                agent.WriteReasonDestinationDirectory,
		"link-in":            agent.WriteReasonUnsafeDestination,
		"link-out":           agent.WriteReasonUnsafeDestination,
		"dir-out/evil.txt":   agent.WriteReasonUnsafeDestination,
		"abs-out/evil.txt":   agent.WriteReasonUnsafeDestination,
		"../outside/evil":    "",
		"sub/../../evil.txt": "",
	}
	for p, want := range cases {
		got, ok := reason(o.WriteWorkspaceFile(context.Background(), file(p, "x")))
		if !ok || got != want {
			t.Errorf("write %q: reason %q (rejected %v), want %q", p, got, ok, want)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(base), "outside", "evil.txt")); !os.IsNotExist(err) {
		t.Fatal("a write escaped the workspace")
	}
	if b, _ := os.ReadFile(filepath.Join(filepath.Dir(base), "outside", "secret.txt")); string(b) != "secret" {
		t.Fatal("the outside file changed")
	}
}

func TestExportTarStream(t *testing.T) {
	o, _ := fixture(t)
	var buf bytes.Buffer
	n, err := o.ExportWorkspace(context.Background(), &buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("export: n=%d len=%d err=%v", n, buf.Len(), err)
	}
	tr := tar.NewReader(&buf)
	got := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		switch h.Typeflag {
		case tar.TypeSymlink:
			got[h.Name] = "->" + h.Linkname
		case tar.TypeDir:
			got[h.Name] = "dir"
		default:
			got[h.Name] = string(body)
		}
	}
	want := map[string]string{"a.txt": "hello world", "sub/": "dir", "sub/b.txt": "bee", "link-in": "->a.txt",
		"link-out": "->../outside/secret.txt", "dir-out": "->../outside"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("archive %s = %q, want %q", k, got[k], v)
		}
	}
	for k, v := range got {
		if strings.Contains(v, "secret") && !strings.HasPrefix(v, "->") {
			t.Errorf("archive %s carries the outside file", k)
		}
	}
}

func TestClosedOwnerRefuses(t *testing.T) {
	o, _ := fixture(t)
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if res := read(t, o, "a.txt", 4); res.ErrorCode != wire.ReadResourceUnavail {
		t.Fatalf("read after close: %+v", res)
	}
	if err := o.WriteWorkspaceFile(context.Background(), file("z", "z")); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
	if _, err := Open(""); err == nil {
		t.Fatal("an unbound owner opened")
	}
	if _, err := (Preparations{}).Prepare(context.Background(), agent.ExecutorConfig{WorkspaceRoot: filepath.Join(t.TempDir(), "none")}); err == nil {
		t.Fatal("a missing directory prepared")
	}
}

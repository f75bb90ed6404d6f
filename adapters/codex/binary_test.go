package codex

import (
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/internal/testgate"
)

// realBinary returns the pinned Codex binary: $TURNSTILE_CODEX_BIN, else the
// cache scripts/fetch-codex.sh fills (make test runs it first). Under -short
// (make quick, which needs only Go) the real-binary tests are left to make
// test; there a missing binary fails the test: they are never skipped.
func realBinary(t *testing.T) string {
	t.Helper()
	testgate.Long(t) // runs the pinned Codex binary
	path := os.Getenv(EnvBinary)
	if path == "" {
		var err error
		if path, err = CachedBinary(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := CheckBinary(context.Background(), path); err != nil {
		t.Fatalf("%v\nfetch the pinned binary with scripts/fetch-codex.sh (make codex) or set %s", err, EnvBinary)
	}
	return path
}

// The fetch script and the Go constants pin the same version and checksum.
func TestFetchScriptPins(t *testing.T) {
	b, err := os.ReadFile("../../scripts/fetch-codex.sh")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"CODEX_VERSION": Version, "CODEX_SHA256": BinarySHA256} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(b)
		if m == nil || string(m[1]) != want {
			t.Errorf("scripts/fetch-codex.sh %s = %q, want %q", name, m, want)
		}
	}
}

func TestCheckBinaryVersion(t *testing.T) {
	path := realBinary(t)
	got, err := CheckBinary(context.Background(), path)
	if err != nil || got != Version {
		t.Fatalf("CheckBinary = %q, %v", got, err)
	}
	if _, err := CheckBinary(context.Background(), t.TempDir()+"/absent"); err == nil {
		t.Fatal("a missing binary passed the check")
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{"codex-cli 0.171.0\n": "0.171.0", "": "", "x\ny": "x"} {
		if got := parseVersion(in); got != want {
			t.Errorf("parseVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// Discovery: nothing without a binary; an unavailable kind with a
// diagnostic for a binary of another version; the Executor factory only
// for the pinned one. Every capability is decided either way.
func TestDeclarationDiscover(t *testing.T) {
	ctx := context.Background()
	if rt, err := Declaration(Options{}).Discover(ctx, nil, io.Discard); rt != nil || err != nil {
		t.Fatalf("unconfigured: %v, %v", rt, err)
	}
	var diag strings.Builder
	rt, err := Declaration(Options{Binary: "/bin/echo"}).Discover(ctx, nil, &diag)
	if err != nil || rt == nil || rt.Descriptor.Available || rt.Executors != nil || !strings.Contains(diag.String(), "unavailable") {
		t.Fatalf("wrong binary: %+v, %v, %q", rt, err, diag.String())
	}
	if err := rt.Descriptor.Capabilities.Validate(); err != nil {
		t.Fatal(err)
	}
	rt, err = Declaration(Options{Binary: realBinary(t)}).Discover(ctx, nil, io.Discard)
	if err != nil || !rt.Descriptor.Available || rt.Descriptor.Version != Version || rt.Executors == nil {
		t.Fatalf("pinned binary: %+v, %v", rt, err)
	}
	if err := Declaration(Options{}).Validate(); err != nil {
		t.Fatal(err)
	}
}

package openaisdk

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestFetchScriptPins(t *testing.T) {
	b, err := os.ReadFile("../../scripts/fetch-openai-sdk.sh")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"OPENAI_SDK_VERSION": Version, "OPENAI_SDK_SHA256": TarballSHA256} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(b)
		if m == nil || string(m[1]) != want {
			t.Errorf("scripts/fetch-openai-sdk.sh %s = %q, want %q", name, m, want)
		}
	}
	if !regexp.MustCompile(`npm pack --silent "openai@\$OPENAI_SDK_VERSION"`).Match(b) {
		t.Error("scripts/fetch-openai-sdk.sh does not npm pack the openai package")
	}
}

// writePackage lays out modules/openai with a package.json and, when
// stamp is not empty, the fetch stamp.
func writePackage(t *testing.T, name, version, stamp string) string {
	t.Helper()
	modules := t.TempDir()
	pkg := filepath.Join(modules, "openai")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	doc := `{"name": "` + name + `", "version": "` + version + `", "types": "./index.d.ts"}`
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if stamp != "" {
		if err := os.WriteFile(filepath.Join(pkg, stampFile), []byte(stamp+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return modules
}

// A missing package, another version, another package and an unstamped
// tree are refused with their named errors; the pinned one passes.
func TestCheck(t *testing.T) {
	if err := Check(t.TempDir()); !errors.Is(err, ErrMissing) {
		t.Errorf("empty directory: %v, want ErrMissing", err)
	}
	if err := Check(writePackage(t, "openai", "7.59.0", TarballSHA256)); !errors.Is(err, ErrWrongVersion) {
		t.Errorf("another version: %v, want ErrWrongVersion", err)
	}
	if err := Check(writePackage(t, "openai-fork", Version, TarballSHA256)); !errors.Is(err, ErrWrongVersion) {
		t.Errorf("another package: %v, want ErrWrongVersion", err)
	}
	if err := Check(writePackage(t, "openai", Version, "")); !errors.Is(err, ErrWrongVersion) {
		t.Errorf("no stamp: %v, want ErrWrongVersion", err)
	}
	if err := Check(writePackage(t, "openai", Version, "00"+TarballSHA256[2:])); !errors.Is(err, ErrWrongVersion) {
		t.Errorf("another tarball's stamp: %v, want ErrWrongVersion", err)
	}
	if err := Check(writePackage(t, "openai", Version, TarballSHA256)); err != nil {
		t.Errorf("the pinned package: %v", err)
	}
}

func TestCachedModules(t *testing.T) {
	t.Setenv(EnvCache, "/cache/root")
	if got, err := CachedModules(); err != nil || got != "/cache/root/"+Version+"/node_modules" {
		t.Errorf("CachedModules() = %q, %v", got, err)
	}
	t.Setenv(EnvCache, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if got, err := CachedModules(); err != nil || got != "/xdg/turnstile/openai/"+Version+"/node_modules" {
		t.Errorf("CachedModules() = %q, %v", got, err)
	}
}

func TestNodeMajor(t *testing.T) {
	for in, want := range map[string]int{"v20.20.2\n": 20, "v22.1.0": 22, "v18.19.1": 18} {
		if got, ok := nodeMajor(in); !ok || got != want {
			t.Errorf("nodeMajor(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "20.1.0", "vx.1"} {
		if _, ok := nodeMajor(bad); ok {
			t.Errorf("nodeMajor(%q) accepted", bad)
		}
	}
}

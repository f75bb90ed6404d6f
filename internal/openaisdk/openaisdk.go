// Package openaisdk locates the pinned official OpenAI Node SDK (npm
// package openai) that the Agents API acceptance scripts import, and the
// Node runtime that runs them. scripts/fetch-openai-sdk.sh fetches the
// package (npm pack, SHA-256 checked) and unpacks it as
// <cache>/<version>/node_modules/openai.
package openaisdk

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The pinned package. scripts/fetch-openai-sdk.sh repeats these values;
// TestFetchScriptPins keeps them equal.
const (
	// Version is the SDK version whose beta Agents resources Core speaks.
	Version = "7.60.0"
	// NPMPackage is the npm package and version.
	NPMPackage = "openai@" + Version
	// TarballSHA256 is the SHA-256 of the tarball `npm pack` fetches.
	TarballSHA256 = "7506885e23fe43b71e3f818b8e650a63d7b9ea738719a81c7133a4ff415385ac"
)

// Environment variables naming the package and the fetch cache.
const (
	// EnvModules is a node_modules directory holding openai@Version; it
	// overrides the cache.
	EnvModules = "TURNSTILE_OPENAI_SDK_MODULES"
	// EnvCache is the cache root scripts/fetch-openai-sdk.sh writes to.
	EnvCache = "TURNSTILE_OPENAI_SDK_CACHE"
)

// stampFile is the file the fetch script writes into the unpacked package:
// the SHA-256 of the tarball it came from.
const stampFile = ".turnstile-sha256"

// CachedModules is the node_modules directory scripts/fetch-openai-sdk.sh
// fills: $TURNSTILE_OPENAI_SDK_CACHE/<version>/node_modules, by default
// under ~/.cache/turnstile/openai.
func CachedModules() (string, error) {
	root := os.Getenv(EnvCache)
	if root == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			base = filepath.Join(home, ".cache")
		}
		root = filepath.Join(base, "turnstile", "openai")
	}
	return filepath.Join(root, Version, "node_modules"), nil
}

// Errors of the package check.
var (
	ErrMissing      = errors.New("openaisdk: package not found")
	ErrWrongVersion = errors.New("openaisdk: package has another version")
	ErrNoNode       = errors.New("openaisdk: node not found")
)

// Check reads modules/openai/package.json and the fetch stamp: the package
// must be openai at Version, unpacked from the pinned tarball.
func Check(modules string) error {
	pkg := filepath.Join(modules, "openai")
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return fmt.Errorf("%w: %s", ErrMissing, pkg)
	}
	name, version := jsonString(b, "name"), jsonString(b, "version")
	if name != "openai" || version != Version {
		return fmt.Errorf("%w: %s is %s@%s, want %s", ErrWrongVersion, pkg, name, version, NPMPackage)
	}
	stamp, err := os.ReadFile(filepath.Join(pkg, stampFile))
	if err != nil || strings.TrimSpace(string(stamp)) != TarballSHA256 {
		return fmt.Errorf("%w: %s was not unpacked from the pinned tarball (sha256 %s)", ErrWrongVersion, pkg, TarballSHA256)
	}
	return nil
}

// jsonString finds the first top-level `"key": "value"` of a package.json
// without decoding the whole document's types.
func jsonString(b []byte, key string) string {
	s := string(b)
	i := strings.Index(s, `"`+key+`"`)
	if i < 0 {
		return ""
	}
	s = strings.TrimLeft(s[i+len(key)+2:], " \t\r\n:")
	if !strings.HasPrefix(s, `"`) {
		return ""
	}
	s = s[1:]
	j := strings.IndexByte(s, '"')
	if j < 0 {
		return ""
	}
	return s[:j]
}

// Modules returns the node_modules directory holding the pinned SDK
// ($TURNSTILE_OPENAI_SDK_MODULES or the cache `make openai-sdk` fills).
// When it is missing the test fails in CI (CI=true) and is skipped
// elsewhere, naming the command that fetches it.
func Modules(t testing.TB) string {
	t.Helper()
	modules := os.Getenv(EnvModules)
	if modules == "" {
		var err error
		if modules, err = CachedModules(); err != nil {
			t.Fatal(err)
		}
	}
	err := Check(modules)
	if errors.Is(err, ErrMissing) && os.Getenv("CI") != "true" {
		t.Skipf("%v: run make openai-sdk or set %s", err, EnvModules)
	}
	if err != nil {
		t.Fatalf("%v (run make openai-sdk)", err)
	}
	return modules
}

// NodeMajorMin is the oldest Node major version the scripts are checked
// with. The package declares node >= 22, but its client construction, the
// beta Agents calls, the SSE stream and the sessions.stream helper run
// under Node 20: what it uses from Node 22 (Error.isError,
// process.getBuiltinModule, AbortSignal.any) it detects and falls back
// from.
const NodeMajorMin = 20

// Node returns the node binary the acceptance scripts run under. When it
// is missing the test fails in CI (CI=true) and is skipped elsewhere; a
// Node older than NodeMajorMin fails it.
func Node(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "true" {
			t.Skipf("%v: the acceptance scripts run under Node", ErrNoNode)
		}
		t.Fatalf("%v: the acceptance scripts run under Node (.ci/run installs it with npm)", ErrNoNode)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", node, err)
	}
	if major, ok := nodeMajor(string(out)); !ok || major < NodeMajorMin {
		t.Fatalf("%s is Node %s: the acceptance scripts need Node %d or later", node, strings.TrimSpace(string(out)), NodeMajorMin)
	}
	return node
}

// nodeMajor reads the major version of `node --version` ("v20.20.2").
func nodeMajor(version string) (int, bool) {
	v, ok := strings.CutPrefix(strings.TrimSpace(version), "v")
	if !ok {
		return 0, false
	}
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return n, err == nil
}

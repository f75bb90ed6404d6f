package codex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The pinned native source. scripts/fetch-codex.sh repeats these values;
// TestFetchScriptPins keeps them equal.
const (
	// Version is the Codex CLI version the adapter speaks app-server with.
	Version = "0.171.0"
	// NPMPackage is the npm version alias of the Linux x64 build.
	NPMPackage = "@openai/codex@" + Version + "-linux-x64"
	// BinarySHA256 is the SHA-256 of vendor/x86_64-unknown-linux-musl/bin/codex
	// inside that package.
	BinarySHA256 = "b76a027d6b210f9a8da7aaf321dd235c700f0ef7a794d4a5314b9af6c134f0f0"
)

// Environment variables naming the binary and the fetch cache.
const (
	// EnvBinary is the path of a Codex binary (the daemon's -codex-bin).
	EnvBinary = "TURNSTILE_CODEX_BIN"
	// EnvCache is the cache root scripts/fetch-codex.sh writes to.
	EnvCache = "TURNSTILE_CODEX_CACHE"
)

// CachedBinary is where scripts/fetch-codex.sh caches the pinned binary:
// $TURNSTILE_CODEX_CACHE/<version>/codex, by default under
// ~/.cache/turnstile/codex.
func CachedBinary() (string, error) {
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
		root = filepath.Join(base, "turnstile", "codex")
	}
	return filepath.Join(root, Version, "codex"), nil
}

// Errors of the binary check. Both make the kind unavailable; the adapter
// never installs Codex itself.
var (
	ErrBinaryMissing = errors.New("codex: binary not found")
	ErrWrongVersion  = errors.New("codex: binary has another version")
)

// CheckBinary runs `<path> --version` and checks that it reports the
// pinned Version. It returns the version it read.
func CheckBinary(ctx context.Context, path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("%w: no path configured", ErrBinaryMissing)
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%w: %s", ErrBinaryMissing, path)
	}
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+os.TempDir())
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s --version failed: %v", ErrBinaryMissing, path, err)
	}
	got := parseVersion(string(out))
	if got != Version {
		return got, fmt.Errorf("%w: %s reports %q, want %s", ErrWrongVersion, path, got, Version)
	}
	return got, nil
}

// parseVersion reads "codex-cli 0.171.0" (the last field of the first line).
func parseVersion(out string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return ""
	}
	return fields[len(fields)-1]
}

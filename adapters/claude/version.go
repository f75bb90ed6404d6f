package claude

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The pinned native source. scripts/fetch-claude.sh repeats these values;
// TestFetchScriptPins keeps them equal.
const (
	// Version is the Claude Code CLI version the adapter speaks stream-json with.
	Version = "2.1.332"
	// NPMPackage is the npm package of the self-contained Linux x64 build.
	NPMPackage = "@anthropic-ai/claude-code-linux-x64@" + Version
	// BinarySHA256 is the SHA-256 of package/claude inside that package.
	BinarySHA256 = "a2df1f41bb00250992926420d0063f89b127cb81abdd284dbefb80c50ff1d026"
)

// Environment variables naming the binary and the fetch cache.
const (
	// EnvBinary is the path of a Claude Code binary (the daemon's -claude-bin).
	EnvBinary = "TURNSTILE_CLAUDE_BIN"
	// EnvCache is the cache root scripts/fetch-claude.sh writes to.
	EnvCache = "TURNSTILE_CLAUDE_CACHE"
)

// CachedBinary is where scripts/fetch-claude.sh caches the pinned binary:
// $TURNSTILE_CLAUDE_CACHE/<version>/claude, by default under
// ~/.cache/turnstile/claude.
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
		root = filepath.Join(base, "turnstile", "claude")
	}
	return filepath.Join(root, Version, "claude"), nil
}

// Errors of the binary check. Both make the kind unavailable; the adapter
// never installs Claude Code itself.
var (
	ErrBinaryMissing = errors.New("claude: binary not found")
	ErrWrongVersion  = errors.New("claude: binary has another version")
)

// CheckBinary runs `<path> --version` and checks that it reports the
// pinned Version ("2.1.332 (Claude Code)"). It returns the version it read.
func CheckBinary(ctx context.Context, path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("%w: no path configured", ErrBinaryMissing)
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%w: %s", ErrBinaryMissing, path)
	}
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = append(os.Environ(), offlineEnv(0)...)
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

// parseVersion reads "2.1.332 (Claude Code)": the first field of the first
// line, when the line names Claude Code.
func parseVersion(out string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	fields := strings.Fields(line)
	if len(fields) == 0 || !strings.Contains(line, "(Claude Code)") {
		return ""
	}
	return fields[0]
}

// offlineEnv is the environment every CLI process gets: no telemetry, no
// auto-update, no non-essential traffic, and maxRetries API retries (0
// leaves the CLI's default).
func offlineEnv(maxRetries int) []string {
	env := []string{
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
	}
	if maxRetries > 0 {
		env = append(env, fmt.Sprintf("CLAUDE_CODE_MAX_RETRIES=%d", maxRetries))
	}
	return env
}

package acp

import (
	"os"
	"path/filepath"
)

// The pinned real ACP agent the tests qualify the adapter against.
// scripts/fetch-acp.sh repeats these values; TestFetchScriptPins keeps
// them equal.
const (
	// AgentVersion is the version of @agentclientprotocol/claude-agent-acp.
	AgentVersion = "0.101.0"
	// AgentPackage is its npm package.
	AgentPackage = "@agentclientprotocol/claude-agent-acp"
	// AgentEntry is its entry point inside the installed tree (run with node).
	AgentEntry = "node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js"
)

// Environment variables naming the agent command and the fetch cache.
const (
	// EnvCommand is the ACP agent's command line (the daemon's -acp-cmd).
	EnvCommand = "TURNSTILE_ACP_CMD"
	// EnvCache is the cache root scripts/fetch-acp.sh writes to.
	EnvCache = "TURNSTILE_ACP_CACHE"
)

// CachedAgent is where scripts/fetch-acp.sh installs the pinned agent's
// entry point: $TURNSTILE_ACP_CACHE/<version>/agent/<AgentEntry>, by
// default under ~/.cache/turnstile/acp.
func CachedAgent() (string, error) {
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
		root = filepath.Join(base, "turnstile", "acp")
	}
	return filepath.Join(root, AgentVersion, "agent", AgentEntry), nil
}

#!/usr/bin/env bash
# Fetch the pinned ACP agent @agentclientprotocol/claude-agent-acp and each
# package it loads at run time with `npm pack`, verify every tarball's
# SHA-256, cache the tarballs outside the tree and install them offline
# (extracted into a node_modules tree, no registry at install time, no
# install scripts). The Claude Code binary the agent drives comes from
# scripts/fetch-claude.sh. Prints the agent's entry point (run it with
# node). The version pins are repeated in adapters/acp/version.go; a test
# keeps the two equal.
#
# The agent declares the packages below as its dependency tree (checked
# with `npm view`): the ACP SDK, the Claude Agent SDK, diff and zod. The
# Claude Agent SDK's peer dependencies (the Anthropic and MCP SDKs) and its
# per-platform optional binaries are not loaded when CLAUDE_CODE_EXECUTABLE
# names the binary, and are not fetched.
#
#   TURNSTILE_ACP_CACHE  cache root (default ~/.cache/turnstile/acp)
set -euo pipefail

ACP_VERSION=0.101.0
ACP_PACKAGE=@agentclientprotocol/claude-agent-acp
ACP_ENTRY=node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js

# install path, package@version, tarball SHA-256
PINS=(
  "node_modules/@agentclientprotocol/claude-agent-acp @agentclientprotocol/claude-agent-acp@0.101.0 7f52fb5f7447f73a503ab9fc4fc886da3cc8658d4693954f086a617f57eb3abb"
  "node_modules/@agentclientprotocol/sdk @agentclientprotocol/sdk@2.4.0 87acc66d5824f88d8913702f85cf74c997526bbffb06fce15a9f0d637566ca8d"
  "node_modules/@anthropic-ai/claude-agent-sdk @anthropic-ai/claude-agent-sdk@0.3.318 7a79b4aa90dec557caf4638a8403e21649c371c4f6d0113cdd44a6da6b27836e"
  "node_modules/diff diff@9.0.0 b898bf23c95594607576e25ddd4013f1d51ed0e862aaf0732815830c87b3b58f"
  "node_modules/zod zod@4.6.7 84efd155bed93270286e793fc951be270b536cbd5b0eeb111f0fa3967201d698"
)

root="${TURNSTILE_ACP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/turnstile/acp}"
dir="$root/$ACP_VERSION"
tarballs="$dir/tarballs"
tree="$dir/agent"
stamp="$tree/.installed"

# tarball names the file `npm pack` writes for package@version.
tarball() {
  local spec="$1" name version
  name="${spec%@*}"
  version="${spec##*@}"
  name="${name#@}"
  echo "${name//\//-}-$version.tgz"
}

pinsum() { printf '%s\n' "${PINS[@]}" | sha256sum | cut -d' ' -f1; }

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(pinsum)" ] && [ -f "$tree/$ACP_ENTRY" ]; then
  echo "$tree/$ACP_ENTRY"
  exit 0
fi
mkdir -p "$tarballs"
for pin in "${PINS[@]}"; do
  read -r _ spec sum <<<"$pin"
  file="$tarballs/$(tarball "$spec")"
  if [ -f "$file" ] && [ "$(sha256sum "$file" | cut -d' ' -f1)" = "$sum" ]; then
    continue
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "fetch-acp: npm is required to fetch $spec" >&2
    exit 1
  fi
  tmp="$(mktemp -d "$tarballs/.fetch.XXXXXX")"
  echo "fetch-acp: npm pack $spec" >&2
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null)
  got="$(sha256sum "$tmp/$(tarball "$spec")" | cut -d' ' -f1)"
  if [ "$got" != "$sum" ]; then
    rm -rf "$tmp"
    echo "fetch-acp: checksum mismatch for $spec: got $got, want $sum" >&2
    exit 1
  fi
  mv -f "$tmp/$(tarball "$spec")" "$file"
  rm -rf "$tmp"
done

# Install offline: every verified tarball is extracted at its path.
new="$(mktemp -d "$dir/.agent.XXXXXX")"
trap 'rm -rf "$new"' EXIT
for pin in "${PINS[@]}"; do
  read -r path spec sum <<<"$pin"
  file="$tarballs/$(tarball "$spec")"
  if [ "$(sha256sum "$file" | cut -d' ' -f1)" != "$sum" ]; then
    echo "fetch-acp: cached $file changed" >&2
    exit 1
  fi
  mkdir -p "$new/$path"
  tar -xzf "$file" -C "$new/$path" --strip-components=1 --no-same-owner
done
pinsum >"$new/.installed"
rm -rf "$tree"
mv "$new" "$tree"
echo "$tree/$ACP_ENTRY"

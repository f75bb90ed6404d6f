#!/usr/bin/env bash
# Fetch the pinned Claude Code CLI (the Linux x64 build,
# @anthropic-ai/claude-code-linux-x64, a self-contained executable that
# needs no Node) with `npm pack`, verify the binary's SHA-256 and cache it
# outside the tree. Prints the cached binary's path. The pins are repeated
# in adapters/claude/version.go; a test keeps the two equal.
#
#   TURNSTILE_CLAUDE_CACHE  cache root (default ~/.cache/turnstile/claude)
set -euo pipefail

CLAUDE_VERSION=2.1.332
CLAUDE_SHA256=a2df1f41bb00250992926420d0063f89b127cb81abdd284dbefb80c50ff1d026
CLAUDE_PACKAGE=@anthropic-ai/claude-code-linux-x64
CLAUDE_MEMBER=package/claude

root="${TURNSTILE_CLAUDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/turnstile/claude}"
dir="$root/$CLAUDE_VERSION"
bin="$dir/claude"

verified() {
  [ -x "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$CLAUDE_SHA256" ]
}

if verified "$bin"; then
  echo "$bin"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-claude: npm is required to fetch $CLAUDE_PACKAGE@$CLAUDE_VERSION" >&2
  exit 1
fi
mkdir -p "$dir"
tmp="$(mktemp -d "$dir/.fetch.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "fetch-claude: npm pack $CLAUDE_PACKAGE@$CLAUDE_VERSION (about 190 MB)" >&2
(cd "$tmp" && npm pack --silent "$CLAUDE_PACKAGE@$CLAUDE_VERSION" >/dev/null)
tar -xzf "$tmp"/anthropic-ai-claude-code-linux-x64-"$CLAUDE_VERSION".tgz -C "$tmp" "$CLAUDE_MEMBER"
got="$(sha256sum "$tmp/$CLAUDE_MEMBER" | cut -d' ' -f1)"
if [ "$got" != "$CLAUDE_SHA256" ]; then
  echo "fetch-claude: checksum mismatch for claude $CLAUDE_VERSION: got $got, want $CLAUDE_SHA256" >&2
  exit 1
fi
chmod 0755 "$tmp/$CLAUDE_MEMBER"
mv -f "$tmp/$CLAUDE_MEMBER" "$bin"
echo "$bin"

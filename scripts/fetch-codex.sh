#!/usr/bin/env bash
# Fetch the pinned Codex CLI (the Linux x64 build of @openai/codex) with
# `npm pack`, verify the binary's SHA-256 and cache it outside the tree.
# Prints the cached binary's path. The pins are repeated in
# adapters/codex/version.go; a test keeps the two equal.
#
#   TURNSTILE_CODEX_CACHE  cache root (default ~/.cache/turnstile/codex)
set -euo pipefail

CODEX_VERSION=0.171.0
CODEX_SHA256=b76a027d6b210f9a8da7aaf321dd235c700f0ef7a794d4a5314b9af6c134f0f0
CODEX_MEMBER=package/vendor/x86_64-unknown-linux-musl/bin/codex

root="${TURNSTILE_CODEX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/turnstile/codex}"
dir="$root/$CODEX_VERSION"
bin="$dir/codex"

verified() {
  [ -x "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$CODEX_SHA256" ]
}

if verified "$bin"; then
  echo "$bin"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-codex: npm is required to fetch @openai/codex@$CODEX_VERSION-linux-x64" >&2
  exit 1
fi
mkdir -p "$dir"
tmp="$(mktemp -d "$dir/.fetch.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "fetch-codex: npm pack @openai/codex@$CODEX_VERSION-linux-x64 (about 170 MB)" >&2
(cd "$tmp" && npm pack --silent "@openai/codex@$CODEX_VERSION-linux-x64" >/dev/null)
tar -xzf "$tmp"/openai-codex-"$CODEX_VERSION"-linux-x64.tgz -C "$tmp" "$CODEX_MEMBER"
got="$(sha256sum "$tmp/$CODEX_MEMBER" | cut -d' ' -f1)"
if [ "$got" != "$CODEX_SHA256" ]; then
  echo "fetch-codex: checksum mismatch for codex $CODEX_VERSION: got $got, want $CODEX_SHA256" >&2
  exit 1
fi
chmod 0755 "$tmp/$CODEX_MEMBER"
mv -f "$tmp/$CODEX_MEMBER" "$bin"
echo "$bin"

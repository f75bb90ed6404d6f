#!/usr/bin/env bash
# Fetch the pinned official OpenAI Node SDK (npm package openai) with
# `npm pack`, verify the tarball's SHA-256, cache it outside the tree and
# unpack it as node_modules/openai, the layout an ES module resolves
# `import OpenAI from 'openai'` from. Prints the cached node_modules
# directory. Offline once cached. The pins are repeated in
# internal/openaisdk/openaisdk.go; a test keeps the two equal.
#
#   TURNSTILE_OPENAI_SDK_CACHE  cache root (default ~/.cache/turnstile/openai)
set -euo pipefail

OPENAI_SDK_VERSION=7.60.0
OPENAI_SDK_SHA256=7506885e23fe43b71e3f818b8e650a63d7b9ea738719a81c7133a4ff415385ac

root="${TURNSTILE_OPENAI_SDK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/turnstile/openai}"
dir="$root/$OPENAI_SDK_VERSION"
tgz="$dir/openai-$OPENAI_SDK_VERSION.tgz"
modules="$dir/node_modules"
# The stamp names the tarball an unpacked tree came from.
stamp="$modules/openai/.turnstile-sha256"

verified() {
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$OPENAI_SDK_SHA256" ]
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$OPENAI_SDK_SHA256" ] && verified "$tgz"; then
  echo "$modules"
  exit 0
fi
mkdir -p "$dir"
tmp="$(mktemp -d "$dir/.fetch.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
if ! verified "$tgz"; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "fetch-openai-sdk: npm is required to fetch openai@$OPENAI_SDK_VERSION" >&2
    exit 1
  fi
  echo "fetch-openai-sdk: npm pack openai@$OPENAI_SDK_VERSION (about 4 MB)" >&2
  (cd "$tmp" && npm pack --silent "openai@$OPENAI_SDK_VERSION" >/dev/null)
  got="$(sha256sum "$tmp/openai-$OPENAI_SDK_VERSION.tgz" | cut -d' ' -f1)"
  if [ "$got" != "$OPENAI_SDK_SHA256" ]; then
    echo "fetch-openai-sdk: checksum mismatch for openai $OPENAI_SDK_VERSION: got $got, want $OPENAI_SDK_SHA256" >&2
    exit 1
  fi
  mv -f "$tmp/openai-$OPENAI_SDK_VERSION.tgz" "$tgz"
fi
mkdir -p "$tmp/unpack"
tar -xzf "$tgz" -C "$tmp/unpack"
echo "$OPENAI_SDK_SHA256" >"$tmp/unpack/package/.turnstile-sha256"
mkdir -p "$modules"
rm -rf "$modules/openai"
mv "$tmp/unpack/package" "$modules/openai"
echo "$modules"

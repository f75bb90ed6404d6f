// Package codex is the Harness adapter for Codex, driving `codex
// app-server` (JSON-RPC over stdio) of the pinned Version.
//
// # Native source
//
// The pinned build is the npm version alias NPMPackage; its binary is
// vendor/x86_64-unknown-linux-musl/bin/codex with SHA-256 BinarySHA256.
// scripts/fetch-codex.sh fetches it with `npm pack`, verifies the checksum
// and caches it outside the tree (CachedBinary). The adapter never
// installs Codex: a missing binary or another version makes the kind
// unavailable with a diagnostic. protocol.go holds the JSON-RPC types,
// checked against `codex app-server generate-json-schema` of the pinned
// binary by TestProtocolMatchesGeneratedSchema.
package codex

package wire

import (
	"crypto/sha256"
	"encoding/hex"
)

// SHA256Hex is the lower-case hex SHA-256 of b: the form of
// workspace_write's sha256 member.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ValidWorkspacePath applies workspace_write's path rule (wire reference
// §3.10): at most 4096 bytes, a valid io/fs path other than ".", free of
// backslash, NUL, CR and LF.
func ValidWorkspacePath(p string) error { return validRelativePath(p, "path") }

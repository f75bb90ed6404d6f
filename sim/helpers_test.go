package sim

import (
	"crypto/sha256"
	"encoding/hex"
)

func fingerprintOf(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

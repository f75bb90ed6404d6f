package world

import (
	"strconv"
	"strings"
	"testing"
)

// numbered spells what prefix + strconv.FormatUint spells, whatever the
// prefix's length (past its stack buffer too) and the number.
func TestNumberedIsPrefixAndDecimal(t *testing.T) {
	for _, prefix := range []string{"", "w/", apiPrefix, "workload/", strings.Repeat("p", 60)} {
		for _, n := range []uint64{0, 7, 99, 100, 123456789, 1<<64 - 1} {
			if got, want := numbered(prefix, n), prefix+strconv.FormatUint(n, 10); got != want {
				t.Errorf("numbered(%q, %d) = %q, want %q", prefix, n, got, want)
			}
		}
	}
}

package daemon

import (
	"fmt"
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// DescribeFrame renders a frame for an effect or event line with
// wire.Describe, the one frame rendering of traces, scenarios and logs.
func DescribeFrame(f wire.Frame) string { return wire.Describe(f) }

func describeInput(in wire.MessageInput) string {
	parts := 0
	size := 0
	for _, m := range in {
		for _, p := range m.Content {
			parts++
			if p.Text != nil {
				size += len(*p.Text)
			}
		}
	}
	return fmt.Sprintf("[msgs=%d parts=%d bytes=%d]", len(in), parts, size)
}

func shortFP(fp string) string {
	return strconv.FormatUint(fnv64(fp), 16)
}

// fnv64 is FNV-1a: a stable, non-cryptographic digest for trace text.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

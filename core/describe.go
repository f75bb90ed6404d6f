package core

import "github.com/turnstile-sim/turnstile/wire"

// DescribeFrame renders a frame for an effect or event line with
// wire.Describe, the one frame rendering of traces, scenarios and logs.
func DescribeFrame(f wire.Frame) string { return wire.Describe(f) }

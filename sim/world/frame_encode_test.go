package world

import (
	"bytes"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

// On the campaign path the shells encode without the encoder's own strict
// scan; a frame encoded wrong must still be refused before it is sent and
// named in a wire_encode violation, from Core and from a daemon alike.
func TestBrokenEncodingIsRefusedBeforeSending(t *testing.T) {
	for _, tc := range []struct {
		typ, sender string
	}{
		{wire.ExecutionStart{}.MessageType(), "Core frame"},
		{wire.Heartbeat{}.MessageType(), "daemon d"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			broken := 0
			cfg := Config{breakEncoding: func(f wire.Frame, b []byte) []byte {
				if f.Payload.MessageType() != tc.typ {
					return b
				}
				broken++
				return nullFirstMember(b)
			}}
			out := Run(3, cfg)
			if broken == 0 {
				t.Fatalf("no %s frame was encoded", tc.typ)
			}
			if got := out.Result.FailedCheck(); got != checkWire {
				t.Fatalf("failed check %q, want %q (violations %v)", got, checkWire, out.Result.Violations)
			}
			msg := out.Result.Violations[0].Message
			for _, want := range []string{tc.sender, tc.typ, "does not encode", "strict decoder", "null not allowed"} {
				if !strings.Contains(msg, want) {
					t.Fatalf("violation %q does not name %q", msg, want)
				}
			}
		})
	}
}

// nullFirstMember returns b with a null member of the name of the
// payload's first member inserted before it: a frame the strict decoder
// refuses ("null not allowed").
func nullFirstMember(b []byte) []byte {
	p := []byte(`"payload":{"`)
	i := bytes.Index(b, p)
	if i < 0 {
		return b
	}
	j := i + len(p)
	k := bytes.IndexByte(b[j:], '"')
	out := append([]byte{}, b[:j-1]...)
	out = append(out, b[j-1:j+k+1]...)
	out = append(out, ":null,"...)
	return append(out, b[j-1:]...)
}

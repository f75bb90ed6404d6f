package wire

import (
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// describeByReflection is Describe without the direct path.
func describeByReflection(f Frame) string {
	var b strings.Builder
	b.WriteString(f.Payload.MessageType())
	if f.ID != "" {
		b.WriteString(" id=")
		writeScalar(&b, f.ID)
	}
	describeStruct(&b, reflect.ValueOf(f.Payload), false)
	s := b.String()
	if len(s) > describeBytesMax {
		s = cutRunes(s, describeBytesMax-len("…")) + "…"
	}
	return s
}

// TestDirectDescribeMatchesReflection draws payloads of every type with a
// direct description, hostile strings and extreme numbers included, and
// compares Describe with the reflective rendering.
func TestDirectDescribeMatchesReflection(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := hostileDirectPayload(t)
		if _, ok := p.(directDescriber); !ok {
			t.Skip("no direct description")
		}
		f := Frame{ID: hostileStr(t, "id"), Payload: p}
		if got, want := Describe(f), describeByReflection(f); got != want {
			t.Fatalf("%T:\n got %s\nwant %s", p, got, want)
		}
	})
}

func TestDirectDescribers(t *testing.T) {
	for _, p := range []Payload{PreparationStatus{}, Delta{}, PromptSteerAck{}, WorkspaceRead{}, ExecutionPrepare{}} {
		if _, ok := p.(directDescriber); !ok {
			t.Errorf("%T has no direct description", p)
		}
		f := Frame{ID: "x", Payload: p}
		if got, want := Describe(f), describeByReflection(f); got != want {
			t.Errorf("%T: got %q, want %q", p, got, want)
		}
	}
}

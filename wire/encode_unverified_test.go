package wire

import (
	"bytes"
	"errors"
	"testing"
)

// The encoder without its own scan renders exactly what Encode renders
// for a frame Encode accepts, and refuses what Validate or the envelope
// rules refuse.
func TestEncodeUnverifiedMatchesEncode(t *testing.T) {
	f := Frame{ID: "t-1", Payload: Delta{ItemID: "i-1", Delta: "x\u2028y", Sequence: 1}}
	want, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EncodeUnverified(f)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("EncodeUnverified = %s, %v; Encode = %s", got, err, want)
	}
	if _, err := EncodeUnverified(Frame{ID: "t-2"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a nil payload: %v, want ErrInvalid", err)
	}
	long := Frame{ID: string(bytes.Repeat([]byte{'x'}, IDBytesMax+1)), Payload: f.Payload}
	if _, err := EncodeUnverified(long); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("an ID over IDBytesMax: %v, want ErrTooLarge", err)
	}
}

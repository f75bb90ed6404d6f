package wire

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// genFrameOf draws a valid frame of type typ.
func genFrameOf(typ string) *rapid.Generator[Frame] {
	return rapid.Custom(func(t *rapid.T) Frame {
		gen := payloadGens[typ]
		if gen == nil {
			gen = genFrameLegacy[typ]
		}
		return Frame{ID: genID.Draw(t, "id"), Payload: gen(t)}
	})
}

func checkRoundTrip(t *rapid.T, f Frame) {
	if err := Validate(f.Payload); err != nil {
		t.Fatalf("generator produced an invalid %s: %v", f.Type(), err)
	}
	b, err := Encode(f)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("round trip\n got %#v\nwant %#v", got, f)
	}
}

// TestPropertyRoundTripEveryType runs the round trip for each registered
// type separately, so none is left to chance.
func TestPropertyRoundTripEveryType(t *testing.T) {
	for _, typ := range Types() {
		t.Run(typ, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) { checkRoundTrip(t, genFrameOf(typ).Draw(t, "frame")) })
		})
	}
}

// oversizeCase grows one field of a valid payload past its limit.
type oversizeCase struct {
	typ   string
	grow  func(p Payload, n int) Payload
	limit int
	want  error
	field string
}

var oversizeCases = []oversizeCase{
	{TypePromptSteer, func(p Payload, n int) Payload {
		s := p.(PromptSteer)
		s.InputID = strings.Repeat("i", n)
		return s
	}, InputIDBytesMax, ErrTooLarge, "prompt_steer.input_id"},
	{TypePromptSteerAck, func(p Payload, n int) Payload {
		a := p.(PromptSteerAck)
		a.InputID = strings.Repeat("é", (n+1)/2)
		return a
	}, InputIDBytesMax, ErrTooLarge, "prompt_steer_ack.input_id"},
	{TypeWorkspaceExport, func(p Payload, n int) Payload {
		return WorkspaceExport{Step: StepBegin, Handle: strings.Repeat("h", n), EnvironmentID: "env"}
	}, ExportIDBytesMax, ErrInvalid, "workspace_export.handle"},
	{TypeWorkspaceReadResult, func(p Payload, n int) Payload {
		size := int64(1)
		return WorkspaceReadResult{Outcome: OutcomeCompleted, CloseAcknowledged: true, Directory: &WorkspaceDirectoryResult{
			Entries: []DirectoryEntry{{Name: strings.Repeat("n", n), Kind: EntryFile, SizeBytes: &size}}}}
	}, DirectoryNameBytes, ErrTooLarge, "directory.entries[0].name"},
	{TypeWorkspaceRead, func(p Payload, n int) Payload {
		r := p.(WorkspaceRead)
		r.Path = strings.Repeat("p", n)
		return r
	}, WorkspacePathBytesMax, ErrTooLarge, "workspace_read.path"},
}

// TestPropertyFieldOversizeRejected: a frame whose field exceeds its limit
// by any amount decodes (the shape is fine) and then fails Validate with
// the named error; the sender's Encode refuses it too.
func TestPropertyFieldOversizeRejected(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapid.SampledFrom(oversizeCases).Draw(t, "case")
		f := genFrameOf(c.typ).Draw(t, "frame")
		f.Payload = c.grow(f.Payload, c.limit+rapid.IntRange(1, 600).Draw(t, "excess"))
		raw, err := json.Marshal(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		frame, _ := json.Marshal(Envelope{Type: c.typ, ID: f.ID, Payload: raw})
		got, err := Decode(frame)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		err = Validate(got.Payload)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.field) {
			t.Fatalf("got %v, want %v naming %s", err, c.want, c.field)
		}
		if _, err := Encode(f); !errors.Is(err, c.want) {
			t.Fatalf("Encode accepted an oversize %s: %v", c.field, err)
		}
	})
}

package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Version is the protocol version. Compatibility is byte-exact equality.
const Version = "0.10.0"

// Compatible reports whether a peer's version string equals Version exactly.
func Compatible(v string) bool { return v == Version }

// Envelope is the raw frame: one JSON object per WebSocket text message.
type Envelope struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Trace   string          `json:"trace,omitempty"`
}

// Frame is a decoded frame: envelope identity plus its typed payload.
// Payload is a value of one of the payload structs of this package.
type Frame struct {
	ID      string
	Trace   string
	Payload Payload
}

// Type is the frame's type string.
func (m Frame) Type() string { return m.Payload.MessageType() }

// newPayload maps a type string to a decoder into its payload type.
var registry = map[string]func([]byte) (Payload, error){}

func register[P Payload](decode func([]byte, *P) error) {
	var zero P
	registry[zero.MessageType()] = func(b []byte) (Payload, error) {
		var p P
		if err := decode(b, &p); err != nil {
			return nil, err
		}
		return p, nil
	}
}

// Decode parses one frame into a typed Message or returns a named error.
func Decode(frame []byte) (Frame, error) {
	if len(frame) > FrameBytesMax {
		return Frame{}, fmt.Errorf("%w: frame of %d bytes exceeds %d", ErrTooLarge, len(frame), FrameBytesMax)
	}
	var env Envelope
	dec := json.NewDecoder(bytes.NewReader(frame))
	if err := dec.Decode(&env); err != nil {
		return Frame{}, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	if dec.More() {
		return Frame{}, ErrTrailingData
	}
	mk, ok := registry[env.Type]
	if !ok {
		return Frame{}, fmt.Errorf("%w: %q", ErrUnknownType, truncateForError(env.Type))
	}
	if len(env.ID) > IDBytesMax {
		return Frame{}, fmt.Errorf("%w: id of %d bytes exceeds %d", ErrTooLarge, len(env.ID), IDBytesMax)
	}
	p, err := mk(env.Payload)
	if err != nil {
		return Frame{}, fmt.Errorf("%s: %w", env.Type, err)
	}
	return Frame{ID: env.ID, Trace: env.Trace, Payload: p}, nil
}

// Encode validates and renders a message as one frame.
func Encode(m Frame) ([]byte, error) {
	if m.Payload == nil {
		return nil, fmt.Errorf("%w: nil payload", ErrInvalid)
	}
	if err := Validate(m.Payload); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Type(), err)
	}
	raw, err := json.Marshal(m.Payload)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", m.Type(), ErrInvalid, err)
	}
	return json.Marshal(Envelope{Type: m.Type(), ID: m.ID, Payload: raw, Trace: m.Trace})
}

// Size limits (DESIGN.md §5, wire-reference §6.1).
const (
	FrameBytesMax        = 4 << 20   // transport frame
	IDBytesMax           = 128       // correlation ID
	RequestBytesMax      = 8 << 10   // request payload before admission
	ReadResultBytesMax   = 1 << 20   // workspace read result
	DirectoryEntriesMax  = 1024      // names per listing
	DirectoryNameBytes   = 255       // bytes per name
	ChunkBytesMax        = 64 << 10  // transfer / write chunk
	TransferBytesMax     = 50 << 20  // private transfer
	InlineBytesMax       = 5 << 20   // public inline content
	InputIDBytesMax      = 256       // prompt_steer input_id
	SteerInputsPerRunMax = 256       // inputs per Run
	OutputFramesMax      = 64        // Turn output channel
	AdmissionRecordsMax  = 64        // admission records per connection
	ExportBytesMax       = 528 << 20 // workspace export total
)

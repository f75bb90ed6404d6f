package wire

import "encoding/json"

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

// Further limits of wire-reference §6.1.
const (
	WorkspacePathBytesMax    = 4096     // logical or relative workspace path
	WriteFrameBytesMax       = 96 << 10 // encoded workspace_write / export result payload
	ExportIDBytesMax         = 128      // workspace_export handle and environment ID
	RuntimePrepareBytesMax   = 1 << 20  // encoded runtime_prepare begin payload / any result
	PluginSlotMax            = 49       // runtime_prepare plugin slot
	InitializationEntriesMax = 1000     // env entries, packages
	FinalizeDirectoriesMax   = 50       // finalize source directories
	AuthoringBytesMax        = 1 << 20  // authoring request / response payload
	DirectoryEntriesMin      = 1        // directory read max_entries lower bound
	ReadBytesMin             = 1        // byte read max_bytes lower bound
)

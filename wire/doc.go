// Package wire defines the Core–Runtime protocol once: the envelope, every
// message type and its payload, a strict codec, validators, limits, code
// sets and a stable one-line rendering. It uses the standard library only
// and is a machine package: no clocks, goroutines, I/O or randomness, and
// no map iteration order reaches an output.
//
// # Conventions
//
// Every payload is a struct implementing Payload; its MessageType is the
// type string it travels under. The json struct tag gives the member name;
// a tag without ",omitempty" marks a required member (present on decode,
// always encoded); `wire:"nullable"` allows an explicit null; `wire:"object"`
// requires a raw JSON member to be an object; `wire:"lenient"` accepts any
// JSON value and leaves the reading to a type-specific decoder (the `code`
// and `http_status` of the `error` run event, wire-reference §6.3).
//
// # Strictness
//
// Decode is stricter than the upstream decoder (versions match exactly, so
// this costs no compatibility). It rejects frames over FrameBytesMax,
// malformed JSON, trailing data, envelope members other than type, id,
// payload and trace, correlation IDs over IDBytesMax (without echoing
// them), unknown type strings, and, at any depth of the payload: unknown
// members, repeated members, omitted required members, null where not
// allowed, wrong JSON types and integers out of range for their Go type.
// Member names match exactly (no case folding). A missing or unparseable
// trace never rejects a frame: it is dropped to "" unless it is a valid W3C
// traceparent. A frame without payload decodes to the zero payload only
// for prompt_cancel (cancel without receipt), permission_cancel (bodyless)
// and device_shutdown (no reason); every other type requires a payload.
//
// Decode checks the JSON shape; protocol rules live in the validators:
// Validate(p) calls the payload's Validate method, and results that depend
// on their request have ValidateAgainst methods
// (UserChoiceDecision, RuntimePrepareResult, WorkspaceReadResult,
// WorkspaceWriteResult, WorkspaceExportResult, EnvironmentQuiesced,
// EnvironmentResumed). Encode runs Validate, marshals, and checks its own
// output with the strict decoder, so whatever Encode produces Decode
// accepts, and Decode(Encode(x)) equals x for every valid x whose optional
// slices and maps are nil rather than empty (omitted members decode as nil).
//
// # Errors
//
// Every error wraps one sentinel of errors.go (ErrUnknownType,
// ErrUnknownField, ErrDuplicateField, ErrMissingField, ErrNull,
// ErrWrongType, ErrTooLarge, ErrInvalid, ErrSyntax, ErrTrailingData) and
// names the field path, e.g.
// `wire: wrong JSON type: execution_start.input[0].content[1].text: want string, got number`.
// Once the envelope is readable, Decode returns a *DecodeError carrying the
// type string and correlation ID, so a receiver can answer the request.
// Validation failures that map to a protocol code (execution_prepare) are
// *CodeError values: errors.Is(err, ErrInvalid) holds and ErrorCode(err)
// yields the code. Capability declarations never echo a member name or
// value in an error.
//
// # Adding a message type
//
//  1. Add the type string constant and the payload struct with its tags
//     (types.go or a sibling file) and a MessageType method.
//  2. Register it in an init function: register[T](bodyless).
//  3. Give it a Validate method with the rules of the reference.
//  4. Add a sample frame to sampleFrames (samples_test.go), run
//     `go test ./wire -update`, review the new fixture, and add a seed to
//     the matching fuzz family in package fuzz.
package wire

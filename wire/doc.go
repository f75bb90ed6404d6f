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
// Decode follows the D-era decoders where the documents say a member is
// ignored, and is strict everywhere else (wire-reference §1). Unknown
// members are ignored in every payload, at any depth — a legacy
// claude_available in a heartbeat, a member a newer Runtime adds to a
// kind entry, a content part or a configuration — and so are unknown
// envelope members (the R era's assignment, say); their JSON must still be
// well formed. The strict payload types reject an unknown member at any
// depth with ErrUnknownField: the capability object of a heartbeat's kind
// entry (whose unknown member names are withheld), the user-choice
// decision, tool_call (a native_item, say) and the directory result of a
// workspace read. A member whose name differs from a known member's only
// in case is never ignored: the upstream decoder matches names
// case-insensitively and would read it as that member, so it is an
// ErrUnknownField ("differs from member <name> only in case"). Beyond
// that, Decode is stricter than the upstream decoder, which lets the last
// of repeated members win: it rejects frames over FrameBytesMax,
// malformed JSON, trailing data, correlation IDs over IDBytesMax (without
// echoing them), unknown type strings, and, at any depth of the payload
// including inside raw JSON members: repeated members, omitted required
// members, null where not allowed, wrong JSON types, integers out of range
// for their Go type, and strings or member names that are not valid UTF-8
// or escape a lone surrogate (ErrInvalidUTF8; two distinct invalid keys
// would otherwise both read as U+FFFD and one be lost). Member names
// match exactly. A missing or unparseable trace never rejects a frame: it
// is dropped to "" unless it is a valid W3C traceparent (even a trace that
// is not valid UTF-8 is only dropped). A frame without payload decodes to
// the zero payload only for prompt_cancel (cancel without receipt),
// permission_cancel (bodyless) and device_shutdown (no reason); every
// other type requires a payload.
//
// # Decoding in one pass
//
// One walker reads JSON (scan*.go for tokens, decode_value.go for values,
// schema.go for the schemas derived from the struct tags). Decode reads a
// frame once: the envelope and, when `type` comes before `payload` (as
// Encode writes it), the payload, which is checked against its schema and
// built into its Go value in the same walk (reflection over the schema),
// producing the canonical form directly. Any other shape, and every
// error, goes through the two-pass path — the envelope walked first, then
// the payload — with the same rules and messages. Encode checks its own
// output with the same walker, building nothing. A `wire:"lenient"`
// member is read as any JSON value and normalised by its type's finish
// step (the error run event). The tests hold the walker to a reference
// decoder (encoding/json over the same bytes, then canonicalisation) for
// every input. A message type added with register gets the walker without
// further work.
//
// The most frequent frames of a simulated seed skip reflection where that
// cannot change a result (encode_direct.go, decode_direct.go,
// describe_direct.go): execution_prepare and preparation_status payloads
// in canonical form (no white space, members in declaration order, plain
// ASCII strings, short integers) are read by hand, and anything else is
// left to the one-pass decoder, errors included; those two, delta, the
// steer and decision acks and workspace_read render their JSON by hand,
// byte for byte what json.Marshal renders (raw JSON compacted and
// HTML-escaped alike, invalid UTF-8 as \ufffd), falling back to
// json.Marshal for what they cannot promise; and Describe writes the
// members of all but the decision ack without reflection. Property tests
// over hostile strings, raw JSON and near-canonical inputs hold each to
// the reflective path.
//
// An explicit empty object or array in an optional member whose Go field
// is a non-pointer map or slice (the canonical encoding omits it when
// empty), e.g. initialization `"env":{}` or a configuration's
// `"function_tools":[]`, is rejected with ErrInvalid ("explicit empty
// <field>: omit the member"): wire-reference §3.2 counts an empty
// object/array as present, so reading it as absent would bypass the
// presence rules. Members where empty is meaningful are pointers
// (mcp_http_servers: absent/null keeps native behaviour, [] declares no
// servers) and accept [] as before. A member tagged wire:"emptyabsent"
// reads an explicit empty value as absent instead: agent_options, where a
// peer's `{}` means "no options" and refusing it would refuse a legal
// prepare. Required arrays (e.g. answers) may be empty.
//
// Decode checks the JSON shape; protocol rules live in the validators:
// Validate(p) calls the payload's Validate method, and results that depend
// on their request have ValidateAgainst methods
// (UserChoiceDecision, RuntimePrepareResult, WorkspaceReadResult,
// WorkspaceWriteResult, WorkspaceExportResult, EnvironmentQuiesced,
// EnvironmentResumed). Encode runs Validate, refuses strings, map keys,
// the ID and the trace when they are not valid UTF-8 (ErrInvalidUTF8,
// naming the field; encoding/json would silently replace the bytes),
// marshals, and checks its own output with the strict decoder, so whatever
// Encode produces Decode accepts. Decode(Encode(x)) equals x for every
// valid x whose optional slices and maps are nil rather than empty
// (omitted members decode as nil) and whose raw JSON members are in
// encoding/json's compact form. Decode itself normalises raw members
// (agent_options values, tool arguments, schemas, ...) to that compact
// form, so a frame with non-compact raw JSON decodes to the value its
// re-encoding decodes to, not to its own bytes.
//
// # MCP connection origin
//
// The origin rule of wire-reference §3.14 is enforced as
// unsupported_configuration: `service` needs disable_execution_environment
// and no local_environment; `environment` needs local_environment. The
// D-era variant's extra requirement local_environment.network_access =
// "enabled" for `environment` is deliberately not enforced: Core builds
// local environments without network_access while defaulting MCP servers
// to the environment origin, so enforcing it would make Core's own
// prepares invalid.
//
// # Errors
//
// Every error wraps one sentinel of errors.go (ErrUnknownType,
// ErrUnknownField, ErrDuplicateField, ErrMissingField, ErrNull,
// ErrWrongType, ErrTooLarge, ErrInvalid, ErrInvalidUTF8, ErrSyntax,
// ErrTrailingData) and names the field path, e.g.
// `wire: wrong JSON type: execution_start.input[0].content[1].text: want string, got number`.
// A repeated member inside a raw JSON value is named by the raw member's
// path and the (truncated) member name.
// Once the envelope is readable, Decode returns a *DecodeError carrying the
// type string and correlation ID, so a receiver can answer the request; an
// ID over IDBytesMax also yields a *DecodeError (with the type when it is
// registered) whose ID is empty and whose message gives only the length.
// Validation failures that map to a protocol code (execution_prepare) are
// *CodeError values: errors.Is(err, ErrInvalid) holds and ErrorCode(err)
// yields the code. Capability declarations never echo a value in an
// error, and never echo the name of an unknown member; errors about a
// known member (wrong type, null, missing, repeated) name it, e.g.
// `heartbeat.supported_agent_kinds[0].capabilities.steering`.
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
//  5. Add a generator to payloadGens (rapid_gen2_test.go);
//     TestPayloadGensComplete fails until every type has one.
package wire

package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// envelopeParts holds the raw members of an envelope after scanning.
type envelopeParts struct {
	typ     string
	id      string
	payload []byte // nil when absent
	trace   string // "" unless a valid traceparent string
	idLen   int    // length of an ID over IDBytesMax (the ID is dropped)
}

// Decode parses one frame strictly (see doc.go) into its typed payload.
// Errors wrap the sentinels of errors.go and name the field path; once the
// envelope is readable they are *DecodeError values carrying type and ID.
// Decode checks the JSON shape only; callers apply Validate (or the
// ValidateAgainst helpers) for the protocol rules.
func Decode(frame []byte) (Frame, error) {
	if f, ok := decodeInline(frame); ok {
		return f, nil
	}
	return decodeFrame(frame, (*messageType).decodePayload)
}

// decodeFrame is the two-pass path of Decode: the envelope is walked
// first, then its payload is read by payload.
func decodeFrame(frame []byte, payload func(*messageType, []byte) (Payload, error)) (Frame, error) {
	if len(frame) > FrameBytesMax {
		return Frame{}, tooLarge("frame", len(frame), FrameBytesMax)
	}
	env, err := scanEnvelope(frame)
	if err != nil {
		return Frame{}, err
	}
	mt, ok := registry[env.typ]
	if env.idLen > 0 {
		// Readable envelope, unusable ID: the error carries the type but
		// never the ID.
		typ := ""
		if ok {
			typ = mt.name
		}
		return Frame{}, &DecodeError{Type: typ, Err: tooLarge("envelope.id", env.idLen, IDBytesMax)}
	}
	if !ok {
		return Frame{}, &DecodeError{ID: env.id, Err: fmt.Errorf("%w: %q", ErrUnknownType, truncateForError(env.typ))}
	}
	p, err := payload(mt, env.payload)
	if err != nil {
		return Frame{}, &DecodeError{Type: mt.name, ID: env.id, Err: err}
	}
	return Frame{ID: env.id, Trace: env.trace, Payload: p}, nil
}

// scanEnvelope reads the four envelope members. The ID is checked against
// IDBytesMax without ever echoing it; an unusable trace is dropped.
func scanEnvelope(frame []byte) (envelopeParts, error) {
	var env envelopeParts
	sc := newScanner(frame, "envelope")
	sc.anyDup = true // the payload is scanned again against its schema
	sc.skipSpace()
	if sc.pos >= len(frame) || frame[sc.pos] != '{' {
		if sc.pos < len(frame) && tokenKind(frame[sc.pos]) != 0 {
			return env, sc.fail(ErrWrongType, "want object")
		}
		return env, sc.syntax("expected object")
	}
	sc.pos++
	sc.push(pathSegment{})
	var seen uint8
	hasType := false
	for first := true; ; first = false {
		sc.skipSpace()
		if first && sc.pos < len(frame) && frame[sc.pos] == '}' {
			sc.pos++
			break
		}
		key, err := sc.memberName()
		if err != nil {
			return env, err
		}
		bit, name := envelopeMember(key)
		if bit == 0 {
			if err := sc.skipEnvelopeMember(key); err != nil {
				return env, err
			}
			if done, err := sc.endMember('}'); err != nil || done {
				if err != nil {
					return env, err
				}
				break
			}
			continue
		}
		sc.set(pathSegment{field: name})
		if seen&bit != 0 {
			return env, sc.fail(ErrDuplicateField, "")
		}
		seen |= bit
		if err := sc.envelopeValue(&env, name); err != nil {
			return env, err
		}
		hasType = hasType || name == "type"
		if done, err := sc.endMember('}'); err != nil || done {
			if err != nil {
				return env, err
			}
			break
		}
	}
	sc.n = 0
	sc.skipSpace()
	if sc.pos != len(frame) {
		return env, fmt.Errorf("%w: after envelope at offset %d", ErrTrailingData, sc.pos)
	}
	if !hasType {
		return env, missing("envelope.type")
	}
	return env, nil
}

var stringSchema = &schema{kind: kindString}

// envelopeFields are the envelope members, for the case-folding rule.
var envelopeFields = []schemaField{{name: "type"}, {name: "id"}, {name: "payload"}, {name: "trace"}}

// skipEnvelopeMember skips an unknown envelope member, which the gateway's
// decoder ignores (wire-reference §1; the R era adds `assignment`). Its
// value must be well-formed JSON; a name that differs from a member's only
// in case is rejected, as inside payloads.
func (sc *scanner) skipEnvelopeMember(key []byte) error {
	sc.set(pathSegment{key: key})
	if f := foldedField(envelopeFields, key); f != "" {
		return sc.fail(ErrUnknownField, "differs from member "+f+" only in case")
	}
	sc.anyUTF8 = true
	err := sc.skipValue()
	sc.anyUTF8 = false
	return err
}

func envelopeMember(key []byte) (uint8, string) {
	switch string(key) {
	case "type":
		return 1, "type"
	case "id":
		return 2, "id"
	case "payload":
		return 4, "payload"
	case "trace":
		return 8, "trace"
	}
	return 0, ""
}

func (sc *scanner) envelopeValue(env *envelopeParts, name string) error {
	sc.skipSpace()
	start := sc.pos
	switch name {
	case "payload":
		if sc.pos < len(sc.data) && sc.data[sc.pos] == 'n' {
			if err := sc.literal("null"); err != nil {
				return err
			}
			return sc.fail(ErrNull, "")
		}
		// The payload is scanned again against its schema, which names
		// the field of a bad string.
		sc.anyUTF8 = true
		err := sc.skipValue()
		sc.anyUTF8 = false
		if err != nil {
			return err
		}
		env.payload = sc.data[start:sc.pos]
		return nil
	case "trace":
		sc.anyUTF8 = true // an unusable trace is dropped, never fatal
		err := sc.skipValue()
		sc.anyUTF8 = false
		if err != nil {
			return err
		}
		if sc.data[start] == '"' {
			if s, err := sc.stringAt(start); err == nil && ValidTraceparent(s) {
				env.trace = s
			}
		}
		return nil
	}
	if err := sc.decodeValue(stringSchema, false, reflect.Value{}); err != nil {
		return err
	}
	s, err := sc.stringAt(start)
	if err != nil {
		return err
	}
	if name == "id" {
		if len(s) > IDBytesMax {
			env.idLen = len(s)
			return nil
		}
		env.id = s
		return nil
	}
	env.typ = s
	return nil
}

// stringAt converts the already scanned string token starting at start.
func (sc *scanner) stringAt(start int) (string, error) {
	tok := sc.data[start:sc.pos]
	raw := tok[1 : len(tok)-1]
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			var s string
			if err := json.Unmarshal(tok, &s); err != nil {
				return "", sc.fail(ErrSyntax, "invalid string")
			}
			return s, nil
		}
	}
	return string(raw), nil
}

// ValidTraceparent reports whether s is a W3C traceparent of version 00:
// `00-<32 lower hex>-<16 lower hex>-<2 lower hex>` with non-zero IDs.
func ValidTraceparent(s string) bool {
	if len(s) != 55 || s[0] != '0' || s[1] != '0' || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return false
	}
	return lowerHexNonZero(s[3:35]) && lowerHexNonZero(s[36:52]) && lowerHex(s[53:55])
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
			return false
		}
	}
	return true
}

func lowerHexNonZero(s string) bool {
	if !lowerHex(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return true
		}
	}
	return false
}

// Encode validates a frame and renders it. It refuses unknown payload types,
// payloads that fail Validate, IDs over IDBytesMax and frames over
// FrameBytesMax. An invalid trace is dropped, as Decode would drop it. A
// bodyless-capable type whose payload is the zero value omits `payload`.
// What it returns passes the strict decoder: the payload is scanned with
// Decode's rules before the frame is rendered.
func Encode(f Frame) ([]byte, error) { return encode(f, true) }

func encode(f Frame, selfCheck bool) ([]byte, error) {
	if f.Payload == nil {
		return nil, fmt.Errorf("%w: nil payload", ErrInvalid)
	}
	typ := f.Payload.MessageType()
	mt, ok := registry[typ]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownType, truncateForError(typ))
	}
	if len(f.ID) > IDBytesMax {
		return nil, tooLarge("envelope.id", len(f.ID), IDBytesMax)
	}
	if !utf8.ValidString(f.ID) {
		return nil, fmt.Errorf("%w: envelope.id", ErrInvalidUTF8)
	}
	if !utf8.ValidString(f.Trace) {
		return nil, fmt.Errorf("%w: envelope.trace", ErrInvalidUTF8)
	}
	if err := Validate(f.Payload); err != nil {
		return nil, fmt.Errorf("%s: %w", typ, err)
	}
	// A payload with a direct rendering is rendered in place, after the
	// envelope's type and ID; another is marshalled first, so that the
	// frame is allocated once at its size.
	body := !mt.bodyless || !reflect.ValueOf(f.Payload).IsZero()
	_, direct := f.Payload.(directPayload)
	var marshalled []byte
	size := len(typ) + len(f.ID) + 96
	if body && !direct {
		var err error
		if marshalled, err = json.Marshal(f.Payload); err != nil {
			return nil, fmt.Errorf("%s: %w: %v", typ, ErrInvalid, err)
		}
		size += len(marshalled)
	} else if body {
		size += 224
	}
	out := make([]byte, 0, size)
	out = append(out, `{"type":`...)
	out = appendJSONString(out, typ)
	if f.ID != "" {
		out = append(out, `,"id":`...)
		out = appendJSONString(out, f.ID)
	}
	if body {
		out = append(out, `,"payload":`...)
		start := len(out)
		if direct {
			var err error
			if out, err = appendPayload(out, f.Payload); err != nil {
				return nil, fmt.Errorf("%s: %w: %v", typ, ErrInvalid, err)
			}
		} else {
			out = append(out, marshalled...)
		}
		raw := out[start:]
		// encoding/json writes an invalid byte of a string as the escape
		// \ufffd (a valid U+FFFD travels unescaped), so only then is the
		// payload walked to name the field.
		if bytes.Contains(raw, replacementEscape) {
			if err := checkUTF8(typ, reflect.ValueOf(f.Payload)); err != nil {
				return nil, err
			}
		}
		// Whatever we send must pass our own strict decoder (this catches
		// nil required slices, which would be encoded as null).
		if selfCheck {
			sc := newScanner(raw, typ)
			if err := sc.check(mt.schema); err != nil {
				return nil, err
			}
		}
	}
	if ValidTraceparent(f.Trace) {
		out = append(out, `,"trace":"`...)
		out = append(out, f.Trace...)
		out = append(out, '"')
	}
	out = append(out, '}')
	if len(out) > FrameBytesMax {
		return nil, tooLarge("frame", len(out), FrameBytesMax)
	}
	return out, nil
}

// appendJSONString appends s, which is valid UTF-8, as a JSON string
// literal.
func appendJSONString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

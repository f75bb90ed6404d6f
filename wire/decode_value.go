package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON walker. It walks a payload once against its schema, applying
// every strictness rule while it fills the Go value through reflection,
// and produces the canonical form directly (raw members compact, optional
// empty collections nil). Given the invalid reflect.Value it stores
// nothing and only checks the JSON (Encode's check of its own output, the
// envelope's string members). A wire:"lenient" member is read by
// decodeLenient and normalised by the payload type's finish step.

// decodeInto walks one complete value of schema s into v (the zero value
// of the payload type, or the invalid Value to check only) and rejects
// trailing bytes.
func (sc *scanner) decodeInto(s *schema, v reflect.Value) error {
	sc.n = 0
	if err := sc.decodeValue(s, false, v); err != nil {
		return err
	}
	sc.skipSpace()
	if sc.pos != len(sc.data) {
		return sc.fail(ErrTrailingData, "")
	}
	return nil
}

// check walks one complete value of schema s without building it.
func (sc *scanner) check(s *schema) error { return sc.decodeInto(s, reflect.Value{}) }

// decodeValue walks one value of schema s, storing it into v when v is
// valid.
func (sc *scanner) decodeValue(s *schema, nullable bool, v reflect.Value) error {
	sc.skipSpace()
	if sc.pos >= len(sc.data) {
		return sc.syntax("unexpected end of input")
	}
	c := sc.data[sc.pos]
	if c == 'n' {
		if err := sc.literal("null"); err != nil {
			return err
		}
		if !nullable {
			return sc.fail(ErrNull, "")
		}
		if v.IsValid() {
			setNull(v)
		}
		return nil
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if s.kind == kindRaw {
		return sc.decodeRaw(v)
	}
	got := tokenKind(c)
	if got == 0 {
		return sc.syntax("unexpected character")
	}
	if !kindAccepts(s.kind, got) {
		return sc.fail(ErrWrongType, "want "+s.kind.String()+", got "+got.String())
	}
	switch s.kind {
	case kindStruct:
		return sc.decodeObject(s, v)
	case kindMap:
		return sc.decodeMap(s, v)
	case kindRawObject:
		return sc.decodeRaw(v)
	case kindArray:
		return sc.decodeArray(s, v)
	case kindString:
		if raw, ok := sc.plainString(); ok {
			if v.IsValid() {
				v.SetString(string(raw))
			}
			return nil
		}
		raw, escaped, err := sc.str()
		if err != nil || !v.IsValid() {
			return err
		}
		v.SetString(stringOf(raw, escaped))
		return nil
	case kindBytes:
		return sc.decodeBase64(v)
	case kindBool:
		return sc.decodeBool(c, v)
	default:
		return sc.decodeNumber(s, v)
	}
}

// setNull stores an accepted null as encoding/json does: pointers, slices
// and maps become nil, a raw member holds the literal, anything else keeps
// its zero value.
func setNull(v reflect.Value) {
	switch {
	case v.Type() == typeRawMessage:
		v.SetBytes([]byte("null"))
	case v.Kind() == reflect.Pointer || v.Kind() == reflect.Slice || v.Kind() == reflect.Map:
		v.SetZero()
	}
}

func (sc *scanner) decodeBool(c byte, v reflect.Value) error {
	lit, b := "false", false
	if c == 't' {
		lit, b = "true", true
	}
	if err := sc.literal(lit); err != nil || !v.IsValid() {
		return err
	}
	if v.Type() == typeCapability {
		v.SetUint(uint64(CapabilityFromBool(b)))
		return nil
	}
	v.SetBool(b)
	return nil
}

// decodeRaw keeps a raw member in encoding/json's compact form.
func (sc *scanner) decodeRaw(v reflect.Value) error {
	start := sc.pos
	if err := sc.skipValue(); err != nil || !v.IsValid() {
		return err
	}
	v.SetBytes(compactRaw(sc.data[start:sc.pos]))
	return nil
}

// compactRaw returns a copy of raw as json.Marshal writes a
// json.RawMessage. Bytes with no white space and nothing json.Marshal
// escapes (<, >, & and the lead byte of U+2028/U+2029) are already in
// that form.
func compactRaw(raw []byte) []byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xe2:
			return canonicalRaw(raw)
		}
	}
	return append([]byte(nil), raw...)
}

// canonicalRaw returns raw, which the walker accepted, as json.Marshal
// writes a json.RawMessage.
func canonicalRaw(raw []byte) []byte {
	out, err := json.Marshal(json.RawMessage(raw))
	if err != nil {
		return raw // Marshal cannot fail on JSON the walker accepted
	}
	return out
}

// decodeObject walks a struct: exact member names, no repeats, required
// members present; unknown members are skipped where the schema ignores
// them.
func (sc *scanner) decodeObject(s *schema, v reflect.Value) error {
	sc.pos++ // '{'
	var seen uint64
	next := 0
	depth := sc.n
	sc.push(pathSegment{})
	for first := true; ; first = false {
		sc.skipSpace()
		if sc.pos < len(sc.data) && sc.data[sc.pos] == '}' && first {
			sc.pos++
			break
		}
		key, err := sc.decodeMemberName()
		if err != nil {
			return err
		}
		i := findField(s.fields, key, next)
		if i < 0 && s.ignoreUnknown {
			if err := sc.skipUnknown(s, key); err != nil {
				return err
			}
		} else {
			if i < 0 {
				return sc.unknownMember(s, key)
			}
			if err := sc.decodeMember(s, i, seen, v); err != nil {
				return err
			}
			seen |= 1 << i
			next = i + 1
		}
		if done, err := sc.endMember('}'); done || err != nil {
			if err != nil {
				return err
			}
			break
		}
	}
	sc.n = depth
	for i := range s.fields {
		if s.fields[i].required && seen&(1<<i) == 0 {
			sc.push(pathSegment{field: s.fields[i].name})
			return sc.fail(ErrMissingField, "")
		}
	}
	return nil
}

// decodeMember reads the value of member i of struct s into v (when
// valid).
func (sc *scanner) decodeMember(s *schema, i int, seen uint64, v reflect.Value) error {
	f := &s.fields[i]
	sc.set(pathSegment{field: f.name})
	if seen&(1<<i) != 0 {
		return sc.fail(ErrDuplicateField, "")
	}
	if f.emptyOmitted && sc.emptyComposite(f.schema.kind) {
		if f.emptyAbsent {
			return sc.skipValue() // the member stays absent
		}
		return sc.fail(ErrInvalid, "explicit empty "+f.name+": omit the member")
	}
	var fv reflect.Value
	switch {
	case !v.IsValid():
	case len(f.index) == 1:
		fv = v.Field(f.index[0])
	default:
		fv = v.FieldByIndex(f.index) // through an embedded struct
	}
	if f.lenient {
		return sc.decodeLenient(f.schema, fv)
	}
	if err := sc.decodeValue(f.schema, f.nullable, fv); err != nil || !fv.IsValid() {
		return err
	}
	// An optional collection that decoded empty is omitted by Encode, so
	// its canonical value is nil (an empty base64 string, in practice).
	if !f.required && (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.Len() == 0 {
		fv.SetZero()
	}
	return nil
}

// decodeLenient reads a wire:"lenient" member: any well-formed JSON value
// is accepted; a string member keeps a string value and an integer member
// an integer literal that fits it, and any other value leaves the zero
// value (the payload type's finish step then normalises it, as
// ClassifyEngineError does for the error run event).
func (sc *scanner) decodeLenient(s *schema, v reflect.Value) error {
	sc.skipSpace()
	start := sc.pos
	if err := sc.skipValue(); err != nil {
		return err
	}
	tok := sc.data[start:sc.pos]
	if !v.IsValid() {
		return nil
	}
	switch s.kind {
	case kindString:
		if tok[0] == '"' {
			raw := tok[1 : len(tok)-1]
			v.SetString(stringOf(raw, bytes.IndexByte(raw, '\\') >= 0))
		}
	case kindInt:
		negative := tok[0] == '-'
		if tokenKind(tok[0]) == kindFloat && bytes.IndexAny(tok, ".eE") < 0 && integerFits(tok, negative, s) {
			if negative {
				v.SetInt(-int64(digitsValue(tok[1:])))
			} else {
				v.SetInt(int64(digitsValue(tok)))
			}
		}
	default:
		assert.That(false, "wire: lenient member of JSON type %s", s.kind)
	}
	return nil
}

// decodeMap walks an object with free member names (repeats rejected),
// storing each entry.
func (sc *scanner) decodeMap(s *schema, v reflect.Value) error {
	sc.pos++
	depth := sc.n
	sc.push(pathSegment{})
	var m reflect.Value
	if v.IsValid() {
		m = reflect.MakeMap(v.Type())
		v.Set(m)
	}
	var keys keySet
	for first := true; ; first = false {
		sc.skipSpace()
		if sc.pos < len(sc.data) && sc.data[sc.pos] == '}' && first {
			sc.pos++
			break
		}
		key, err := sc.decodeMemberName()
		if err != nil {
			return err
		}
		sc.set(pathSegment{key: key})
		if keys.add(key) {
			return sc.fail(ErrDuplicateField, "")
		}
		var ev reflect.Value
		if m.IsValid() {
			ev = reflect.New(m.Type().Elem()).Elem()
		}
		if err := sc.decodeValue(s.elem, false, ev); err != nil {
			return err
		}
		if m.IsValid() {
			m.SetMapIndex(reflect.ValueOf(string(key)).Convert(m.Type().Key()), ev)
		}
		if done, err := sc.endMember('}'); done || err != nil {
			if err != nil {
				return err
			}
			break
		}
	}
	sc.n = depth
	return nil
}

// decodeArray walks an array, storing each element; an empty array
// decodes to an empty, non-nil slice as with encoding/json.
func (sc *scanner) decodeArray(s *schema, v reflect.Value) error {
	sc.pos++
	depth := sc.n
	sc.push(pathSegment{})
	if v.IsValid() {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	for i := 0; ; i++ {
		sc.skipSpace()
		if sc.pos < len(sc.data) && sc.data[sc.pos] == ']' && i == 0 {
			sc.pos++
			break
		}
		sc.set(pathSegment{index: i, isIdx: true})
		var ev reflect.Value
		if v.IsValid() {
			if i == v.Cap() {
				v.Grow(max(4, i))
			}
			v.SetLen(i + 1)
			ev = v.Index(i)
		}
		if err := sc.decodeValue(s.elem, false, ev); err != nil {
			return err
		}
		if done, err := sc.endMember(']'); done || err != nil {
			if err != nil {
				return err
			}
			break
		}
	}
	sc.n = depth
	return nil
}

// decodeBase64 walks a standard padded base64 string, storing the bytes.
func (sc *scanner) decodeBase64(v reflect.Value) error {
	if !v.IsValid() {
		return sc.base64()
	}
	if b, ok := sc.plainBase64(); ok {
		v.SetBytes(b)
		return nil
	}
	start := sc.pos
	if err := sc.base64(); err != nil {
		return err
	}
	tok := sc.data[start:sc.pos]
	raw := tok[1 : len(tok)-1]
	escaped := false
	for _, c := range raw {
		if c == '\\' {
			escaped = true
			break
		}
	}
	b, err := base64.StdEncoding.DecodeString(stringOf(raw, escaped))
	if err != nil {
		return sc.fail(ErrWrongType, "want base64 string")
	}
	v.SetBytes(b)
	return nil
}

// decodeNumber walks a number that fits the schema's Go type, storing
// it.
func (sc *scanner) decodeNumber(s *schema, v reflect.Value) error {
	start := sc.pos
	if err := sc.number(s); err != nil || !v.IsValid() {
		return err
	}
	lit := sc.data[start:sc.pos]
	switch s.kind {
	case kindFloat:
		f, err := strconv.ParseFloat(string(lit), s.bits)
		if err != nil {
			return sc.fail(ErrWrongType, "number out of range")
		}
		v.SetFloat(f)
	case kindUint:
		v.SetUint(digitsValue(lit))
	default:
		if lit[0] == '-' {
			v.SetInt(-int64(digitsValue(lit[1:])))
		} else {
			v.SetInt(int64(digitsValue(lit)))
		}
	}
	return nil
}

// digitsValue reads decimal digits the scanner has checked to fit.
func digitsValue(lit []byte) uint64 {
	var n uint64
	for _, c := range lit {
		n = n*10 + uint64(c-'0')
	}
	return n
}

// stringOf converts the content of a scanned string token (valid UTF-8,
// valid escapes, no lone surrogate: the scanner checked) to a Go string.
func stringOf(raw []byte, escaped bool) string {
	if !escaped {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch raw[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4At(raw, i+2)
			i += 6
			if utf16.IsSurrogate(r) {
				r = utf16.DecodeRune(r, hex4At(raw, i+2))
				i += 6
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return string(out)
}

func hex4At(b []byte, i int) rune {
	var r rune
	for _, h := range b[i : i+4] {
		r = r<<4 | rune(hexVal(h))
	}
	return r
}

// onePass decodes raw into a new value of the payload type.
func (mt *messageType) onePass(raw []byte) (Payload, error) {
	pv := reflect.New(mt.typ)
	sc := newScanner(raw, mt.name)
	if err := sc.decodeInto(mt.schema, pv.Elem()); err != nil {
		return nil, err
	}
	return mt.finished(pv.Elem().Interface().(Payload)), nil
}

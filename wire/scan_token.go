package wire

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// str scans a JSON string starting at '"'. It returns the raw content
// between the quotes and whether it contains escapes.
func (sc *scanner) str() ([]byte, bool, error) {
	sc.pos++ // opening quote
	start := sc.pos
	escaped := false
	for sc.pos < len(sc.data) {
		c := sc.data[sc.pos]
		switch {
		case c == '"':
			raw := sc.data[start:sc.pos]
			sc.pos++
			return raw, escaped, nil
		case c == '\\':
			escaped = true
			if err := sc.escape(); err != nil {
				return nil, false, err
			}
		case c < 0x20:
			return nil, false, sc.syntax("control character in string")
		case c >= utf8.RuneSelf && !sc.anyUTF8:
			r, size := utf8.DecodeRune(sc.data[sc.pos:])
			if r == utf8.RuneError && size == 1 {
				return nil, false, sc.fail(ErrInvalidUTF8, fmt.Sprintf("at offset %d", sc.pos))
			}
			sc.pos += size
		default:
			sc.pos++
		}
	}
	return nil, false, sc.syntax("unterminated string")
}

func (sc *scanner) escape() error {
	if sc.pos+1 >= len(sc.data) {
		return sc.syntax("unterminated escape")
	}
	switch sc.data[sc.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		sc.pos += 2
		return nil
	case 'u':
		r, ok := sc.hex4(sc.pos)
		if !ok {
			return sc.syntax("invalid unicode escape")
		}
		sc.pos += 6
		if r < 0xd800 || r > 0xdfff || sc.anyUTF8 {
			return nil
		}
		// A surrogate must be a high one followed by an escaped low one;
		// a lone surrogate is not a Unicode scalar value.
		if low, ok := sc.hex4(sc.pos); r <= 0xdbff && ok && low >= 0xdc00 && low <= 0xdfff {
			sc.pos += 6
			return nil
		}
		return sc.fail(ErrInvalidUTF8, fmt.Sprintf("lone surrogate escape at offset %d", sc.pos-6))
	}
	return sc.syntax("invalid escape")
}

// hex4 reads the escape `\uXXXX` at i, reporting false when it is not
// one.
func (sc *scanner) hex4(i int) (rune, bool) {
	if i+6 > len(sc.data) || sc.data[i] != '\\' || sc.data[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, h := range sc.data[i+2 : i+6] {
		if !isHex(h) {
			return 0, false
		}
		r = r<<4 | rune(hexVal(h))
	}
	return r, true
}

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipValue scans any JSON value, checking only its syntax.
func (sc *scanner) skipValue() error {
	sc.skipSpace()
	if sc.pos >= len(sc.data) {
		return sc.syntax("unexpected end of input")
	}
	switch c := sc.data[sc.pos]; {
	case c == '{':
		return sc.skipComposite('}')
	case c == '[':
		return sc.skipComposite(']')
	case c == '"':
		_, _, err := sc.str()
		return err
	case c == 't':
		return sc.literal("true")
	case c == 'f':
		return sc.literal("false")
	case c == 'n':
		return sc.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		_, _, err := sc.numberToken()
		return err
	}
	return sc.syntax("unexpected character")
}

// skipComposite scans an object or array of arbitrary values. Depth is
// bounded so hostile nesting cannot exhaust the stack.
func (sc *scanner) skipComposite(closing byte) error {
	sc.pos++
	if sc.depth >= nestingMax {
		return sc.fail(ErrTooLarge, "nesting too deep")
	}
	sc.depth++
	defer func() { sc.depth-- }()
	var keys keySet
	for first := true; ; first = false {
		sc.skipSpace()
		if first && sc.pos < len(sc.data) && sc.data[sc.pos] == closing {
			sc.pos++
			return nil
		}
		if closing == '}' {
			key, err := sc.memberName()
			if err != nil {
				return err
			}
			if !sc.anyDup && keys.add(key) {
				return sc.fail(ErrDuplicateField, fmt.Sprintf("repeated member %q inside the value", truncateForError(string(key))))
			}
		}
		if err := sc.skipValue(); err != nil {
			return err
		}
		done, err := sc.endMember(closing)
		if err != nil || done {
			return err
		}
	}
}

// nestingMax bounds JSON nesting inside raw members.
const nestingMax = 200

// numberToken scans a JSON number and reports whether it is an integer
// literal (no fraction, no exponent) and whether it is negative.
func (sc *scanner) numberToken() (integer, negative bool, err error) {
	d := sc.data
	i := sc.pos
	if i < len(d) && d[i] == '-' {
		negative = true
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		sc.pos = i
		return false, false, sc.syntax("invalid number")
	}
	integer = true
	if i < len(d) && d[i] == '.' {
		integer = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			sc.pos = i
			return false, false, sc.syntax("invalid number")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integer = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			sc.pos = i
			return false, false, sc.syntax("invalid number")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	sc.pos = i
	return integer, negative, nil
}

// number scans a number and checks it fits the schema's Go type.
func (sc *scanner) number(s *schema) error {
	start := sc.pos
	integer, negative, err := sc.numberToken()
	if err != nil {
		return err
	}
	lit := sc.data[start:sc.pos]
	switch s.kind {
	case kindFloat:
		if _, err := strconv.ParseFloat(string(lit), s.bits); err != nil {
			return sc.fail(ErrWrongType, "number out of range")
		}
		return nil
	case kindUint:
		if negative {
			return sc.fail(ErrWrongType, "want unsigned integer")
		}
	}
	if !integer {
		return sc.fail(ErrWrongType, "want integer")
	}
	if !integerFits(lit, negative, s) {
		return sc.fail(ErrWrongType, "integer out of range")
	}
	return nil
}

// integerFits parses an integer literal without allocating.
func integerFits(lit []byte, negative bool, s *schema) bool {
	if negative {
		lit = lit[1:]
	}
	var v uint64
	for _, c := range lit {
		d := uint64(c - '0')
		if v > (^uint64(0)-d)/10 {
			return false
		}
		v = v*10 + d
	}
	if s.kind == kindUint {
		return s.bits == 64 || v < 1<<s.bits
	}
	limit := uint64(1) << (s.bits - 1)
	if negative {
		return v <= limit
	}
	return v < limit
}

// base64 checks a standard padded base64 string.
func (sc *scanner) base64() error {
	raw, escaped, err := sc.str()
	if err != nil {
		return err
	}
	if escaped {
		raw = []byte(stringOf(raw, true))
	}
	if !validBase64(raw) {
		return sc.fail(ErrWrongType, "want base64 string")
	}
	return nil
}

func validBase64(b []byte) bool {
	if len(b)%4 != 0 {
		return false
	}
	pad := 0
	for i := len(b) - 1; i >= 0 && pad < 3 && b[i] == '='; i-- {
		pad++
	}
	if pad > 2 {
		return false
	}
	for _, c := range b[:len(b)-pad] {
		ok := (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'
		if !ok {
			return false
		}
	}
	return true
}

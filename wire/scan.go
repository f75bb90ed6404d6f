package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// pathSegment is one step of a field path: a member name or an array index.
type pathSegment struct {
	field string // schema member name
	key   []byte // raw member name of a map or an unknown member
	index int
	isIdx bool
}

// scanner walks raw JSON against a schema (decode_value.go), building the
// Go value or, given no value, only checking the JSON. Checking allocates
// only when it reports an error (or meets an escaped member name).
type scanner struct {
	data  []byte
	pos   int
	root  string                       // path root, normally the type string
	segs  [pathSegmentsMax]pathSegment // path of the value being scanned
	n     int                          // path length (may exceed pathSegmentsMax)
	depth int                          // nesting inside raw members
	// anyDup accepts repeated member names inside raw values (the
	// envelope scan, whose payload is scanned again strictly).
	anyDup bool
	// anyUTF8 accepts invalid UTF-8 in strings (the envelope trace, which
	// is dropped unless it is a valid traceparent).
	anyUTF8 bool
}

// pathSegmentsMax bounds the recorded path; deeper segments are scanned
// but not named. The array lives inside the scanner so that scanning does
// not allocate.
const pathSegmentsMax = 16

func (sc *scanner) push(seg pathSegment) {
	if sc.n < pathSegmentsMax {
		sc.segs[sc.n] = seg
	}
	sc.n++
}

// set replaces the innermost segment.
func (sc *scanner) set(seg pathSegment) {
	if sc.n-1 < pathSegmentsMax {
		sc.segs[sc.n-1] = seg
	}
}

func newScanner(data []byte, root string) scanner {
	return scanner{data: data, root: root}
}

// pathString renders the current path, e.g. execution_start.input[0].content[1].text.
func (sc *scanner) pathString() string {
	var b strings.Builder
	b.WriteString(sc.root)
	for _, p := range sc.segs[:min(sc.n, pathSegmentsMax)] {
		if p.isIdx {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(p.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if p.key != nil {
			b.WriteString(truncateForError(string(p.key)))
		} else {
			b.WriteString(p.field)
		}
	}
	return b.String()
}

func (sc *scanner) fail(kind error, detail string) error {
	p := sc.pathString()
	if p == "" {
		p = "payload"
	}
	if detail == "" {
		return fmt.Errorf("%w: %s", kind, p)
	}
	return fmt.Errorf("%w: %s: %s", kind, p, detail)
}

func (sc *scanner) syntax(what string) error {
	return sc.fail(ErrSyntax, fmt.Sprintf("%s at offset %d", what, sc.pos))
}

// spaceBlock is a run of spaces that padding is compared against.
var spaceBlock = [512]byte(bytes.Repeat([]byte{' '}, 512))

func (sc *scanner) skipSpace() {
	if sc.pos < len(sc.data) && sc.data[sc.pos] > ' ' {
		return
	}
	// A long run of spaces (padding) is skipped a block, then eight bytes,
	// at a time.
	for sc.pos+len(spaceBlock) <= len(sc.data) && bytes.Equal(sc.data[sc.pos:sc.pos+len(spaceBlock)], spaceBlock[:]) {
		sc.pos += len(spaceBlock)
	}
	for sc.pos+8 <= len(sc.data) && binary.LittleEndian.Uint64(sc.data[sc.pos:]) == 0x2020202020202020 {
		sc.pos += 8
	}
	for sc.pos < len(sc.data) && isSpace(sc.data[sc.pos]) {
		sc.pos++
	}
}

// tokenKind classifies the first byte of a JSON value.
func tokenKind(c byte) jsonKind {
	switch {
	case c == '{':
		return kindStruct
	case c == '[':
		return kindArray
	case c == '"':
		return kindString
	case c == 't' || c == 'f':
		return kindBool
	case c == '-' || (c >= '0' && c <= '9'):
		return kindFloat
	}
	return 0
}

func kindAccepts(want, got jsonKind) bool {
	switch want {
	case kindStruct, kindMap, kindRawObject:
		return got == kindStruct
	case kindString, kindBytes:
		return got == kindString
	case kindInt, kindUint, kindFloat:
		return got == kindFloat
	}
	return want == got
}

func (sc *scanner) literal(lit string) error {
	if len(sc.data)-sc.pos < len(lit) || string(sc.data[sc.pos:sc.pos+len(lit)]) != lit {
		return sc.syntax("invalid literal")
	}
	sc.pos += len(lit)
	return nil
}

// skipUnknown skips the value of an ignored unknown member. A name
// that differs from a member's only in case is rejected instead: the
// upstream decoder matches names case-insensitively and would read it as
// that member, so ignoring it would read the frame differently.
func (sc *scanner) skipUnknown(s *schema, key []byte) error {
	if f := foldedField(s.fields, key); f != "" {
		sc.set(pathSegment{key: key})
		return sc.fail(ErrUnknownField, "differs from member "+f+" only in case")
	}
	return sc.skipValue()
}

// foldedField returns the member name that key equals apart from case.
func foldedField(fields []schemaField, key []byte) string {
	for i := range fields {
		if len(fields[i].name) == len(key) && strings.EqualFold(fields[i].name, string(key)) {
			return fields[i].name
		}
	}
	return ""
}

func (sc *scanner) unknownMember(s *schema, key []byte) error {
	if s.withhold {
		sc.n--
		return sc.fail(ErrUnknownField, "member name withheld")
	}
	sc.set(pathSegment{key: key})
	return sc.fail(ErrUnknownField, "")
}

// findField looks for key, trying the member after the previous one first
// because encoders usually keep declaration order.
func findField(fields []schemaField, key []byte, next int) int {
	if next < len(fields) && fields[next].name == string(key) {
		return next
	}
	for i := range fields {
		if fields[i].name == string(key) {
			return i
		}
	}
	return -1
}

// memberName reads `"name" :` and returns the unescaped name.
func (sc *scanner) memberName() ([]byte, error) {
	sc.skipSpace()
	if sc.pos >= len(sc.data) || sc.data[sc.pos] != '"' {
		return nil, sc.syntax("expected member name")
	}
	raw, escaped, err := sc.str()
	if err != nil {
		return nil, err
	}
	// A name read with anyUTF8 (inside a skipped envelope value, where
	// anyDup holds too) is never compared, and may hold a lone surrogate
	// escape that stringOf does not take.
	if escaped && !sc.anyUTF8 {
		raw = []byte(stringOf(raw, true))
	}
	sc.skipSpace()
	if sc.pos >= len(sc.data) || sc.data[sc.pos] != ':' {
		return nil, sc.syntax("expected ':'")
	}
	sc.pos++
	return raw, nil
}

// endMember consumes ',' (more follows) or the closing byte (done).
func (sc *scanner) endMember(closing byte) (bool, error) {
	sc.skipSpace()
	if sc.pos >= len(sc.data) {
		return false, sc.syntax("unexpected end of input")
	}
	switch sc.data[sc.pos] {
	case ',':
		sc.pos++
		return false, nil
	case closing:
		sc.pos++
		return true, nil
	}
	return false, sc.syntax("expected ',' or closing bracket")
}

// emptyComposite reports whether the next value is an empty object or
// array. It consumes only white space.
func (sc *scanner) emptyComposite(k jsonKind) bool {
	sc.skipSpace()
	if sc.pos >= len(sc.data) {
		return false
	}
	// Only an empty value of the member's own JSON type is an explicit
	// empty; `[]` where an object belongs is a wrong type, reported by the
	// value scan.
	var closing byte
	switch open := sc.data[sc.pos]; {
	case open == '{' && k.String() == "object":
		closing = '}'
	case open == '[' && k.String() == "array":
		closing = ']'
	default:
		return false
	}
	i := sc.pos + 1
	for i < len(sc.data) && isSpace(sc.data[i]) {
		i++
	}
	return i < len(sc.data) && sc.data[i] == closing
}

// keySet records the member names of one object to find repeats. Small
// objects use a list; large ones switch to a map so that hostile frames
// cannot make the check quadratic.
type keySet struct {
	list [][]byte
	m    map[string]struct{}
}

// keySetListMax is the size at which a keySet switches to a map.
const keySetListMax = 16

// add records key and reports whether it was already present.
func (k *keySet) add(key []byte) bool {
	if k.m != nil {
		if _, ok := k.m[string(key)]; ok {
			return true
		}
		k.m[string(key)] = struct{}{}
		return false
	}
	for _, x := range k.list {
		if string(x) == string(key) {
			return true
		}
	}
	k.list = append(k.list, key)
	if len(k.list) > keySetListMax {
		k.m = make(map[string]struct{}, 2*len(k.list))
		for _, x := range k.list {
			k.m[string(x)] = struct{}{}
		}
	}
	return false
}

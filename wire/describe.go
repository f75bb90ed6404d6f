package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Describe bounds.
const (
	describeBytesMax = 400 // whole line
	describeValueMax = 48  // one string value
)

// redacted lists members whose values never appear in a description:
// credentials, environment values and user answers (which may be secret).
var redacted = map[string]bool{"bearer_token": true, "env": true, "answers": true}

var typeMessageInput = reflect.TypeFor[MessageInput]()

// Describe renders a frame as one stable line for traces and golden files,
// e.g. `execution_start id=prepare executor_id=e handle=h run_id=r input=[1 msg, 5 B]`.
// Members appear in declaration order; zero values are left out; strings
// are truncated; bytes and raw JSON appear as sizes; maps as sorted keys;
// secrets never appear. The line is at most 400 bytes.
func Describe(f Frame) string {
	if f.Payload == nil {
		return "<nil>"
	}
	var b strings.Builder
	b.WriteString(f.Payload.MessageType())
	if f.ID != "" {
		b.WriteString(" id=")
		writeScalar(&b, f.ID)
	}
	if d, ok := f.Payload.(directDescriber); ok {
		d.describeMembers(&b)
	} else {
		describeStruct(&b, reflect.ValueOf(f.Payload), false)
	}
	s := b.String()
	if len(s) > describeBytesMax {
		s = cutRunes(s, describeBytesMax-len("…")) + "…"
	}
	return s
}

// DescribePayload renders a payload's members as Describe does, without
// the type and envelope ID and in braces, as Describe renders a nested
// struct, e.g. `{handle=h run_id=r}`; "-" for nil. Traces
// that already name the type (a native event, a settlement outcome) use it.
func DescribePayload(p Payload) string {
	if p == nil {
		return "-"
	}
	var b strings.Builder
	b.WriteByte('{')
	describeStruct(&b, reflect.ValueOf(p), true)
	if b.Len() > describeBytesMax {
		return cutRunes(b.String(), describeBytesMax-len("…}")) + "…}"
	}
	b.WriteByte('}')
	return b.String()
}

// DescribeDecoded renders a frame b as it was decoded: Describe(f), or the
// decoding error when there is one. Simulated traces render every frame
// they carry with it.
func DescribeDecoded(b []byte, f Frame, err error) string {
	if err != nil {
		return fmt.Sprintf("undecodable %dB: %v", len(b), err)
	}
	return Describe(f)
}

// describeStruct writes ` name=value` for every non-zero member.
func describeStruct(b *strings.Builder, v reflect.Value, nested bool) {
	first := true
	for _, df := range describeFieldsOf(v.Type()) {
		fv := v.Field(df.index)
		if df.embedded {
			describeStruct(b, fv, nested)
			continue
		}
		name := df.name
		if name == "" || skipZero(fv) {
			continue
		}
		if !nested || !first {
			b.WriteByte(' ')
		}
		first = false
		if name == "id" && !nested {
			name = "payload.id" // keep it apart from the envelope id
		}
		b.WriteString(name)
		b.WriteByte('=')
		if redacted[name] {
			b.WriteString("<redacted>")
			continue
		}
		describeValue(b, fv)
	}
}

// skipZero leaves out zero members, except non-nil pointers and slices,
// which carry meaning (an empty completed text, an explicit `[]`).
func skipZero(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return v.IsNil()
	}
	return v.IsZero()
}

func describeValue(b *strings.Builder, v reflect.Value) {
	switch {
	case v.Type() == typeMessageInput:
		describeInput(b, v.Interface().(MessageInput))
		return
	case v.Type() == typeCapability:
		b.WriteString(v.Interface().(CapabilitySupport).String())
		return
	case v.Type() == typeRawMessage || (v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8):
		b.WriteString("<" + strconv.Itoa(v.Len()) + " B>")
		return
	case v.Type() == typeCaps:
		describeCaps(b, v.Interface().(AgentKindCapabilities))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		describeValue(b, v.Elem())
	case reflect.String:
		writeScalar(b, v.String())
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Struct:
		b.WriteByte('{')
		describeStruct(b, v, true)
		b.WriteByte('}')
	case reflect.Slice:
		describeSlice(b, v)
	case reflect.Map:
		describeMap(b, v)
	}
}

// describeSlice renders up to three elements, then a count.
func describeSlice(b *strings.Builder, v reflect.Value) {
	const shown = 3
	b.WriteByte('[')
	for i := 0; i < v.Len() && i < shown; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		describeValue(b, v.Index(i))
	}
	if v.Len() > shown {
		b.WriteString(" +" + strconv.Itoa(v.Len()-shown))
	}
	b.WriteByte(']')
}

// describeMap renders the sorted keys only.
func describeMap(b *strings.Builder, v reflect.Value) {
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeScalar(b, k)
	}
	b.WriteByte('}')
}

func describeInput(b *strings.Builder, in MessageInput) {
	textBytes, images := 0, 0
	for _, m := range in {
		for _, p := range m.Content {
			if p.Text != nil {
				textBytes += len(*p.Text)
			}
			if p.Type == ContentInputImage {
				images++
			}
		}
	}
	b.WriteString("[" + strconv.Itoa(len(in)) + " msg, " + strconv.Itoa(textBytes) + " B")
	if images > 0 {
		b.WriteString(", " + strconv.Itoa(images) + " img")
	}
	b.WriteByte(']')
}

// describeCaps renders a declaration as counts, e.g. `10/30 supported`.
func describeCaps(b *strings.Builder, c AgentKindCapabilities) {
	supported, undecided := 0, 0
	fields := c.fieldArray()
	for i := range fields {
		switch *fields[i].Value {
		case CapabilitySupported:
			supported++
		case CapabilityUnspecified:
			undecided++
		}
	}
	b.WriteString(strconv.Itoa(supported) + "/" + strconv.Itoa(len(fields)) + " supported")
	if undecided > 0 {
		b.WriteString(", " + strconv.Itoa(undecided) + " unspecified")
	}
}

// writeScalar writes s bare when it is short and plain, otherwise quoted;
// long values are truncated.
func writeScalar(b *strings.Builder, s string) {
	cut := false
	if len(s) > describeValueMax {
		s, cut = cutRunes(s, describeValueMax), true
	}
	plain := s != ""
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("._:/-@+", c) >= 0
	}
	if plain {
		b.WriteString(s)
	} else {
		q, _ := json.Marshal(s)
		b.Write(q)
	}
	if cut {
		b.WriteString("…")
	}
}

// cutRunes returns at most n bytes of s without splitting a UTF-8 sequence.
func cutRunes(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// jsonKind is the JSON shape a schema node accepts.
type jsonKind uint8

const (
	kindString jsonKind = iota + 1
	kindBool
	kindInt
	kindUint
	kindFloat
	kindBytes     // base64 string
	kindRaw       // any JSON value
	kindRawObject // a JSON object kept raw
	kindStruct
	kindArray
	kindMap
)

func (k jsonKind) String() string {
	switch k {
	case kindString, kindBytes:
		return "string"
	case kindBool:
		return "boolean"
	case kindInt, kindUint, kindFloat:
		return "number"
	case kindStruct, kindMap, kindRawObject:
		return "object"
	case kindArray:
		return "array"
	default:
		return "value"
	}
}

// schemaField is one JSON member of a struct schema.
type schemaField struct {
	name     string
	required bool // json tag without ",omitempty"
	nullable bool // wire:"nullable"
	lenient  bool // wire:"lenient": any JSON value, checked after decoding
	// emptyOmitted marks an optional non-pointer slice or map: the
	// canonical encoding omits it when empty, so an explicit {} or [] is
	// rejected rather than read as absent (wire-reference §3.2).
	emptyOmitted bool
	// emptyAbsent (wire:"emptyabsent") reads an explicit empty value of
	// an emptyOmitted member as the member's absence instead of refusing
	// it: for members where a peer may send {} for "none" and no presence
	// rule depends on the difference (agent_options).
	emptyAbsent bool
	schema      *schema
	index       []int // reflect field index (through embedded structs)
}

// schema describes the JSON accepted for one Go type. It is derived once per
// type from struct tags and is read-only afterwards.
type schema struct {
	kind     jsonKind
	bits     int // integer width for kindInt/kindUint
	fields   []schemaField
	elem     *schema // kindArray, kindMap
	withhold bool    // never echo unknown member names (capability declarations)
	// ignoreUnknown skips unknown members instead of rejecting them. It
	// holds for every struct except the strict payload types of
	// wire-reference §1 and the structs inside them (strictTypes).
	ignoreUnknown bool
}

// structFieldsMax bounds the members of one struct: presence is tracked in
// a uint64 bit set.
const structFieldsMax = 64

var (
	typeRawMessage = reflect.TypeFor[json.RawMessage]()
	typeCapability = reflect.TypeFor[CapabilitySupport]()
	typeCaps       = reflect.TypeFor[AgentKindCapabilities]()
	// strictRoots are the strict payload types of wire-reference §1: the
	// capability object, the user-choice decision, tool_call and the
	// directory result. They and every struct inside them reject unknown
	// members (encoding/json's DisallowUnknownFields holds at every
	// depth); every other struct ignores unknown members, as the D-era
	// decoders do. A struct type used both inside and outside a strict
	// root (a content part in a tool observation and in a Run input) gets
	// one schema for each context.
	strictRoots = []reflect.Type{typeCaps, reflect.TypeFor[UserChoiceDecision](),
		reflect.TypeFor[ToolCall](), reflect.TypeFor[WorkspaceDirectoryResult]()}
)

// schemaKey is a Go type read in a strict or a lenient context.
type schemaKey struct {
	t      reflect.Type
	strict bool
}

// schemaCache is filled during package initialisation only (registry.go).
var schemaCache = map[schemaKey]*schema{}

// schemaOf is the schema of t read in a lenient context (inside a strict
// root, schemaIn(t, true)).
func schemaOf(t reflect.Type) *schema { return schemaIn(t, false) }

func schemaIn(t reflect.Type, strict bool) *schema {
	strict = strict || slices.Contains(strictRoots, t)
	key := schemaKey{t, strict}
	if s, ok := schemaCache[key]; ok {
		return s
	}
	s := &schema{}
	schemaCache[key] = s
	switch {
	case t == typeCapability:
		s.kind = kindBool
	case t == typeRawMessage:
		s.kind = kindRaw
	case t.Kind() == reflect.Pointer:
		*s = *schemaIn(t.Elem(), strict)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		s.kind = kindBytes
	case t.Kind() == reflect.Slice:
		s.kind, s.elem = kindArray, schemaIn(t.Elem(), strict)
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		s.kind, s.elem = kindMap, schemaIn(t.Elem(), strict)
	case t.Kind() == reflect.Struct:
		s.kind = kindStruct
		s.withhold = t == typeCaps
		s.ignoreUnknown = !strict
		s.fields = structFields(t, nil, nil, strict)
		assert.That(len(s.fields) <= structFieldsMax, "wire: struct %s has too many fields", t)
	default:
		s.kind, s.bits = scalarKind(t)
	}
	return s
}

func scalarKind(t reflect.Type) (jsonKind, int) {
	switch t.Kind() {
	case reflect.String:
		return kindString, 0
	case reflect.Bool:
		return kindBool, 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kindInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kindUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		return kindFloat, t.Bits()
	}
	panic(fmt.Sprintf("wire: no JSON schema for %s", t))
}

// structFields lists the JSON members of t, flattening embedded structs
// that carry no json tag (UsageUpdate embeds Usage).
func structFields(t reflect.Type, out []schemaField, prefix []int, strict bool) []schemaField {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		index := append(append([]int(nil), prefix...), i)
		if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
			out = structFields(f.Type, out, index, strict)
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		sf := schemaField{name: name, required: !hasOption(opts, "omitempty"), schema: schemaIn(f.Type, strict), index: index}
		wireTag := f.Tag.Get("wire")
		sf.nullable = hasOption(wireTag, "nullable")
		sf.lenient = hasOption(wireTag, "lenient")
		k := f.Type.Kind()
		sf.emptyOmitted = !sf.required && (k == reflect.Map || (k == reflect.Slice && f.Type.Elem().Kind() != reflect.Uint8))
		sf.emptyAbsent = hasOption(wireTag, "emptyabsent")
		assert.That(!sf.emptyAbsent || sf.emptyOmitted, "wire: emptyabsent tag on %s, which is not an optional map or slice", f.Name)
		if hasOption(wireTag, "object") {
			assert.That(sf.schema.kind == kindRaw, "wire: object tag on %s", f.Name)
			sf.schema = rawObjectSchema
		}
		out = append(out, sf)
	}
	return out
}

var rawObjectSchema = &schema{kind: kindRawObject}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

package wire

import (
	"reflect"
	"strings"
)

// describeField is what describeStruct needs of one struct field, worked
// out once per type instead of on every rendered frame.
type describeField struct {
	index    int
	name     string // json member name; "" for a field never described
	embedded bool   // an untagged embedded struct, described in place
}

// describeFieldsCache holds the fields of every struct type reachable from
// a registered payload. It is filled during package initialisation
// (register) and read-only afterwards.
var describeFieldsCache = map[reflect.Type][]describeField{}

// markDescribe fills describeFieldsCache for t and the types inside it.
func markDescribe(t reflect.Type) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		markDescribe(t.Elem())
	case reflect.Struct:
		if _, ok := describeFieldsCache[t]; ok {
			return
		}
		fields := fieldsOf(t)
		describeFieldsCache[t] = fields
		for i := 0; i < t.NumField(); i++ {
			markDescribe(t.Field(i).Type)
		}
	}
}

func fieldsOf(t reflect.Type) []describeField {
	out := make([]describeField, t.NumField())
	for i := range out {
		sf := t.Field(i)
		out[i].index = i
		tag := sf.Tag.Get("json")
		if sf.Anonymous && tag == "" {
			out[i].embedded = true
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if sf.IsExported() && name != "-" {
			out[i].name = name
		}
	}
	return out
}

// describeFieldsOf returns the fields of t, from the cache when t was
// registered.
func describeFieldsOf(t reflect.Type) []describeField {
	if f, ok := describeFieldsCache[t]; ok {
		return f
	}
	return fieldsOf(t)
}

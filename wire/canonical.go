package wire

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// canonicalize rewrites a freshly decoded value into the form Encode
// produces, so that decoding, encoding and decoding again yields an equal
// value: optional slices and maps that are empty become nil (Encode omits
// them), and raw JSON members take their encoded form (compact, with
// encoding/json's escaping). Decode calls it only when the scanner met a
// raw member or an optional collection.
func canonicalize(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			canonicalize(v.Elem())
		}
	case reflect.Struct:
		t := v.Type()
		if !canonNeeded[t] {
			return
		}
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			fv := v.Field(i)
			_, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
			optional := hasOption(opts, "omitempty")
			if optional && (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.Len() == 0 && !fv.IsNil() {
				fv.SetZero()
				continue
			}
			canonicalize(fv)
		}
	case reflect.Slice:
		if v.Type() == typeRawMessage {
			if v.Len() > 0 {
				v.SetBytes(canonicalRaw(v.Bytes()))
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			canonicalize(v.Index(i))
		}
	case reflect.Map:
		canonicalizeMap(v)
	}
}

// canonicalizeMap handles maps of raw JSON (agent_options); keys are
// visited in sorted order.
func canonicalizeMap(v reflect.Value) {
	if v.Type().Elem() != typeRawMessage {
		return
	}
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	for _, k := range keys {
		kv := reflect.ValueOf(k).Convert(v.Type().Key())
		raw := v.MapIndex(kv).Interface().(json.RawMessage)
		v.SetMapIndex(kv, reflect.ValueOf(json.RawMessage(canonicalRaw(raw))))
	}
}

// canonicalRaw returns raw as json.Marshal writes it.
func canonicalRaw(raw []byte) []byte {
	out, err := json.Marshal(json.RawMessage(raw))
	if err != nil {
		return raw // the scanner accepted it; Marshal cannot fail here
	}
	return out
}

// canonNeeded records, for every struct type reachable from a registered
// payload, whether canonicalize can change it. It is filled during package
// initialisation (register) and read-only afterwards.
var canonNeeded = map[reflect.Type]bool{}

// markCanon computes canonNeeded for t and the types it contains.
func markCanon(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if t == typeRawMessage {
			return true
		}
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return false
		}
		return markCanon(t.Elem())
	case reflect.Struct:
		if need, ok := canonNeeded[t]; ok {
			return need
		}
		canonNeeded[t] = false
		need := false
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			_, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
			k := sf.Type.Kind()
			if hasOption(opts, "omitempty") && (k == reflect.Slice || k == reflect.Map) {
				need = true
			}
			if markCanon(sf.Type) {
				need = true
			}
		}
		canonNeeded[t] = need
		return need
	}
	return false
}

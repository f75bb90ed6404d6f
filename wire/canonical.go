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

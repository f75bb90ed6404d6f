package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// The reference decoder: Decode's result computed another way, as the
// oracle of the differential tests (decode_value_test.go) and the baseline
// of the decode benchmarks. The envelope and the strictness of the payload
// come from the same walk as Decode (in its checking mode); the payload's
// value comes from encoding/json over the same bytes, then canonicalize,
// so every value the walker builds by reflection is held to an
// independent reading.

// decodeReference is Decode through the reference payload path.
func decodeReference(frame []byte) (Frame, error) {
	return decodeFrame(frame, referencePayload)
}

func referencePayload(mt *messageType, raw []byte) (Payload, error) {
	if raw == nil {
		return mt.absentPayload()
	}
	sc := newScanner(raw, mt.name)
	if err := sc.check(mt.schema); err != nil {
		return nil, err
	}
	if mt.name == TypeError {
		return referenceRunError(raw)
	}
	pv := reflect.New(mt.typ)
	if err := json.Unmarshal(raw, pv.Interface()); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	canonicalize(pv.Elem())
	return pv.Elem().Interface().(Payload), nil
}

// referenceRunError reads the error run event as §6.3 states it: `code`
// and `http_status` as any JSON value, a code that is not a string and a
// status that is not one to three digits counting as absent, then
// ClassifyEngineError.
func referenceRunError(raw []byte) (Payload, error) {
	var aux struct {
		Error      string          `json:"error"`
		Code       json.RawMessage `json:"code"`
		HTTPStatus json.RawMessage `json:"http_status"`
	}
	if err := json.Unmarshal(raw, &aux); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	var code string
	if len(aux.Code) > 0 && aux.Code[0] == '"' {
		_ = json.Unmarshal(aux.Code, &code)
	}
	status := 0
	if n := len(aux.HTTPStatus); n > 0 && n <= 3 {
		for _, c := range aux.HTTPStatus {
			if c < '0' || c > '9' {
				status = -1
				break
			}
			status = status*10 + int(c-'0')
		}
	}
	code, status = ClassifyEngineError(code, status)
	return RunError{Error: aux.Error, Code: code, HTTPStatus: status}, nil
}

// canonicalize rewrites a freshly decoded value into the form Encode
// produces, so that decoding, encoding and decoding again yields an equal
// value: optional slices and maps that are empty become nil (Encode omits
// them), and raw JSON members take their encoded form (compact, with
// encoding/json's escaping).
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

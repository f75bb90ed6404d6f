package wire

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// replacementEscape is how encoding/json renders an invalid UTF-8 byte.
var replacementEscape = []byte(`\ufffd`)

// checkUTF8 walks a payload value and names the first string or map key
// that is not valid UTF-8. Raw JSON members are left to the strict scanner
// that Encode runs on its own output.
func checkUTF8(path string, v reflect.Value) error {
	switch v.Kind() {
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return fmt.Errorf("%w: %s", ErrInvalidUTF8, path)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return checkUTF8(path, v.Elem())
		}
	case reflect.Struct:
		return checkStructUTF8(path, v)
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := checkUTF8(path+"["+strconv.Itoa(i)+"]", v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, kv := range keys {
			k := kv.String()
			if !utf8.ValidString(k) {
				return fmt.Errorf("%w: %s: member name", ErrInvalidUTF8, path)
			}
			if err := checkUTF8(path+"."+k, v.MapIndex(kv)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkStructUTF8(path string, v reflect.Value) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		p := path
		switch {
		case name == "-":
			continue
		case sf.Anonymous && name == "":
		case name == "":
			p += "." + sf.Name
		default:
			p += "." + name
		}
		if err := checkUTF8(p, v.Field(i)); err != nil {
			return err
		}
	}
	return nil
}

package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// numMark marks a number placeholder inside the decoded expected tree.
const numMark = "\x00num:"

// Match compares a frame the side under test sent (its encoded envelope)
// with the file's frame: type, id and the decoded payload members (trace
// is ignored). Placeholders the side under test owns bind to the first
// value it sends and must repeat it later; the peer's take their defaults.
// Core's execution_prepare configuration may carry members the file does
// not list (the Session's agent configuration is Core's choice); every
// other object must have exactly the listed members. Bindings change only
// when the whole frame matches.
func (b *bindings) Match(f *Frame, got []byte) error {
	var env struct {
		Type    string          `json:"type"`
		ID      string          `json:"id"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(got, &env); err != nil {
		return fmt.Errorf("sent frame is not JSON: %v", err)
	}
	if env.Type != f.Type {
		return fmt.Errorf("sent %s, want %s", env.Type, f.Type)
	}
	m := matcher{b: b, trial: map[string]string{}}
	if err := m.str("id", f.ID, env.ID); err != nil {
		return err
	}
	if f.Payload == "" {
		if len(env.Payload) != 0 && string(env.Payload) != "null" && string(env.Payload) != "{}" {
			return fmt.Errorf("payload %s, want none", env.Payload)
		}
	} else {
		want, err := expectedTree(f.Payload)
		if err != nil {
			return err
		}
		var have any
		dec := json.NewDecoder(bytes.NewReader(env.Payload))
		dec.UseNumber()
		if err := dec.Decode(&have); err != nil {
			return fmt.Errorf("sent payload: %v", err)
		}
		m.extraOK = b.self == Core && f.Type == "execution_prepare"
		if err := m.value("payload", want, have); err != nil {
			return err
		}
	}
	for k, v := range m.trial {
		b.vals[k] = v
	}
	return nil
}

// expectedTree decodes the file's payload with number placeholders
// turned into marked strings.
func expectedTree(payload string) (any, error) {
	t, err := parseTemplate(payload)
	if err != nil {
		return nil, err
	}
	text := t.render(func(name string, inString bool) string {
		if inString {
			return "$" + name
		}
		q, _ := json.Marshal(numMark + name)
		return string(q)
	})
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("expected payload: %v", err)
	}
	return v, nil
}

type matcher struct {
	b       *bindings
	trial   map[string]string
	extraOK bool
}

func (m *matcher) lookup(name string, inString bool) (string, bool) {
	if v, ok := m.trial[name]; ok {
		return v, true
	}
	return m.b.Value(name, inString)
}

func (m *matcher) bind(path, name, v string) error {
	if v == "" {
		return fmt.Errorf("%s: $%s would bind an empty value", path, name)
	}
	for _, vals := range []map[string]string{m.b.vals, m.trial} {
		for other, ov := range vals {
			if ov == v && other != name {
				return fmt.Errorf("%s: $%s would bind %q, already the value of $%s", path, name, v, other)
			}
		}
	}
	m.trial[name] = v
	return nil
}

func (m *matcher) value(path string, want, have any) error {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: sent %s, want an object", path, show(have))
		}
		return m.object(path, w, h)
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return fmt.Errorf("%s: sent %s, want %d elements", path, show(have), len(w))
		}
		for i := range w {
			if err := m.value(fmt.Sprintf("%s[%d]", path, i), w[i], h[i]); err != nil {
				return err
			}
		}
		return nil
	case string:
		if name, ok := strings.CutPrefix(w, numMark); ok {
			n, isNum := have.(json.Number)
			if !isNum {
				return fmt.Errorf("%s: sent %s, want the number $%s", path, show(have), name)
			}
			return m.num(path, name, n.String())
		}
		h, ok := have.(string)
		if !ok {
			return fmt.Errorf("%s: sent %s, want a string", path, show(have))
		}
		return m.str(path, w, h)
	case json.Number:
		h, ok := have.(json.Number)
		if !ok || !sameNumber(w, h) {
			return fmt.Errorf("%s: sent %s, want %s", path, show(have), w)
		}
		return nil
	default:
		if want != have {
			return fmt.Errorf("%s: sent %s, want %s", path, show(have), show(want))
		}
		return nil
	}
}

func (m *matcher) object(path string, w, h map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(w)) {
		hv, ok := h[k]
		if !ok {
			return fmt.Errorf("%s.%s: missing", path, k)
		}
		if err := m.value(path+"."+k, w[k], hv); err != nil {
			return err
		}
	}
	if m.extraOK && path == "payload.configuration" {
		return nil
	}
	var extra []string
	for k := range h {
		if _, ok := w[k]; !ok {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return fmt.Errorf("%s: unlisted members %s", path, strings.Join(extra, ", "))
	}
	return nil
}

func (m *matcher) num(path, name, have string) error {
	if v, ok := m.lookup(name, false); ok {
		if v != have {
			return fmt.Errorf("%s: sent %s, want $%s = %s", path, have, name, v)
		}
		return nil
	}
	m.trial[name] = have // numbers (instants) may repeat: no uniqueness
	return nil
}

// str matches a string with placeholders: bound ones must equal, at most
// one unbound one binds to what the literals leave.
func (m *matcher) str(path, want, have string) error {
	t, err := splitString(want)
	if err != nil {
		return err
	}
	var re strings.Builder
	re.WriteString("^")
	var unbound []string
	for _, s := range t {
		if s.name == "" {
			re.WriteString(regexp.QuoteMeta(s.lit))
			continue
		}
		if v, ok := m.lookup(s.name, true); ok {
			re.WriteString(regexp.QuoteMeta(v))
			continue
		}
		unbound = append(unbound, s.name)
		re.WriteString("(.+)")
	}
	re.WriteString("$")
	if len(unbound) > 1 {
		return fmt.Errorf("%s: %q binds two placeholders at once", path, want)
	}
	sub := regexp.MustCompile(re.String()).FindStringSubmatch(have)
	if sub == nil {
		return fmt.Errorf("%s: sent %q, want %q", path, have, m.expand(want))
	}
	if len(unbound) == 1 {
		return m.bind(path, unbound[0], sub[1])
	}
	return nil
}

// expand renders want with the values known so far, for messages.
func (m *matcher) expand(want string) string {
	t, err := splitString(want)
	if err != nil {
		return want
	}
	return t.render(func(name string, _ bool) string {
		if v, ok := m.lookup(name, true); ok {
			return v
		}
		return "$" + name
	})
}

func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseFloat(string(a), 64)
	y, err2 := strconv.ParseFloat(string(b), 64)
	return err1 == nil && err2 == nil && x == y
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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

// Match compares a frame the side under test sent with the file's, as
// README.md, "Frames and comparison" and "Placeholders" say; bindings
// change only when the whole frame matches.
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
		have, err := decodeNumbers(string(env.Payload))
		if err != nil {
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
	v, err := decodeNumbers(text)
	if err != nil {
		return nil, fmt.Errorf("expected payload: %v", err)
	}
	return v, nil
}

// decodeNumbers decodes JSON text keeping its numbers as json.Number.
func decodeNumbers(text string) (any, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
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
	extra := slices.DeleteFunc(slices.Sorted(maps.Keys(h)), func(k string) bool { _, listed := w[k]; return listed })
	if len(extra) > 0 {
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

// DefaultNumber is a peer's number placeholder (wire-reference §7).
const DefaultNumber = "1800000000000"

// segment is a piece of a payload template: literal text, or a
// placeholder in a string (inString) or number position; a plain
// string's placeholders render unescaped.
type segment struct {
	lit             string
	name            string
	inString, plain bool
}

type template []segment

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)

// parseTemplate splits JSON text, splitString a plain string (an ID).
func parseTemplate(text string) (template, error) { return scanTemplate(text, false) }
func splitString(s string) (template, error)      { return scanTemplate(s, true) }

// scanTemplate splits JSON text, or a plain string (every placeholder a
// string's, no quotes or escapes), into literals and placeholders.
func scanTemplate(text string, plain bool) (template, error) {
	var out template
	var lit strings.Builder
	inStr := plain
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case !plain && inStr && c == '\\' && i+1 < len(text):
			lit.WriteByte(c)
			lit.WriteByte(text[i+1])
			i++
			continue
		case !plain && c == '"':
			inStr = !inStr
		case c == '$' && i+1 < len(text) && text[i+1] == '$':
			lit.WriteByte('$')
			i++
			continue
		case c == '$':
			name := identRe.FindString(text[i+1:])
			if name == "" {
				return nil, fmt.Errorf("bad placeholder at %q", clip(text[i:]))
			}
			out = append(out, segment{lit: lit.String()}, segment{name: name, inString: inStr, plain: plain})
			lit.Reset()
			i += len(name)
			continue
		}
		lit.WriteByte(c)
	}
	return append(out, segment{lit: lit.String()}), nil
}

func clip(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// render substitutes every placeholder with value(name, inString).
func (t template) render(value func(name string, inString bool) string) string {
	var b strings.Builder
	for _, s := range t {
		if s.name == "" {
			b.WriteString(s.lit)
			continue
		}
		v := value(s.name, s.inString)
		if s.inString && !s.plain {
			q, _ := json.Marshal(v)
			v = string(q[1 : len(q)-1])
		}
		b.WriteString(v)
	}
	return b.String()
}

// defaultValue is a placeholder's value when the scripted peer mints it.
func defaultValue(name string, inString bool) string {
	if inString && strings.HasPrefix(name, "uuid_") {
		return defaultUUID(name)
	}
	if inString {
		return name
	}
	return DefaultNumber
}

// bindings holds the values the side under test minted.
type bindings struct {
	self   Side
	owners map[string]Side
	vals   map[string]string
}

// newBindings returns empty bindings for a runner that tests self.
func newBindings(sc *Scenario, self Side) *bindings {
	return &bindings{self: self, owners: sc.Owners, vals: map[string]string{}}
}

// Value returns the bound value of a placeholder owned by the side under
// test, or the default of one the peer owns.
func (b *bindings) Value(name string, inString bool) (string, bool) {
	if b.owners[name] != b.self {
		return defaultValue(name, inString), true
	}
	v, ok := b.vals[name]
	return v, ok
}

// Peer renders a frame the scripted peer sends as envelope bytes.
func (b *bindings) Peer(f *Frame) ([]byte, error) {
	var missing []string
	value := func(name string, inString bool) string {
		v, ok := b.Value(name, inString)
		if !ok {
			missing = append(missing, "$"+name)
		}
		return v
	}
	idT, _ := splitString(f.ID)
	id := idT.render(value)
	payload := ""
	if f.Payload != "" {
		t, _ := parseTemplate(f.Payload)
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(t.render(value))); err != nil {
			return nil, fmt.Errorf("payload: %v", err)
		}
		payload = buf.String()
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s used before the %s sent a value for it", strings.Join(missing, ", "), b.self)
	}
	env := `{"type":` + strconv.Quote(f.Type)
	if id != "" {
		env += `,"id":` + strconv.Quote(id)
	}
	if payload != "" {
		env += `,"payload":` + payload
	}
	return []byte(env + "}"), nil
}

// defaultUUID is a uuid_ placeholder's default: a version 4 UUID whose
// bits are the name's SHA-256.
func defaultUUID(name string) string {
	b := sha256.Sum256([]byte(name))
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:16])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

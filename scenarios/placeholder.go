package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// DefaultNumber is the value a numeric placeholder takes when the
// scripted peer mints it (wire-reference §7: expires_at 1800000000000).
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

// parseTemplate splits JSON text into literals and placeholders: `$name`
// inside a string is a string placeholder, a bare `$name` is a number
// placeholder; `$$` is a literal dollar sign.
func parseTemplate(text string) (template, error) { return scanTemplate(text, false) }

// splitString splits a plain string (an envelope ID, a decoded JSON
// string) into literals and string placeholders.
func splitString(s string) (template, error) { return scanTemplate(s, true) }

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

func (t template) names() []string {
	var out []string
	for _, s := range t {
		if s.name != "" && !slices.Contains(out, s.name) {
			out = append(out, s.name)
		}
	}
	return out
}

// defaultValue is the value a placeholder takes when the scripted peer
// mints it: a string placeholder its own name, a number DefaultNumber.
func defaultValue(name string, inString bool) string {
	if inString && strings.HasPrefix(name, "uuid_") {
		return defaultUUID(name)
	}
	if inString {
		return name
	}
	return DefaultNumber
}

func placeholdersOf(f *Frame) ([]string, error) {
	id, err := splitString(f.ID)
	if err != nil {
		return nil, err
	}
	names := id.names()
	if f.Payload != "" {
		p, err := parseTemplate(f.Payload)
		if err != nil {
			return nil, err
		}
		for _, n := range p.names() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names, nil
}

// bindings holds the values the side under test minted for the
// placeholders it owns. The scripted peer's own placeholders take their
// defaults.
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

// defaultUUID is the default of a uuid_ placeholder, for the IDs the
// wire requires to be canonical UUIDs (a write's mutation and Session
// IDs): a version 4 UUID whose bits are the name's SHA-256, so each name
// has its own.
func defaultUUID(name string) string {
	b := sha256.Sum256([]byte(name))
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:16])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

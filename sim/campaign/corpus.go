package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/turnstile-sim/turnstile/sim"
)

// Case is one entry of the regression corpus (sim/testdata/regressions) and
// the format of a failure bundle's shrunk.json. It holds everything needed
// to replay a run exactly: the world configuration and the schedule.
type Case struct {
	Seed   uint64 `json:"seed"`
	Config Config `json:"config"`
	// Commit is the commit the run was recorded on.
	Commit string `json:"commit,omitempty"`
	// Check is the check that failed when the case was found ("" for a pin
	// of a passing run).
	Check string `json:"check,omitempty"`
	Note  string `json:"note,omitempty"`
	// Fingerprint, when set, is the fingerprint the replay must produce;
	// it changes whenever behaviour changes.
	Fingerprint string       `json:"fingerprint,omitempty"`
	Schedule    sim.Schedule `json:"schedule"`
	// Derived is what the seed drew about the world beside its schedule
	// (devices, capabilities, limits, Harness settings, workload shape),
	// as the world reports it; informative only (a failure bundle's
	// options.json), never read back.
	Derived json.RawMessage `json:"derived,omitempty"`
	// Bare is set by ParseCase for a bare schedule, which carries no
	// configuration of its own.
	Bare bool `json:"-"`
}

// caseIndentDepth is how deep a case's JSON is indented: the case, its
// schedule and the schedule's lists; each fault stays on one line, so that
// entries are short and diffs read one fault per line.
const caseIndentDepth = 3

// Marshal renders the case as JSON with a trailing newline.
func (c Case) Marshal() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(c)
	assert.That(err == nil, "case marshal")
	return append(indentShallow(bytes.TrimSpace(b.Bytes()), caseIndentDepth), '\n')
}

// indentShallow indents compact JSON like json.Indent with two spaces, but
// only containers opened above depth; deeper ones stay compact.
func indentShallow(src []byte, depth int) []byte {
	var out []byte
	level, inString, escaped := 0, false, false
	newline := func(n int) {
		out = append(out, '\n')
		for range n {
			out = append(out, "  "...)
		}
	}
	for i, ch := range src {
		if inString {
			out = append(out, ch)
			switch {
			case escaped:
				escaped = false
			case ch == '\\':
				escaped = true
			case ch == '"':
				inString = false
			}
			continue
		}
		switch ch {
		case '"':
			inString = true
			out = append(out, ch)
		case '{', '[':
			out = append(out, ch)
			level++
			if level <= depth && i+1 < len(src) && src[i+1] != '}' && src[i+1] != ']' {
				newline(level)
			}
		case '}', ']':
			level--
			if level < depth && src[i-1] != '{' && src[i-1] != '[' {
				newline(level)
			}
			out = append(out, ch)
		case ',':
			out = append(out, ch)
			if level <= depth {
				newline(level)
			}
		case ':':
			out = append(out, ch)
			if level <= depth {
				out = append(out, ' ')
			}
		default:
			out = append(out, ch)
		}
	}
	return out
}

// ParseCase reads a case, or a bare schedule as written by
// sim.Schedule.MarshalIndent (then Config is the zero value: the caller
// supplies it).
func ParseCase(b []byte) (Case, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return Case{}, fmt.Errorf("campaign: bad case: %w", err)
	}
	if _, ok := probe["schedule"]; !ok {
		s, err := sim.ParseSchedule(b)
		if err != nil {
			return Case{}, err
		}
		return Case{Seed: s.Seed, Schedule: s, Bare: true}, nil
	}
	var c Case
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Case{}, fmt.Errorf("campaign: bad case: %w", err)
	}
	if c.Schedule.Seed != c.Seed {
		return Case{}, fmt.Errorf("campaign: bad case: seed %d but schedule seed %d", c.Seed, c.Schedule.Seed)
	}
	if err := c.Schedule.Validate(); err != nil {
		return Case{}, fmt.Errorf("campaign: bad case: %w", err)
	}
	return c, nil
}

package api

import (
	"bytes"

	"github.com/turnstile-sim/turnstile/wire"
)

// The usual POST .../events body and message input hold only objects,
// arrays, strings of printable ASCII without escapes and true/false,
// with each member once and named exactly. plainScan decodes that form
// directly into what decodeStrict would produce; anything else (another
// member, a duplicate, a differently cased name, null, a number, an
// escape, non-ASCII text, trailing data, malformed JSON) makes it give
// up, and the caller decodes with decodeStrict, whose answer (value or
// refusal) is then the only one.
type plainScan struct {
	b []byte
	i int
}

func (s *plainScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips white space and reports the next byte (0 at the end).
func (s *plainScan) next() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// eat consumes c, the next byte after white space.
func (s *plainScan) eat(c byte) bool {
	if s.next() == c {
		s.i++
		return true
	}
	return false
}

// str reads a plain string.
func (s *plainScan) str() (string, bool) {
	if s.next() != '"' {
		return "", false
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			v := string(s.b[s.i+1 : j])
			s.i = j + 1
			return v, true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return "", false
		}
	}
	return "", false
}

// boolean reads true or false.
func (s *plainScan) boolean() (bool, bool) {
	s.ws()
	switch {
	case bytes.HasPrefix(s.b[s.i:], []byte("true")):
		s.i += 4
		return true, true
	case bytes.HasPrefix(s.b[s.i:], []byte("false")):
		s.i += 5
		return false, true
	}
	return false, false
}

// skip passes one value of the plain form.
func (s *plainScan) skip(depth int) bool {
	if depth > 64 {
		return false
	}
	switch s.next() {
	case '"':
		_, ok := s.str()
		return ok
	case 't', 'f':
		_, ok := s.boolean()
		return ok
	case '[':
		s.i++
		if s.eat(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.eat(']') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	case '{':
		s.i++
		if s.eat('}') {
			return true
		}
		for {
			if _, ok := s.str(); !ok || !s.eat(':') || !s.skip(depth+1) {
				return false
			}
			if s.eat('}') {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	}
	return false
}

// raw reads one value of the plain form as a RawMessage gets it: a copy
// of its bytes.
func (s *plainScan) raw() ([]byte, bool) {
	s.ws()
	start := s.i
	if !s.skip(0) {
		return nil, false
	}
	return bytes.Clone(s.b[start:s.i]), true
}

// object reads an object of the plain form, calling member for each
// member name (seen once at most) with the scanner at its value.
func (s *plainScan) object(member func(name string) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	var seen []string
	for {
		name, ok := s.str()
		if !ok || !s.eat(':') {
			return false
		}
		for _, n := range seen {
			if n == name {
				return false
			}
		}
		seen = append(seen, name)
		if !member(name) {
			return false
		}
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// array reads an array of the plain form, calling elem for each element
// with the scanner at it.
func (s *plainScan) array(elem func() bool) bool {
	if !s.eat('[') {
		return false
	}
	if s.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// end: nothing but white space follows.
func (s *plainScan) end() bool { return s.next() == 0 && s.i == len(s.b) }

func (s *plainScan) strPtr() (*string, bool) {
	v, ok := s.str()
	return &v, ok
}

// decodeEventsPlain decodes a POST .../events body of the plain form into
// events; ok is false when the body is not of that form.
func decodeEventsPlain(b []byte) (events []sessionInput, ok bool) {
	s := &plainScan{b: b}
	ok = s.object(func(name string) bool {
		if name != "events" {
			return false
		}
		events = []sessionInput{}
		return s.array(func() bool {
			var in sessionInput
			ok := s.object(func(name string) bool {
				var ok bool
				switch name {
				case "type":
					in.Type, ok = s.str()
				case "input":
					in.Input, ok = s.raw()
				case "call_id":
					in.CallID, ok = s.strPtr()
				case "turn_id":
					in.TurnID, ok = s.strPtr()
				case "success":
					var v bool
					v, ok = s.boolean()
					in.Success = &v
				case "error":
					in.Error, ok = s.strPtr()
				case "output":
					in.Output, ok = s.raw()
				case "request_id":
					in.RequestID, ok = s.strPtr()
				case "response":
					in.Response, ok = s.raw()
				}
				return ok
			})
			events = append(events, in)
			return ok
		})
	})
	return events, ok && s.end()
}

// inputMessage is one message of a message input.
type inputMessage struct {
	Role    string              `json:"role"`
	Type    *string             `json:"type"`
	Content []wire.InputContent `json:"content"`
}

// decodeMessagesPlain decodes a message input of the plain form; ok is
// false when it is not of that form.
func decodeMessagesPlain(raw []byte) (msgs []inputMessage, ok bool) {
	s := &plainScan{b: raw}
	msgs = []inputMessage{}
	ok = s.array(func() bool {
		var m inputMessage
		ok := s.object(func(name string) bool {
			var ok bool
			switch name {
			case "role":
				m.Role, ok = s.str()
			case "type":
				m.Type, ok = s.strPtr()
			case "content":
				m.Content = []wire.InputContent{}
				ok = s.array(func() bool {
					var c wire.InputContent
					ok := s.object(func(name string) bool {
						var ok bool
						switch name {
						case "type":
							c.Type, ok = s.str()
						case "text":
							c.Text, ok = s.strPtr()
						case "image_url":
							c.ImageURL, ok = s.strPtr()
						}
						return ok
					})
					m.Content = append(m.Content, c)
					return ok
				})
			}
			return ok
		})
		msgs = append(msgs, m)
		return ok
	})
	return msgs, ok && s.end()
}

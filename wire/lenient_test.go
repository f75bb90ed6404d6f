package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The compatibility audit of wire-reference §1: D-era payload decoding
// ignores unknown members, except in the strict payload types (the
// capability object, the user-choice decision, tool_call and the directory
// result), which reject them at any depth; unknown envelope members are
// ignored by the gateway. The rule is written out again here by path, not
// read from the schemas under test.

// freeForm are the members whose object value is data rather than a
// struct (raw JSON members and string maps): a member added there is kept,
// not ignored.
var freeForm = map[string]bool{"agent_options": true, "args": true, "arguments": true, "capability_sources": true,
	"data": true, "env": true, "error": true, "output": true, "parameters": true, "payload": true, "raw": true,
	"result": true, "schema": true, "sources": true, "transcript": true, "updated_input": true}

// inFreeForm reports whether path lies inside a free-form member.
func inFreeForm(path string) bool {
	for _, seg := range strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' }) {
		if freeForm[seg] {
			return true
		}
	}
	return false
}

// strictRegion reports whether an object at path (dotted members and [i]
// indexes below the payload) of a frame of type typ lies where §1 asks
// for strictness. Raw JSON members inside a strict type are free-form.
func strictRegion(typ, path string) bool {
	switch typ {
	case TypeUserChoiceDecision:
		return true
	case TypeToolCall:
		for _, raw := range []string{"args", "result", "observation.output", "observation.error"} {
			if path == raw || strings.HasPrefix(path, raw+".") || strings.HasPrefix(path, raw+"[") {
				return false
			}
		}
		return true
	case TypeHeartbeat:
		return strings.Contains(path, ".capabilities") && strings.HasPrefix(path, "supported_agent_kinds[")
	case TypeWorkspaceReadResult:
		return path == "directory" || strings.HasPrefix(path, "directory.")
	}
	return false
}

// objectSite is an object of a payload: its path and the offset just
// after its opening brace.
type objectSite struct {
	path  string
	after int
	empty bool
}

// objectSites lists every object of a payload with its path, walking the
// token stream (so raw members keep their bytes).
func objectSites(t *testing.T, payload []byte) []objectSite {
	t.Helper()
	type level struct {
		object bool
		path   string
		key    string
		index  int
	}
	var sites []objectSite
	var stack []level
	child := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := &stack[len(stack)-1]
		if !top.object {
			p := top.path + "[" + strconv.Itoa(top.index) + "]"
			top.index++
			return p
		}
		if top.path == "" {
			return top.key
		}
		return top.path + "." + top.key
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	expectKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return sites
		}
		if err != nil {
			t.Fatal(err)
		}
		if expectKey {
			stack[len(stack)-1].key = tok.(string)
			expectKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			p := child()
			after := int(dec.InputOffset())
			empty := bytes.HasPrefix(bytes.TrimLeft(payload[after:], " \n\t\r"), []byte("}"))
			sites = append(sites, objectSite{path: p, after: after, empty: empty})
			stack = append(stack, level{object: true, path: p})
		case json.Delim('['):
			stack = append(stack, level{path: child()})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			child()
		}
		if len(stack) > 0 && stack[len(stack)-1].object && dec.More() {
			expectKey = true
		}
	}
}

const unknownMember = `"zz_unknown_member":{"nested":[1,{"x":null}]}`

// TestUnknownMembersByPayloadFamily: for every message type (its sample
// frame) and every object of its payload, an extra unknown member is
// rejected with ErrUnknownField where §1 asks for strictness and ignored
// everywhere else: the frame decodes to exactly the value it decodes to
// without the member.
func TestUnknownMembersByPayloadFamily(t *testing.T) {
	lenient, strict := 0, 0
	types := map[string]bool{}
	for _, f := range sampleFrames() {
		frame, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Decode(frame)
		if err != nil {
			t.Fatal(err)
		}
		var env Envelope
		if err := json.Unmarshal(frame, &env); err != nil || env.Payload == nil {
			continue // a bodyless sample has no payload object
		}
		start := bytes.Index(frame, []byte(`"payload":`)) + len(`"payload":`)
		for _, site := range objectSites(t, env.Payload) {
			at := start + site.after
			member := unknownMember + ","
			if site.empty {
				member = unknownMember
			}
			mutated := append(append(append([]byte(nil), frame[:at]...), member...), frame[at:]...)
			got, err := Decode(mutated)
			if inFreeForm(site.path) {
				if err != nil {
					t.Errorf("%s at %q (free-form): %v", f.Type(), site.path, err)
				}
				continue
			}
			if strictRegion(f.Type(), site.path) {
				strict++
				if !errors.Is(err, ErrUnknownField) {
					t.Errorf("%s at %q (strict): err = %v, want ErrUnknownField\n%s", f.Type(), site.path, err, mutated)
				}
				continue
			}
			lenient++
			types[f.Type()] = true
			if err != nil {
				t.Errorf("%s at %q (lenient): %v\n%s", f.Type(), site.path, err, mutated)
			} else if !reflect.DeepEqual(got, want) {
				t.Errorf("%s at %q: the ignored member changed the value\n got %#v\nwant %#v", f.Type(), site.path, got, want)
			}
		}
	}
	if strict == 0 || lenient == 0 || len(types) < len(Types())-4 {
		t.Fatalf("audit covered %d strict and %d lenient objects over %d types", strict, lenient, len(types))
	}
}

// TestUnknownEnvelopeMembersIgnored: an envelope member this package does
// not know (the R era's assignment, say) is skipped, its JSON still
// checked; one that differs from a member only in case is rejected.
func TestUnknownEnvelopeMembersIgnored(t *testing.T) {
	base := `{"type":"delta","id":"r","payload":{"delta":"a","sequence":1}}`
	want, err := Decode([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	for _, frame := range []string{
		`{"type":"delta","id":"r","assignment":{"session_id":"s","assignment_id":"a","epoch":1},"payload":{"delta":"a","sequence":1}}`,
		`{"assignment":null,"type":"delta","id":"r","payload":{"delta":"a","sequence":1},"x":"\u00e9"}`,
		`{"type":"delta","id":"r","payload":{"delta":"a","sequence":1},"assignment":1,"assignment":2}`,
	} {
		got, err := Decode([]byte(frame))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, %v", frame, got, err)
		}
		sameDecoding(t, []byte(frame))
	}
	for _, frame := range []string{
		`{"TYPE":"delta","type":"delta","id":"r","payload":{"delta":"a","sequence":1}}`,
		`{"type":"delta","Id":"x","id":"r","payload":{"delta":"a","sequence":1}}`,
	} {
		if _, err := Decode([]byte(frame)); !errors.Is(err, ErrUnknownField) || !strings.Contains(err.Error(), "only in case") {
			t.Errorf("%s: err = %v, want ErrUnknownField (case)", frame, err)
		}
	}
}

// TestCaseFoldedMembersRejected: in a lenient payload a member whose name
// differs from a known one only in case is not ignored (the upstream
// decoder would read it as that member), at any depth.
func TestCaseFoldedMembersRejected(t *testing.T) {
	for _, frame := range []string{
		`{"type":"delta","id":"r","payload":{"delta":"a","sequence":1,"Sequence":2}}`,
		`{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"","Agent_Kind":"j"}}}`,
		`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"k","KIND":"j","available":true,"capabilities":` + capsJSON + `}]}}`,
	} {
		if _, err := Decode([]byte(frame)); !errors.Is(err, ErrUnknownField) || !strings.Contains(err.Error(), "only in case") {
			t.Errorf("%s: err = %v, want ErrUnknownField (case)", frame, err)
		}
	}
}

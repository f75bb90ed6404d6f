package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

var (
	genID   = rapid.StringMatching(`[a-z0-9][a-z0-9_.:-]{0,23}`)
	genText = rapid.String()
	genSeq  = rapid.Uint64()
)

func genPart(t *rapid.T, label string) InputContent {
	if rapid.Bool().Draw(t, label+"_image") {
		return ImagePart("data:image/png;base64," + rapid.StringMatching(`[A-Za-z0-9+/]{4,16}`).Draw(t, label+"_url"))
	}
	return TextPart(genText.Draw(t, label+"_text"))
}

var genInput = rapid.Custom(func(t *rapid.T) MessageInput {
	n := rapid.IntRange(1, 3).Draw(t, "messages")
	in := make(MessageInput, n)
	for i := range in {
		first := TextPart(rapid.StringN(1, 40, -1).Draw(t, "first"))
		in[i].Content = []InputContent{first}
		for j := rapid.IntRange(0, 2).Draw(t, "parts"); j > 0; j-- {
			in[i].Content = append(in[i].Content, genPart(t, "part"))
		}
	}
	return in
})

var genCaps = rapid.Custom(func(t *rapid.T) AgentKindCapabilities {
	var c AgentKindCapabilities
	for _, f := range c.Fields() {
		*f.Value = CapabilityFromBool(rapid.Bool().Draw(t, f.Name))
	}
	return c
})

func optString(t *rapid.T, label string) string {
	if rapid.Bool().Draw(t, label+"_set") {
		return genID.Draw(t, label)
	}
	return ""
}

// genFrameLegacy holds the generators of the first payload families;
// payloadGens (rapid_gen2_test.go) holds the others.
var genFrameLegacy = map[string]func(*rapid.T) Payload{
	TypeDelta: func(t *rapid.T) Payload {
		return Delta{ItemID: optString(t, "item"), Delta: genText.Draw(t, "delta"), Sequence: genSeq.Draw(t, "seq")}
	},
	TypeThinking: func(t *rapid.T) Payload {
		return Thinking{Text: genText.Draw(t, "text"), Sequence: genSeq.Draw(t, "seq")}
	},
	TypeExecutionStart: func(t *rapid.T) Payload {
		return ExecutionStart{ExecutorID: genID.Draw(t, "executor"), Handle: genID.Draw(t, "handle"),
			RunID: genID.Draw(t, "run"), Input: genInput.Draw(t, "input")}
	},
	TypePromptSteer: func(t *rapid.T) Payload {
		return PromptSteer{InputID: genID.Draw(t, "input_id"), Input: genInput.Draw(t, "input"),
			DurableReceipt: rapid.Bool().Draw(t, "durable")}
	},
	TypeHeartbeat: func(t *rapid.T) Payload {
		kinds := rapid.SliceOfNDistinct(genID, 0, 3, func(s string) string { return s }).Draw(t, "kinds")
		hb := Heartbeat{TS: rapid.Int64Min(0).Draw(t, "ts"), ActiveRequests: rapid.IntRange(0, 64).Draw(t, "active"),
			DaemonVersion: optString(t, "version")}
		for _, k := range kinds {
			hb.SupportedAgentKinds = append(hb.SupportedAgentKinds, SupportedAgentKind{Kind: k,
				Available: rapid.Bool().Draw(t, "available"), Capabilities: genCaps.Draw(t, "caps")})
		}
		return hb
	},
	TypeUserChoiceDecision: func(t *rapid.T) Payload {
		qs := rapid.SliceOfNDistinct(genID, 0, 4, func(s string) string { return s }).Draw(t, "questions")
		d := UserChoiceDecision{DeliveryID: genID.Draw(t, "delivery")}
		if rapid.Bool().Draw(t, "cancelled") {
			d.Cancelled, d.Reason = true, optString(t, "reason")
			return d
		}
		for _, q := range qs {
			d.QuestionAnswers = append(d.QuestionAnswers, QuestionAnswer{QuestionID: q,
				Answers: rapid.SliceOfN(genText, 0, 3).Draw(t, "answers")})
		}
		return d
	},
	TypeError: func(t *rapid.T) Payload {
		code := rapid.SampledFrom(append([]string{"", "bogus"}, EngineErrorCodes...)).Draw(t, "code")
		c, s := ClassifyEngineError(code, rapid.IntRange(0, 700).Draw(t, "status"))
		return RunError{Error: genText.Draw(t, "error"), Code: c, HTTPStatus: s}
	},
	TypeFunctionResult: func(t *rapid.T) Payload {
		content := []InputContent{}
		for n := rapid.IntRange(0, 3).Draw(t, "parts"); n > 0; n-- {
			content = append(content, genPart(t, "part"))
		}
		return FunctionResult{DeliveryID: genID.Draw(t, "delivery"), CallID: genID.Draw(t, "call"),
			Success: rapid.Bool().Draw(t, "success"), Content: content}
	},
	TypePreparationStatus: func(t *rapid.T) Payload {
		st := rapid.SampledFrom([]string{StatePreparing, StateReady, StateReleased, StateExpired}).Draw(t, "state")
		return PreparationStatus{ExecutorID: optString(t, "executor"), Handle: genID.Draw(t, "handle"),
			Revision: rapid.Uint64Min(1).Draw(t, "revision"), State: st, ExpiresAt: rapid.Int64Min(0).Draw(t, "expires"),
			Reused: rapid.Bool().Draw(t, "reused")}
	},
	TypeUsage: func(t *rapid.T) Payload {
		if u := genUsage(t); u != nil {
			return UsageUpdate{*u}
		}
		return UsageUpdate{}
	},
}

// genFrame draws a valid frame of any registered type.
var genFrame = rapid.Custom(func(t *rapid.T) Frame {
	id := genID.Draw(t, "id")
	typ := rapid.SampledFrom(Types()).Draw(t, "type")
	gen := payloadGens[typ]
	if gen == nil {
		gen = genFrameLegacy[typ]
	}
	p := gen(t)
	trace := ""
	if rapid.Bool().Draw(t, "trace") {
		trace = sampleTrace
	}
	return Frame{ID: id, Trace: trace, Payload: p}
})

func TestPropertyRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := genFrame.Draw(t, "frame")
		if err := Validate(f.Payload); err != nil {
			t.Fatalf("generator produced an invalid payload: %v", err)
		}
		b, err := Encode(f)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		if !reflect.DeepEqual(got, f) {
			t.Fatalf("round trip\n got %#v\nwant %#v", got, f)
		}
		again, err := Encode(got)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs: %s vs %s (%v)", again, b, err)
		}
	})
}

// memberSite is one struct member of a decoded payload tree.
type memberSite struct {
	obj     map[string]any
	field   *schemaField
	present bool
}

// collectSites walks a generic JSON tree alongside its schema.
func collectSites(v any, s *schema, objs *[]map[string]any, members *[]memberSite) {
	switch s.kind {
	case kindStruct:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if !s.ignoreUnknown { // only the strict payload types reject unknown members
			*objs = append(*objs, m)
		}
		for i := range s.fields {
			f := &s.fields[i]
			child, present := m[f.name]
			*members = append(*members, memberSite{obj: m, field: f, present: present})
			if present && child != nil && !f.lenient {
				collectSites(child, f.schema, objs, members)
			}
		}
	case kindArray:
		a, _ := v.([]any)
		for _, e := range a {
			collectSites(e, s.elem, objs, members)
		}
	case kindMap:
		m, _ := v.(map[string]any)
		for _, e := range m {
			collectSites(e, s.elem, objs, members)
		}
	}
}

// wrongValue returns a JSON value of a type the schema does not accept.
func wrongValue(k jsonKind) any {
	switch k {
	case kindString, kindBytes:
		return json.Number("12")
	case kindStruct, kindMap, kindRawObject:
		return []any{}
	case kindArray:
		return "x"
	}
	return "x" // bool and numbers
}

var mutationKinds = []string{"drop", "null", "unknown", "wrong_type", "oversize_id", "oversize_frame", "unknown_envelope"}

// mutate applies one single-field mutation and returns the error it must cause.
func mutate(t *rapid.T, env map[string]any, s *schema) error {
	var objs []map[string]any
	var members []memberSite
	if p, ok := env["payload"]; ok {
		collectSites(p, s, &objs, &members)
	}
	pick := func(keep func(memberSite) bool) (memberSite, bool) {
		var c []memberSite
		for _, m := range members {
			if keep(m) {
				c = append(c, m)
			}
		}
		if len(c) == 0 {
			return memberSite{}, false
		}
		return c[rapid.IntRange(0, len(c)-1).Draw(t, "site")], true
	}
	switch rapid.SampledFrom(mutationKinds).Draw(t, "mutation") {
	case "drop":
		if m, ok := pick(func(m memberSite) bool { return m.present && m.field.required }); ok {
			delete(m.obj, m.field.name)
			return ErrMissingField
		}
	case "null":
		if m, ok := pick(func(m memberSite) bool { return m.present && !m.field.nullable && !m.field.lenient }); ok {
			m.obj[m.field.name] = nil
			return ErrNull
		}
	case "unknown":
		if len(objs) > 0 {
			objs[rapid.IntRange(0, len(objs)-1).Draw(t, "obj")]["zz_unknown"] = true
			return ErrUnknownField
		}
	case "wrong_type":
		if m, ok := pick(func(m memberSite) bool {
			return m.present && !m.field.lenient && m.field.schema.kind != kindRaw
		}); ok {
			m.obj[m.field.name] = wrongValue(m.field.schema.kind)
			return ErrWrongType
		}
	case "oversize_id":
		env["id"] = strings.Repeat("i", IDBytesMax+1+rapid.IntRange(0, 64).Draw(t, "extra"))
		return ErrTooLarge
	case "oversize_frame":
		return ErrTooLarge // handled by the caller
	}
	env["zz_envelope"] = 1 // ignored (wire-reference §1)
	return nil
}

func TestPropertyMutationsRejected(t *testing.T) {
	samples := sampleFrames()
	rapid.Check(t, func(t *rapid.T) {
		var f Frame
		if rapid.Bool().Draw(t, "sample") {
			f = rapid.SampledFrom(samples).Draw(t, "frame")
		} else {
			f = genFrame.Draw(t, "frame")
		}
		b, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var env map[string]any
		if err := dec.Decode(&env); err != nil {
			t.Fatal(err)
		}
		want := mutate(t, env, registry[f.Type()].schema)
		mutated, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		if want == ErrTooLarge && len(mutated) <= FrameBytesMax && !strings.Contains(string(mutated), strings.Repeat("i", IDBytesMax+1)) {
			mutated = append(mutated, bytes.Repeat([]byte(" "), FrameBytesMax)...)
		}
		_, err = Decode(mutated)
		if !errors.Is(err, want) {
			t.Fatalf("mutated frame %.300s\ngot %v, want %v", mutated, err, want)
		}
	})
}

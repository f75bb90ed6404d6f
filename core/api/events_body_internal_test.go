package api

import (
	"reflect"
	"testing"
)

// eventBodies are POST .../events bodies of the plain form and near it:
// every way out of the plain form must leave the decoding to
// decodeStrict.
var eventBodies = []string{
	`{"events":[{"type":"agent.session.input.message","input":[{"role":"user","content":[{"type":"input_text","text":"hello"}]}]}]}`,
	" \n{ \"events\" : [ { \"type\" : \"agent.session.input.message\" , \"input\" : \"hi\" } ] }\t\r\n",
	`{"events":[]}`, `{"events":[{}]}`, `{}`, `[]`, ``, ` `, `null`, `{"events":null}`,
	`{"events":[{"type":"agent.session.input.cancel"}]}`,
	`{"events":[{"type":"agent.session.input.tool_result","call_id":"c1","turn_id":"t-1","success":true,"output":[{"type":"input_text","text":"ok"}]}]}`,
	`{"events":[{"type":"agent.session.input.tool_result","call_id":"c1","turn_id":"t-1","success":false,"error":"bad","output":"text"}]}`,
	`{"events":[{"type":"agent.session.input.approval_result","request_id":"r1","response":{"approve":true,"x":{"y":[true,false,"z"]}}}]}`,
	`{"events":[{"type":"a"},{"type":"b","input":{"a":"b","a":"c"}}]}`,
	`{"events":[{"type":"a","type":"b"}]}`, `{"events":[],"events":[]}`, `{"Events":[]}`, `{"events":[{"Type":"a"}]}`,
	`{"events":[{"type":"a","extra":1}]}`, `{"events":[{"type":"a","unknown":"x"}]}`, `{"other":[]}`,
	`{"events":[{"type":null}]}`, `{"events":[{"type":"a","call_id":null}]}`, `{"events":[{"type":"a","input":null}]}`,
	`{"events":[{"type":"a","success":1}]}`, `{"events":[{"type":"a","input":1.5}]}`, `{"events":[{"type":"a","input":[1,2]}]}`,
	`{"events":[{"type":"a\"b"}]}`, `{"events":[{"type":"a\u0041"}]}`, `{"events":[{"type":"é"}]}`, "{\"events\":[{\"type\":\"a\x01\"}]}",
	"{\"events\":[{\"type\":\"\xff\"}]}", `{"events":[{"type":"a"}]} x`, `{"events":[{"type":"a"}]}{}`, `{"events":[{"type":"a"}]`,
	`{"events":[{"type":"a"},]}`, `{"events":[{"type":"a",}]}`, `{"events":[{"type" "a"}]}`, `{"events":[{"type":"a"} {"type":"b"}]}`,
	`{"events":[{"type":"a","success":tru}]}`, `{"events":[{"type":"a","success":truex}]}`, `{"events":[{"type":"a","input":[}]}`,
	`{"events":[{"type":"a","input":{"k":}}]}`, `{"events":[{"type":"a","input":{"k" "v"}}]}`, `{"events":[{"type":true}]}`,
	`{"events":[{"type":"a","call_id":true}]}`, `{"events":{"type":"a"}}`, `{"events":"x"}`, "{\"events\":[]}\x00",
}

// messageInputs are message inputs of the plain form and near it.
var messageInputs = []string{
	`[{"role":"user","content":[{"type":"input_text","text":"hello"}]}]`,
	`[{"role":"user","type":"message","content":[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"https://x/y.png"}]},{"role":"user","content":[]}]`,
	` [ { "role" : "user" , "content" : [ ] } ] `, `[]`, `[{}]`, `[{"role":"user"}]`, `"text"`, `null`, `{}`, `[null]`,
	`[{"role":"user","role":"x"}]`, `[{"Role":"user"}]`, `[{"role":"user","content":[{"type":"input_text","text":"a","text":"b"}]}]`,
	`[{"role":"user","content":[{"type":"input_text","Text":"a"}]}]`, `[{"role":"user","content":[{"type":"input_text","extra":"a"}]}]`,
	`[{"role":"user","content":[{"type":"input_text","text":null}]}]`, `[{"role":"user","type":null}]`, `[{"role":"user","content":null}]`,
	`[{"role":"user","content":"x"}]`, `[{"role":1}]`, `[{"role":"user"}] x`, `[{"role":"us\ter"}]`, `[{"role":"usér"}]`,
	`[{"role":"user","content":[{"type":"input_text","text":"a"}]},]`, `[{"role":"user","content":[{"type":"input_text","text":"a"}]}`,
}

// The plain decoding of an events body gives what decodeStrict gives,
// and gives up on every body decodeStrict refuses.
func TestDecodeEventsPlainIsDecodeStrict(t *testing.T) {
	plain := 0
	for _, b := range eventBodies {
		if checkEventsPlain(t, b) {
			plain++
		}
	}
	if plain < 7 {
		t.Fatalf("only %d bodies took the plain path", plain)
	}
}

// The plain decoding of a message input gives what decodeStrict gives,
// and gives up on every input decodeStrict refuses.
func TestDecodeMessagesPlainIsDecodeStrict(t *testing.T) {
	plain := 0
	for _, raw := range messageInputs {
		if checkMessagesPlain(t, raw) {
			plain++
		}
	}
	if plain < 4 {
		t.Fatalf("only %d inputs took the plain path", plain)
	}
}

func checkEventsPlain(t *testing.T, b string) bool {
	t.Helper()
	got, ok := decodeEventsPlain([]byte(b))
	if !ok {
		return false
	}
	var p struct {
		Events []sessionInput `json:"events"`
	}
	if err := decodeStrict([]byte(b), &p); err != nil {
		t.Fatalf("%q: plain decoding took a body decodeStrict refuses: %v", b, err)
	}
	if !reflect.DeepEqual(got, p.Events) {
		t.Fatalf("%q:\n plain  %+v\n strict %+v", b, got, p.Events)
	}
	return true
}

func checkMessagesPlain(t *testing.T, raw string) bool {
	t.Helper()
	got, ok := decodeMessagesPlain([]byte(raw))
	if !ok {
		return false
	}
	var msgs []inputMessage
	if err := decodeStrict([]byte(raw), &msgs); err != nil {
		t.Fatalf("%q: plain decoding took an input decodeStrict refuses: %v", raw, err)
	}
	if !reflect.DeepEqual(got, msgs) {
		t.Fatalf("%q:\n plain  %+v\n strict %+v", raw, got, msgs)
	}
	return true
}

func FuzzDecodeEventsPlain(f *testing.F) {
	for _, b := range eventBodies {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b string) { checkEventsPlain(t, b) })
}

func FuzzDecodeMessagesPlain(f *testing.F) {
	for _, raw := range messageInputs {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) { checkMessagesPlain(t, raw) })
}

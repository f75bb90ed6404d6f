package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// streamJSONStrings are strings whose JSON rendering has every escape
// json.Marshal makes.
var streamJSONStrings = []string{"", "plain", `q"b\s`, "\b\f\n\r\t\x00\x1f", "<a href='x'>&amp;</a>", "é中😀",
	"bad\xffutf8\xc3", "line\u2028para\u2029", "\x7f~"}

// eventDataVariants sets every member of the event data, one at a time
// and all together, with each of the strings.
func eventDataVariants() []eventData {
	two, zero := 2, 0
	started, done := int64(5), int64(9)
	var out []eventData
	for _, s := range streamJSONStrings {
		s := s
		agent, sub := s, s
		turn := TurnObject{ID: s, Object: "agent.session.turn", AgentID: &agent, SessionID: s, CreatedAt: -3, StartedAt: &started,
			CompletedAt: &done, Status: s, SubagentID: &sub, XAgentsCore: &TurnXAgentsCore{State: s, Cancel: s}}
		failed := turn
		failed.Error = &TurnErrorJSON{Code: s, Message: s, XAgentsCore: TurnErrorDetail{ErrorCode: s, EngineError: &EngineError{Code: s, HTTPStatus: 429}}}
		failed.Usage = &UsageJSON{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}
		failed.XAgentsCore = &TurnXAgentsCore{State: s}
		bare := TurnObject{}
		item := ItemJSON{ID: s, Type: "function_call", TurnID: s, Status: s, CallID: s, Name: s, Arguments: json.RawMessage(" { \"a\" : \"<b>\" } ")}
		phase := s
		message := ItemJSON{ID: s, Type: "message", TurnID: s, Status: s, Role: s, Phase: &phase,
			Content: []ContentJSON{{Type: "output_text", Text: &phase}, {Type: s, ImageURL: &phase}, {Type: s}}}
		output := ItemJSON{ID: s, Type: "function_call_output", TurnID: s, Status: s, CallID: s, Output: []ContentJSON{{Type: s, Text: &phase}},
			Error: &phase, XAgentsCore: &ItemReceipt{InputID: s, State: s, ErrorCode: s}, Content: []ContentJSON{}, Arguments: json.RawMessage(`{}`)}
		sess := sessionVariants(s)[0]
		all := eventData{ContentIndex: &two, Delta: &s, Error: &streamError{Type: s, Code: s, Message: s, Param: &s}, EventID: s,
			Item: &item, ItemID: s, OutputIndex: outputFirst, Session: &sess, SessionID: s, Text: &s, Turn: &failed, TurnID: s, Type: s,
			Usage: json.RawMessage(`{"input_tokens":1}`)}
		out = append(out, all,
			eventData{EventID: s, Type: s},
			eventData{ContentIndex: &zero, Delta: &s, EventID: s, ItemID: s, OutputIndex: outputFirst, SessionID: s, TurnID: s, Type: s},
			eventData{EventID: s, Turn: &turn, Type: s, Usage: jsonNull},
			eventData{EventID: s, Turn: &bare, Type: s, OutputIndex: jsonNull},
			eventData{EventID: s, Text: &s, Type: s, Usage: json.RawMessage(" [ 1 , 2 ] ")},
			eventData{EventID: s, Session: &sess, Type: s},
			eventData{EventID: s, Item: &message, OutputIndex: outputFirst, Type: s},
			eventData{EventID: s, Item: &output, Type: s},
			eventData{EventID: s, Item: &ItemJSON{}, Type: s},
		)
	}
	return out
}

// The stream's hand-written encoding of event data is byte for byte
// json.Marshal's.
func TestAppendEventDataIsMarshal(t *testing.T) {
	for i, d := range eventDataVariants() {
		want, err := json.Marshal(&d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := new(eventEncoder).appendEventData([]byte("prefix"), &d)
		if err != nil || !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Fatalf("variant %d: %v\n got  %s\n want prefix%s", i, err, got, want)
		}
	}
}

// A raw member that is not JSON fails the event as json.Marshal does.
func TestAppendEventDataRefusesBadRaw(t *testing.T) {
	d := eventData{EventID: "e", Type: "t", Usage: json.RawMessage("{bad")}
	if _, err := json.Marshal(&d); err == nil {
		t.Fatal("json.Marshal took a bad raw member")
	}
	if _, err := new(eventEncoder).appendEventData(nil, &d); err == nil {
		t.Fatal("appendEventData took a bad raw member")
	}
}

func FuzzAppendEventDataIsMarshal(f *testing.F) {
	for _, s := range streamJSONStrings {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		agent := b
		d := eventData{Delta: &a, EventID: b, ItemID: a, SessionID: b, Text: &b, TurnID: a, Type: b,
			Turn: &TurnObject{ID: a, Object: b, AgentID: &agent, SessionID: a, Status: b, XAgentsCore: &TurnXAgentsCore{State: a, Cancel: b}}}
		want, _ := json.Marshal(&d)
		got, err := new(eventEncoder).appendEventData(nil, &d)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q %q:\n got  %s\n want %s", a, b, got, want)
		}
	})
}

// sessionVariants are Session objects with s in every string, each
// optional member set in one of them and left null or empty in another.
func sessionVariants(s string) []SessionObject {
	name, reason := s, s
	full := SessionObject{ID: s, Object: "agent.session", CreatedAt: 7, LastActiveAt: 9,
		Agent:       SessionAgentJSON{Name: &name, Model: s, ServiceTier: s, Tools: []AgentToolJSON{}},
		Environment: json.RawMessage(` {"type" : "<none>"} `), Error: &name,
		Metadata: map[string]string{s: s, "b": "<&>", "a": "", "é": "x"},
		RequiredActions: []RequiredAction{{Type: "function_call", TurnID: s, CallID: s, Name: s, Arguments: json.RawMessage(`{"x": 1}`)},
			{Type: "mcp_approval_request", TurnID: s, RequestID: s, Request: &ApprovalRequest{Type: s, Name: &name, Message: s, Arguments: json.RawMessage(`[]`)}}},
		Status: s, Usage: &UsageJSON{InputTokens: 1, OutputTokens: 2, TotalTokens: 3}, VaultIDs: []string{s, "v2"},
		XAgentsCore: SessionCoreJSON{RecoveryRequired: true, UnusableReason: &reason}}
	empty := SessionObject{ID: s, Object: "agent.session", Agent: SessionAgentJSON{Model: s}, Environment: json.RawMessage(`{"type":"none"}`),
		Metadata: map[string]string{}, RequiredActions: []RequiredAction{}, Status: "idle", VaultIDs: []string{},
		XAgentsCore: SessionCoreJSON{Usable: true}}
	return []SessionObject{full, empty, {ID: s}}
}

// A Session object's hand-written encoding is json.Marshal's, with the
// agent rendered anew or taken from the encoder's first rendering (one
// stream's Session objects share their agent).
func TestAppendSessionObjectIsMarshal(t *testing.T) {
	for _, s := range streamJSONStrings {
		for i, so := range sessionVariants(s) {
			want, err := json.Marshal(&so)
			if err != nil {
				t.Fatal(err)
			}
			var enc eventEncoder
			for round := range 2 {
				so.Status = fmt.Sprint("round ", round)
				want, _ = json.Marshal(&so)
				got, err := enc.appendSessionObject([]byte("x"), &so)
				if err != nil || !bytes.Equal(got, append([]byte("x"), want...)) {
					t.Fatalf("%q variant %d round %d: %v\n got  %s\n want x%s", s, i, round, err, got, want)
				}
			}
		}
	}
}

// appendJSONString renders every byte value, alone and inside plain
// text, as json.Marshal does.
func TestAppendJSONStringIsMarshal(t *testing.T) {
	for c := range 256 {
		for _, s := range []string{string(rune(c)), string([]byte{byte(c)}), "ab" + string([]byte{byte(c)}) + "cd"} {
			want, _ := json.Marshal(s)
			if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
				t.Fatalf("%q: got %s want %s", s, got, want)
			}
		}
	}
}

// The receipts of POST .../events are written as json.Marshal renders
// them, with and without their optional members.
func TestAppendEventsReceiptIsMarshal(t *testing.T) {
	for _, s := range streamJSONStrings {
		for _, r := range []EventsReceipt{{Object: s}, {Object: s, Receipts: []Receipt{}},
			{Object: s, Receipts: []Receipt{{Type: s, Action: s, TurnID: s}, {Type: s, Action: s, TurnID: s, InputID: s, DeliveryID: s}, {InputID: "0"}}}} {
			want, _ := json.Marshal(&r)
			if got := appendEventsReceipt([]byte("x"), &r); !bytes.Equal(got, append([]byte("x"), want...)) {
				t.Fatalf("got  %s\nwant x%s", got, want)
			}
		}
	}
}

// A Turn's creation record is stored as json.Marshal renders it.
func TestAppendTurnRecordIsMarshal(t *testing.T) {
	for _, s := range streamJSONStrings {
		for _, at := range []int64{0, -1, 1796423134} {
			r := turnRecordJSON{Session: s, CreatedAt: at}
			want, _ := json.Marshal(r)
			if got := appendTurnRecord(nil, r); !bytes.Equal(got, want) {
				t.Fatalf("got %s want %s", got, want)
			}
		}
	}
}

// A stream cursor renders and parses back, a long Turn ID and large
// counts included (past the rendering's stack buffer).
func TestStreamCursorRoundTripLong(t *testing.T) {
	for _, c := range []streamCursor{{turn: "t-1", p: 1, e: 22, i: 3, t: 4}, {turn: strings.Repeat("t", 100), e: 1 << 40}} {
		got, ok := parseCursor(c.String())
		if !ok || got != c {
			t.Fatalf("%+v came back %+v %v", c, got, ok)
		}
	}
}

// An event whose ID is its stream cursor encodes as json.Marshal renders
// the data with that ID as event_id, whatever the Turn ID holds.
func TestAppendEventDataCursorIDIsMarshal(t *testing.T) {
	for _, s := range append(streamJSONStrings, "turn_01", "t:1") {
		for _, c := range []streamCursor{{turn: s}, {turn: s, p: 1, e: 12, i: 3, t: 4}} {
			text := "x"
			d := eventData{SessionID: "s", TurnID: s, Text: &text, Type: EvOutputTextDone}
			withID := d
			withID.EventID = c.String()
			want, err := json.Marshal(&withID)
			if err != nil {
				t.Fatal(err)
			}
			d.eventCursor, d.byCursor = c, true
			got, err := new(eventEncoder).appendEventData(nil, &d)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("cursor %+v: %v\n got  %s\n want %s", c, err, got, want)
			}
			if id := c.appendTo(nil); string(id) != c.String() {
				t.Fatalf("cursor %+v renders %q, String %q", c, id, c.String())
			}
		}
	}
}

// A usage object is written by hand byte for byte as json.Marshal does.
func TestAppendUsageIsMarshal(t *testing.T) {
	for _, u := range []UsageJSON{{}, {InputTokens: 3, OutputTokens: 4, TotalTokens: 7}, {InputTokens: -1, TotalTokens: 1 << 62},
		func() UsageJSON {
			u := UsageJSON{InputTokens: 10, OutputTokens: 20, TotalTokens: 30}
			u.InputTokensDetails.CachedTokens, u.OutputTokensDetails.ReasoningTokens = 5, 6
			return u
		}()} {
		want, err := json.Marshal(&u)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendUsage([]byte("p"), &u); !bytes.Equal(got, append([]byte("p"), want...)) {
			t.Fatalf("got %s want p%s", got, want)
		}
	}
}

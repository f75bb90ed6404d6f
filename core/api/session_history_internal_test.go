package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// A failed Turn carries the engine error only when it failed with
// engine_failed; any other failure names Core's code alone.
func TestTurnErrorProjection(t *testing.T) {
	srec := sessionRecord{CreatedAt: 7}
	engine := core.TurnRecord{ID: "t-1", Session: "s-1", State: core.TurnFailed, ErrorCode: core.CodeEngineFailed, ErrorDetail: "rate limited"}
	v := core.TurnView{EngineErrorCode: "rate_limit_exceeded", EngineHTTPStatus: 429}
	b, _ := json.Marshal(turnObject(engine, v, srec, 0))
	if !strings.Contains(string(b), `"error":{"code":"server_error","message":"rate limited","x_agents_core":{"error_code":"engine_failed","engine_error":{"code":"rate_limit_exceeded","http_status":429}}}`) ||
		!strings.Contains(string(b), `"status":"failed"`) || !strings.Contains(string(b), `"created_at":7`) {
		t.Fatalf("engine failure %s", b)
	}
	other := core.TurnRecord{ID: "t-2", Session: "s-1", State: core.TurnFailed, ErrorCode: "runtime_unavailable"}
	b, _ = json.Marshal(turnObject(other, v, srec, 0))
	if !strings.Contains(string(b), `"error":{"code":"internal_error","message":"runtime_unavailable","x_agents_core":{"error_code":"runtime_unavailable"}}`) {
		t.Fatalf("other failure %s", b)
	}
	done := core.TurnRecord{ID: "t-3", Session: "s-1", State: core.TurnCompleted}
	b, _ = json.Marshal(turnObject(done, v, srec, 9))
	if !strings.Contains(string(b), `"error":null`) || strings.Contains(string(b), "engine_error") || !strings.Contains(string(b), `"created_at":9`) {
		t.Fatalf("completed %s", b)
	}
}

func TestRunEventMapping(t *testing.T) {
	text := "hi"
	for _, c := range []struct {
		p    wire.Payload
		typ  string
		want string
	}{
		{wire.Delta{Delta: "d", Sequence: 1}, EvOutputTextDelta, `"delta":"d"`},
		{wire.Delta{Delta: "d", Sequence: 1, ItemID: "it-1"}, EvOutputTextDelta, `"item_id":"it-1"`},
		{wire.OutputMessage{ID: "m-1", Status: "completed", Text: &text}, EvItemDone, `"item":{"id":"m-1","type":"message","turn_id":"t-1","status":"completed","role":"assistant"`},
		{wire.RunError{Error: "boom", Code: "server_error"}, EvError, `"error":{"code":"server_error","message":"boom","param":null,"type":"engine_error"}`},
		{wire.Thinking{Text: "hmm"}, "", ""},
		{wire.Done{Content: "x"}, "", ""},
	} {
		typ, data, ok := runEvent("s-1", "t-1", func() string { return messageID("t-1") }, core.RunEvent{Seq: 1, Payload: c.p})
		if typ != c.typ || ok != (c.typ != "") {
			t.Fatalf("%T: %q %v", c.p, typ, ok)
		}
		if ok {
			b, _ := json.Marshal(data)
			if !strings.Contains(string(b), c.want) {
				t.Fatalf("%T: %s, want %s", c.p, b, c.want)
			}
		}
	}
}

func TestStreamCursorRoundTrip(t *testing.T) {
	c := streamCursor{turn: "t-12", p: 1, e: 40, i: 3, t: 2}
	got, ok := parseCursor(c.String())
	if !ok || got != c {
		t.Fatalf("round trip %v %v", got, ok)
	}
	for _, bad := range []string{"", "t-1", "t-1:0:0:0", ":0:0:0:0", "t-1:2:0:0:0", "t-1:0:0:0:5", "t-1:0:-1:0:0", "t-1:a:0:0:0"} {
		if _, ok := parseCursor(bad); ok {
			t.Fatalf("%q parsed", bad)
		}
	}
}

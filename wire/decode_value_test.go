package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// sameDecoding fails unless Decode and decodeReference agree on frame:
// the same error text, or equal frames.
func sameDecoding(t interface {
	Helper()
	Fatalf(string, ...any)
}, frame []byte) {
	t.Helper()
	got, gerr := Decode(frame)
	want, werr := decodeReference(frame)
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("frame %.400q\none-pass error %v\nreference error %v", frame, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("frame %.400q\none-pass %#v\nreference %#v", frame, got, want)
	}
}

// TestOnePassMatchesReferenceOnFixtures: every golden frame and every
// seed of the payload fuzz corpora decodes the same both ways.
func TestOnePassMatchesReferenceOnFixtures(t *testing.T) {
	n := 0
	for _, f := range sampleFrames() {
		b, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		sameDecoding(t, b)
		n++
	}
	files, _ := filepath.Glob("testdata/golden/*.json")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sameDecoding(t, bytes.TrimSpace(b))
		n++
	}
	if n < len(Types()) {
		t.Fatalf("only %d fixtures for %d types", n, len(Types()))
	}
}

// TestOnePassMatchesReferenceOnEdgeCases covers what the one-pass decoder
// rebuilds itself: escapes and surrogate pairs, non-compact and
// HTML-escaped raw members, base64 with escapes, empty optional bytes,
// nulls, integers at their limits, unknown members of the heartbeat, and
// members out of declaration order.
func TestOnePassMatchesReferenceOnEdgeCases(t *testing.T) {
	frames := []string{
		`{"type":"delta","id":"r","payload":{"delta":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 é","sequence":18446744073709551615}}`,
		`{"payload":{"sequence":0,"delta":""},"id":"r","type":"delta"}`,
		`{"type":"delta","id":"r","payload":{"delta":"x","sequence":-1}}`,
		`{"type":"delta","id":"r","payload":{"delta":"x","sequence":1.0}}`,
		`{"type":"delta","id":"r","payload":{"delta":"x","sequence":1,"delta":"y"}}`,
		`{"type":"delta","id":"r","payload":{"delta":"x","sequence":1,"zz":1}}`,
		`{"type":"delta","id":"r","payload":{"delta":"\ud800","sequence":1}}`,
		`{"type":"heartbeat","payload":{"ts":-9223372036854775808,"active_requests":0,"claude_available":true,"x":{"y":[1,{"a":2}]}}}`,
		`{"type":"heartbeat","payload":{"ts":9223372036854775808,"active_requests":0}}`,
		`{"type":"tool_call","id":"r","payload":{"id":"t","name":"n","stage":"before","args":{ "b" : [1, 2],"a":"<&>\u2028" }}}`,
		`{"type":"tool_call","id":"r","payload":{"id":"t","name":"n","stage":"before","args":{"a":{"a":1,"a":2}}}}`,
		`{"type":"workspace_read_result","id":"r","payload":{"state":"completed","data":"","close_acknowledged":true}}`,
		`{"type":"workspace_read_result","id":"r","payload":{"state":"completed","data":"aGk\u003d","close_acknowledged":true}}`,
		`{"type":"workspace_read_result","id":"r","payload":{"state":"completed","data":"aGk","close_acknowledged":true}}`,
		`{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"","agent_options":{"model":"m","sys\u0074em_prompt":{"x" : null}},"mcp_http_servers":null,"local_environment":{"env":{"A":"b"}}}}}`,
		`{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"","mcp_http_servers":[],"function_tools":[]}}}`,
		`{"type":"execution_prepare","id":"p","payload":{"session_id":"s","configuration":{"agent_kind":"k","conversation_id":"","run_id":"","mcp_http_servers":[{"connection_origin":"service","allowed_tools":null},{"connection_origin":"service","allowed_tools":[]}]}}}`,
		`{"type":"usage","id":"r","payload":{"input_tokens":1,"output_tokens":2}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":7,"http_status":"500"}}`,
		`{"type":"error","id":"r","payload":{"error":"x\u00e9","code":"connection_failed","http_status":502}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"conn\u0065ction_failed","http_status":599}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"connection_failed","http_status":1000}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"connection_failed","http_status":-502}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"connection_failed","http_status":5e2}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"connection_failed","http_status":502.0}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"connection_failed","http_status":99999999999999999999999}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"rate_limit_exceeded","http_status":429}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"nope","http_status":500}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":null,"http_status":null}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":{"a":1,"a":2}}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":["\ud800"]}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"a\u00","http_status":1}}`,
		`{"type":"error","id":"r","payload":{"error":"x","code":"rate_limit_exceeded","code":"server_error"}}`,
		`{"type":"error","id":"r","payload":{"error":"x","Code":"server_error"}}`,
		`{"type":"error","id":"r","payload":{"error":7}}`,
		`{"type":"error","id":"r","payload":{"code":"server_error"}}`,
		`{"payload":{"error":"x","http_status":503,"code":"connection_failed"},"type":"error"}`,
		`{"type":"prompt_cancel","id":"r"}`,
		`{"type":"permission_cancel","id":"r","payload":{}}`,
		`{"type":"done","id":"r","payload":{"content":"c","transcript":[ 1 ,2]}}`,
		// envelope orders and shapes the inline path hands to the two-pass one
		` { "trace" : "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" , "type" : "delta" , "payload" : {"delta":"x","sequence":1} , "id" : "r" } `,
		`{"type":"delta","trace":{"a":1,"a":2},"payload":{"delta":"x","sequence":1}}`,
		`{"type":"delta","trace":"\u0030","payload":{"delta":"x","sequence":1}}`,
		`{"type":"del\u0074a","id":"r","payload":{"delta":"x","sequence":1}}`,
		`{"type":"delta","id":"r","payload":null}`,
		`{"type":"delta","id":"r"}`,
		`{"type":"delta","id":"r","payload":{"delta":"x","sequence":1},"payload":{"delta":"x","sequence":1}}`,
		`{"type":"delta","id":"r","payload":{"delta":"x","sequence":1},"extra":1}`,
		`{"type":"delta","id":"r","payload":{"delta":"x","sequence":1}}x`,
		`{"type":"nope","id":"r","payload":{}}`,
		`{"type":"delta","id":"` + strings.Repeat("i", IDBytesMax+1) + `","payload":{"delta":"x","sequence":1}}`,
		`{"id":"r","payload":{"delta":"x","sequence":1}}`,
		`{}`,
		`[]`,
	}
	for _, f := range frames {
		sameDecoding(t, []byte(f))
	}
}

// mutateBytes applies one random byte-level edit to b.
func mutateBytes(t *rapid.T, b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
	out := append([]byte(nil), b[:i]...)
	switch rapid.IntRange(0, 4).Draw(t, "edit") {
	case 0: // white space
		out = append(out, rapid.SampledFrom([]string{" ", "\n", "\t ", "\r\n"}).Draw(t, "space")...)
		out = append(out, b[i:]...)
	case 1: // delete a byte
		out = append(out, b[i+1:]...)
	case 2: // replace a byte
		out = append(out, rapid.SampledFrom([]byte(`{}[]":,-0129aez\ntu.`)).Draw(t, "byte"))
		out = append(out, b[i+1:]...)
	case 3: // repeat a span (a duplicate member, say)
		j := rapid.IntRange(i, min(len(b), i+40)).Draw(t, "to")
		out = append(out, b[i:j]...)
		out = append(out, b[i:]...)
	default: // an escaped or non-ASCII character
		out = append(out, rapid.SampledFrom([]string{`\u0041`, `\"`, "é", `\ud83d\ude00`, `<`, `\u2028`}).Draw(t, "char")...)
		out = append(out, b[i:]...)
	}
	return out
}

// TestPropertyOnePassMatchesReference: for generated frames of every type
// and random byte edits of them, Decode and decodeReference agree.
func TestPropertyOnePassMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b, err := Encode(genFrame.Draw(t, "frame"))
		if err != nil {
			t.Fatal(err)
		}
		sameDecoding(t, b)
		for range rapid.IntRange(1, 3).Draw(t, "edits") {
			b = mutateBytes(t, b)
		}
		sameDecoding(t, b)
	})
}

// TestPropertyOnePassRawCompaction: a raw member with white space and
// characters encoding/json escapes decodes to json.Marshal's form.
func TestPropertyOnePassRawCompaction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		words := rapid.SliceOfN(rapid.StringOf(rapid.RuneFrom([]rune("ab <>&\u2028é\"\\"))), 1, 4).Draw(t, "words")
		raw, _ := json.MarshalIndent(map[string]any{"w": words}, "", "  ")
		frame := `{"type":"tool_call","id":"r","payload":{"id":"t","name":"n","stage":"after","result":` + string(raw) + `}}`
		sameDecoding(t, []byte(frame))
		f, err := Decode([]byte(frame))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(json.RawMessage(raw))
		if got := f.Payload.(ToolCall).Result; !bytes.Equal(got, want) {
			t.Fatalf("raw member %s, want %s", got, want)
		}
	})
}

// TestInlinePathTaken: what Encode writes (type first) is decoded by the
// inline path for every type, so the fast path is the one the
// differential tests exercise.
func TestInlinePathTaken(t *testing.T) {
	for _, f := range sampleFrames() {
		b, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := decodeInline(b); !ok {
			t.Errorf("%s: not decoded inline", f.Type())
		}
	}
}

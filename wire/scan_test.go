package wire

import (
	"errors"
	"strings"
	"testing"
)

// TestRejectSyntax feeds malformed real frames; each names its position.
func TestRejectSyntax(t *testing.T) {
	d := func(payload string) string { return `{"type":"delta","id":"r","payload":` + payload + `}` }
	runFrameCases(t, []frameCase{
		{"blank frame", "  ", ErrSyntax, "envelope"},
		{"not json", "@", ErrSyntax, "envelope"},
		{"bad member name", `{1:2}`, ErrSyntax, "expected member name"},
		{"type eof", `{"type":`, ErrSyntax, "envelope.type"},
		{"type bad char", `{"type":@}`, ErrSyntax, "envelope.type"},
		{"type bad literal", `{"type":nul}`, ErrSyntax, "invalid literal"},
		{"type bad null tail", `{"type":nulx}`, ErrSyntax, "envelope.type"},
		{"missing colon", `{"type" "delta"}`, ErrSyntax, "expected ':'"},
		{"missing comma", `{"type":"delta" "id":"r"}`, ErrSyntax, "expected ','"},
		{"trailing comma", `{"type":"delta",}`, ErrSyntax, "expected member name"},
		{"control character", "{\"type\":\"a\nb\"}", ErrSyntax, "control character"},
		{"unterminated string", `{"type":"abc`, ErrSyntax, "unterminated string"},
		{"unterminated escape", `{"type":"\`, ErrSyntax, "unterminated escape"},
		{"bad unicode escape", `{"type":"\u12G4"}`, ErrSyntax, "invalid unicode escape"},
		{"short unicode escape", `{"type":"\u12"}`, ErrSyntax, "invalid unicode escape"},
		{"bad escape", `{"type":"\q"}`, ErrSyntax, "invalid escape"},
		{"payload bad null", `{"type":"delta","payload":nul}`, ErrSyntax, "envelope.payload"},
		{"raw member name", d(`{"a":{1:2}}`), ErrSyntax, "expected member name"},
		{"payload eof", `{"type":"delta","payload":`, ErrSyntax, "envelope.payload"},
		{"payload bad char", d(`@`), ErrSyntax, "envelope.payload"},
		{"payload bad literal", d(`{"delta":tru}`), ErrSyntax, "invalid literal"},
		{"id not string", `{"type":"delta","id":7}`, ErrWrongType, "envelope.id"},
		{"trace bad", `{"type":"delta","trace":"\x"}`, ErrSyntax, "envelope.trace"},
		{"minus only", d(`{"delta":"x","sequence":-}`), ErrSyntax, "invalid number"},
		{"bare fraction", d(`{"delta":"x","sequence":1.}`), ErrSyntax, "invalid number"},
		{"bare exponent", d(`{"delta":"x","sequence":1e}`), ErrSyntax, "invalid number"},
		{"float out of range", `{"type":"usage","id":"r","payload":{"cost_usd":1e400}}`, ErrWrongType, "usage.cost_usd"},
		{"long unknown type", `{"type":"` + strings.Repeat("t", 100) + `…"}`, ErrUnknownType, strings.Repeat("t", 64) + "…"},
		{"not an object", `[1]`, ErrWrongType, "envelope"},
		{"trailing data", `{"type":"delta"} x`, ErrTrailingData, "offset"},
	})
}

// TestScannerDefensive drives the payload scanner directly with input the
// envelope scan would have rejected first, so its own checks are exercised.
func TestScannerDefensive(t *testing.T) {
	for _, tt := range []struct {
		name, typ, payload string
		want               error
		field              string
	}{
		{"trailing", TypeDelta, `{"delta":"x","sequence":0} 1`, ErrTrailingData, "delta"},
		{"eof value", TypeDelta, `{"delta":`, ErrSyntax, "delta.delta"},
		{"bad null", TypeDelta, `{"delta":nul}`, ErrSyntax, "delta.delta"},
		{"object comma", TypeDelta, `{"delta":"x" "sequence":0}`, ErrSyntax, "delta.delta"},
		{"map comma", TypeRuntimePrepare, `{"step":"begin","initialization":{"action":"configure","env":{"a":"1" "b":"2"}}}`, ErrSyntax, "initialization.env.a"},
		{"array comma", TypePromptSteer, `{"input_id":"i","input":[{"content":[]} {}]}`, ErrSyntax, "prompt_steer.input[0]"},
		{"base64 unterminated", TypeWorkspaceWrite, `{"step":"chunk","data":"QUJD`, ErrSyntax, "workspace_write.data"},
		{"number", TypeDelta, `{"delta":"x","sequence":-}`, ErrSyntax, "delta.sequence"},
		{"member name eof", TypeDelta, `{"delta":"x",`, ErrSyntax, "expected member name"},
		{"raw eof", TypeToolCall, `{"id":"c","name":"n","stage":"before","args":{"a":`, ErrSyntax, "tool_call.args"},
	} {
		sc := newScanner([]byte(tt.payload), tt.typ)
		err := sc.check(registry[tt.typ].schema)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("%s: got %v, want %v naming %s", tt.name, err, tt.want, tt.field)
		}
	}
}

// Whitespace runs of any length around the skipping block's size, with a
// tab, newline or stray byte anywhere in them, decode as the same frame or
// fail as a syntax error where the stray byte is.
func TestLongWhitespaceRuns(t *testing.T) {
	hb, err := Encode(Frame{Payload: Heartbeat{TS: 1, DaemonVersion: "v"}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Decode(hb)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{7, 8, 9, 511, 512, 513, 1024, 1031, 1536} {
		for _, at := range []int{0, n / 2, n - 1} {
			for _, c := range []byte{'\t', '\n', 'x'} {
				pad := []byte(strings.Repeat(" ", n))
				pad[at] = c
				frame := append(append(append([]byte(nil), hb[:len(hb)-1]...), pad...), '}')
				got, err := Decode(frame)
				if c == 'x' {
					if err == nil {
						t.Errorf("pad %d with a stray byte at %d decoded", n, at)
					}
					continue
				}
				if err != nil || got.Payload.(Heartbeat).DaemonVersion != want.Payload.(Heartbeat).DaemonVersion {
					t.Errorf("pad %d with %q at %d: %v", n, c, at, err)
				}
			}
		}
	}
}

package wire

import (
	"errors"
	"strings"
	"testing"
)

// Heartbeats of a Runtime of the documented era (wire-reference §3.1, §4.3,
// §4.4): a build version in daemon_version, a per-kind native version, ts in
// Unix seconds (or 0 from a fixture), and members the documents say are
// ignored: a legacy claude_available and unknown members of a kind entry.
// Only the capability object is strict.

func TestHeartbeatOfTheDocumentedEraDecodes(t *testing.T) {
	frames := map[string]string{
		"seconds and versions":    `{"type":"heartbeat","payload":{"ts":1760000000,"active_requests":1,"daemon_version":"1.4.2","supported_agent_kinds":[{"kind":"codex","available":true,"version":"0.46.0","capabilities":` + capsJSON + `}]}}`,
		"ts zero":                 `{"type":"heartbeat","payload":{"ts":0,"active_requests":0,"daemon_version":"dev","supported_agent_kinds":[{"kind":"codex","available":true,"version":"0.46.0","capabilities":` + capsJSON + `}]}}`,
		"legacy claude_available": `{"type":"heartbeat","payload":{"ts":1760000000,"active_requests":0,"daemon_version":"1.4.2","claude_available":true,"supported_agent_kinds":[{"kind":"codex","available":true,"version":"0.46.0","capabilities":` + capsJSON + `}]}}`,
		"unknown kind members":    `{"type":"heartbeat","payload":{"ts":1760000000,"active_requests":0,"supported_agent_kinds":[{"kind":"codex","available":true,"version":"0.46.0","claude_available":false,"binary_path":"/usr/bin/codex","extra":{"nested":[1,2]},"capabilities":` + capsJSON + `}]}}`,
	}
	for name, frame := range frames {
		t.Run(name, func(t *testing.T) {
			f, err := Decode([]byte(frame))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			hb, ok := f.Payload.(Heartbeat)
			if !ok || len(hb.SupportedAgentKinds) != 1 {
				t.Fatalf("payload = %#v", f.Payload)
			}
			k := hb.SupportedAgentKinds[0]
			if k.Kind != "codex" || k.Version != "0.46.0" || !k.Capabilities.Streaming.IsSupported() || k.Capabilities.Permissions.IsSupported() {
				t.Fatalf("kind = %+v", k)
			}
			if err := Validate(hb); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if _, err := Encode(f); err != nil {
				t.Fatalf("re-encode: %v", err)
			}
		})
	}
}

func TestHeartbeatCapabilityObjectStaysStrict(t *testing.T) {
	cases := map[string]struct {
		caps string
		want error
	}{
		"unknown capability":         {strings.Replace(capsJSON, `"streaming":true`, `"streaming":true,"claude_available":true`, 1), ErrUnknownField},
		"missing capability":         {strings.Replace(capsJSON, `"streaming":true,`, ``, 1), ErrMissingField},
		"null capability":            {strings.Replace(capsJSON, `"streaming":true`, `"streaming":null`, 1), ErrNull},
		"string capability":          {strings.Replace(capsJSON, `"streaming":true`, `"streaming":"true"`, 1), ErrWrongType},
		"repeated known kind member": {capsJSON + `,"kind":"again"`, ErrDuplicateField},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			frame := `{"type":"heartbeat","payload":{"ts":1760000000,"active_requests":0,"supported_agent_kinds":[{"kind":"codex","available":true,"version":"0.46.0","extra":1,"capabilities":` + c.caps + `}]}}`
			_, err := Decode([]byte(frame))
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if strings.Contains(err.Error(), "claude_available") {
				t.Fatalf("error echoes an unknown capability name: %v", err)
			}
		})
	}
}

func TestIgnoredMembersStillNeedValidJSON(t *testing.T) {
	frame := `{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"claude_available":tru}}`
	if _, err := Decode([]byte(frame)); !errors.Is(err, ErrSyntax) {
		t.Fatalf("err = %v, want ErrSyntax", err)
	}
}

func TestStrictPayloadsRejectUnknownMembers(t *testing.T) {
	frames := []string{
		`{"type":"tool_call","id":"r","payload":{"id":"c","name":"n","stage":"before","native_item":{}}}`,
		`{"type":"prompt_for_user_choice_decision","id":"a","payload":{"delivery_id":"d","question_answers":[{"question_id":"q","answers":["x"],"note":""}]}}`,
	}
	for _, frame := range frames {
		if _, err := Decode([]byte(frame)); !errors.Is(err, ErrUnknownField) {
			t.Fatalf("%s: err = %v, want ErrUnknownField", frame, err)
		}
	}
}

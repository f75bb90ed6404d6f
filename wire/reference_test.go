package wire

import (
	"testing"
)

// referenceFrames are the example frames of wire-reference.md §4.4 and §7
// (the shared wire scenarios). They must decode, validate, and re-encode
// byte for byte: our JSON stays compatible with the documented wire.
var referenceFrames = []string{
	heartbeatWith(capsJSON),
	`{"type":"execution_prepare","id":"prepare","payload":{"session_id":"session","configuration":{"agent_kind":"contract","conversation_id":"","run_id":"","agent_state_key":"agents-api-session","strict_resume":true,"disable_execution_environment":true}}}`,
	`{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":1,"state":"preparing","expires_at":1800000000000}}`,
	`{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":2,"state":"ready","expires_at":1800000000000}}`,
	`{"type":"execution_start","id":"prepare","payload":{"executor_id":"executor","handle":"handle","run_id":"run","input":[{"content":[{"type":"input_text","text":"hello"}]}]}}`,
	`{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":3,"state":"starting","expires_at":1800000000000,"run_id":"run"}}`,
	`{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":4,"state":"started","expires_at":1800000000000,"run_id":"run"}}`,
	`{"type":"prompt_cancel","id":"run","payload":{"delivery_id":"cancel"}}`,
	`{"type":"done","id":"run","payload":{"content":""}}`,
	`{"type":"interaction_decision_ack","id":"run","payload":{"delivery_id":"cancel","applied":true,"outcome":{"content":"partial","metadata":{"agent_session_id":"native-session"}}}}`,
	`{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor","handle":"handle","revision":2,"state":"failed","expires_at":1800000000000,"error_code":"preparation_failed"}}`,
}

func TestReferenceFrames(t *testing.T) {
	for _, frame := range referenceFrames {
		f, err := Decode([]byte(frame))
		if err != nil {
			t.Fatalf("%.80s: %v", frame, err)
		}
		if err := Validate(f.Payload); err != nil {
			t.Fatalf("%.80s: %v", frame, err)
		}
		b, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != frame {
			t.Errorf("re-encoding differs\n got %s\nwant %s", b, frame)
		}
	}
}

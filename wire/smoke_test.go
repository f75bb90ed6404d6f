package wire

import "testing"

func TestRoundTripSmoke(t *testing.T) {
	b, err := Encode(Frame{ID: "prepare", Payload: ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "r", Input: TextInput("hello")}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type() != TypeExecutionStart || m.Payload.(ExecutionStart).RunID != "r" {
		t.Fatalf("got %#v", m)
	}
}

package wire

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestDescribePayloadIsTheFrameLineWithoutTypeAndID(t *testing.T) {
	p := ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "r"}
	line := Describe(Frame{ID: "prepare", Payload: p})
	members := DescribePayload(p)
	if want := "{executor_id=e handle=h run_id=r}"; members != want {
		t.Fatalf("members %q, want %q", members, want)
	}
	if want := "execution_start id=prepare " + strings.Trim(members, "{}"); line != want {
		t.Fatalf("line %q, want %q", line, want)
	}
}

func TestDescribePayloadOfNothing(t *testing.T) {
	if got := DescribePayload(nil); got != "-" {
		t.Fatalf("nil payload: %q, want %q", got, "-")
	}
	if got := DescribePayload(Done{}); got != "{}" {
		t.Fatalf("empty payload: %q, want %q", got, "{}")
	}
}

func TestDescribePayloadIsBounded(t *testing.T) {
	long := strings.Repeat("x", 60)
	p := ExecutionPrepare{SessionID: long, Configuration: ExecutionConfiguration{AgentKind: long,
		ConversationID: long, RunID: long, AgentSessionID: long, AgentStateKey: long}}
	p.Configuration.AgentOptions = map[string]json.RawMessage{}
	for i := range 40 {
		p.Configuration.AgentOptions[long+strconv.Itoa(i)] = json.RawMessage("1")
	}
	s := DescribePayload(p)
	if len(s) > describeBytesMax {
		t.Fatalf("%d bytes, want at most %d", len(s), describeBytesMax)
	}
	if !strings.HasSuffix(s, "…}") {
		t.Fatalf("%s: not cut with …}", s)
	}
}

func TestDescribeDecodedNamesTheDecodingError(t *testing.T) {
	if got, want := DescribeDecoded([]byte("abc"), Frame{}, errors.New("boom")), "undecodable 3B: boom"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	f := Frame{ID: "x", Payload: ExecutionRelease{Handle: "h"}}
	if got, want := DescribeDecoded(nil, f, nil), Describe(f); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

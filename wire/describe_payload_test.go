package wire

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDescribePayloadIsTheFrameLineWithoutTypeAndID(t *testing.T) {
	p := ExecutionStart{ExecutorID: "e", Handle: "h", RunID: "r"}
	line := Describe(Frame{ID: "prepare", Payload: p})
	members := DescribePayload(p)
	require.Equal(t, "{executor_id=e handle=h run_id=r}", members)
	require.Equal(t, "execution_start id=prepare "+strings.Trim(members, "{}"), line)
}

func TestDescribePayloadOfNothing(t *testing.T) {
	require.Equal(t, "-", DescribePayload(nil))
	require.Equal(t, "{}", DescribePayload(Done{}))
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
	require.LessOrEqual(t, len(s), describeBytesMax)
	require.True(t, strings.HasSuffix(s, "…}"), s)
}

func TestDescribeDecodedNamesTheDecodingError(t *testing.T) {
	require.Equal(t, "undecodable 3B: boom", DescribeDecoded([]byte("abc"), Frame{}, errors.New("boom")))
	f := Frame{ID: "x", Payload: ExecutionRelease{Handle: "h"}}
	require.Equal(t, Describe(f), DescribeDecoded(nil, f, nil))
}

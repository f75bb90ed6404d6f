package check

import (
	"strings"
	"testing"
)

func TestSessionRefusedIsAViolation(t *testing.T) {
	l := NewLedger()
	l.SessionRefused(5, "core: invalid configuration: agent_options")
	vs := l.Violations()
	if len(vs) != 1 || vs[0].Check != CheckValidRequestRefused || !strings.Contains(vs[0].Message, "agent_options") {
		t.Fatalf("violations %v", vs)
	}
}
